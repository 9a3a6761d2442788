/* <math.h> as parc provides it. Every function here is differentiable. */
#ifndef _PARC_MATH_H
#define _PARC_MATH_H

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
