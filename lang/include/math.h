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

#endif
