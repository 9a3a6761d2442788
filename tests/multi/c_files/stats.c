#include <stdio.h>
int is_even(int n);
int calls = 0;
static const char *name(void) { return "stats.c"; }
int is_odd(int n) {
    calls++;
    return n == 0 ? 0 : is_even(n - 1);
}
double mean(const double *v, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i];
    printf("%s: summed %d values\n", name(), n);
    return s / n;
}
