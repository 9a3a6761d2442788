/* Included twice by preprocessor.pc: the guard keeps the second copy out. */
#ifndef PREPROCESSOR_H
#define PREPROCESSOR_H

#define HALF 0.5
#define SCALE(x) ((x) * HALF)

static double clamp01(double v) { return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v); }

#endif
