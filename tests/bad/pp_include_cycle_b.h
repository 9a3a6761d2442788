#include "pp_include_cycle_a.h"
