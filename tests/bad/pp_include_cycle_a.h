/* Includes its partner, which includes it back: no guard. */
#include "pp_include_cycle_b.h"
