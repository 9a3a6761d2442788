/* The variadic functions: `log_msg` hands its arguments to `vprintf`,
   `mean_of` reads them with `va_arg`. */
#include <stdarg.h>
#include <stdio.h>
#include "log.h"

int logged = 0;

int log_msg(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = printf("log %d: ", ++logged);
    n += vprintf(fmt, ap);
    va_end(ap);
    return n;
}

double mean_of(int n, ...) {
    va_list ap;
    va_start(ap, n);
    double t = 0;
    for (int i = 0; i < n; i++)
        t += va_arg(ap, double);
    va_end(ap);
    return n ? t / n : 0;
}
