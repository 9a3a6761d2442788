/* <stddef.h> as parc provides it. `NULL` is a keyword of ParC; the type
 * names (`size_t`, `ptrdiff_t`) come with `typedef`;
 * `offsetof` is the compiler's, as in gcc and clang. */
#ifndef _PARC_STDDEF_H
#define _PARC_STDDEF_H

#define offsetof(type, member) __builtin_offsetof(type, member)

#endif
