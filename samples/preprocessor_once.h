#pragma once
/* `#pragma once`: a second #include of this file reads nothing. */
static int once_value(void) { return 42; }
