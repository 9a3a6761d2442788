/* <stdbool.h>: `bool`, `true` and `false` are keywords of ParC. */
#ifndef _PARC_STDBOOL_H
#define _PARC_STDBOOL_H

#define __bool_true_false_are_defined 1

#endif
