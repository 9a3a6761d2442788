/* <math.h> as parc provides it. Every function here is differentiable.
 * The classification macros and the constants are gcc's builtins, as in
 * glibc's header, with gcc's values: `isinf` is -1 for -infinity,
 * `signbit` is 1 for a negative double and INT_MIN for a negative float.
 * `isnan(x)` and `isinf(x)` are ParC builtins, known without this header. */
#ifndef _PARC_MATH_H
#define _PARC_MATH_H

#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define HUGE_VAL (__builtin_huge_val())
#define HUGE_VALF (__builtin_huge_valf())
#define HUGE_VALL HUGE_VAL

#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#define fpclassify(x) __builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x)
#define isfinite(x) __builtin_isfinite(x)
#define isnormal(x) __builtin_isnormal(x)
#define signbit(x) __builtin_signbit(x)

/* POSIX's (and glibc's default) constants, correctly rounded to double. */
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440

double sqrt(double x);
double exp(double x);
double log(double x);
double pow(double x, double y);
double sin(double x);
double cos(double x);
double tan(double x);
double tanh(double x);
double fabs(double x);
double fmin(double x, double y);
double fmax(double x, double y);
double floor(double x);
double ceil(double x);
double atan(double x);
double atan2(double y, double x);
double asin(double x);
double acos(double x);
double sinh(double x);
double cosh(double x);
double asinh(double x);
double acosh(double x);
double atanh(double x);
double log10(double x);
double log2(double x);
double exp2(double x);
double cbrt(double x);
double fmod(double x, double y);
double round(double x);
double trunc(double x);
double hypot(double x, double y);
double erf(double x);

float sqrtf(float x);
float expf(float x);
float logf(float x);
float powf(float x, float y);
float sinf(float x);
float cosf(float x);
float tanf(float x);
float tanhf(float x);
float fabsf(float x);
float fminf(float x, float y);
float fmaxf(float x, float y);
float floorf(float x);
float ceilf(float x);
float atanf(float x);
float atan2f(float y, float x);
float asinf(float x);
float acosf(float x);
float sinhf(float x);
float coshf(float x);
float asinhf(float x);
float acoshf(float x);
float atanhf(float x);
float log10f(float x);
float log2f(float x);
float exp2f(float x);
float cbrtf(float x);
float fmodf(float x, float y);
float roundf(float x);
float truncf(float x);
float hypotf(float x, float y);
float erff(float x);

#endif
