/* <stddef.h> as parc provides it. `NULL` is a keyword of ParC; the type
 * names (`size_t`, `ptrdiff_t`) come with `typedef`. */
#ifndef _PARC_STDDEF_H
#define _PARC_STDDEF_H

#endif
