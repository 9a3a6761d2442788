/* Driver of no_main.pc, built with `parc build --emit lib`. */
#include <stdio.h>
#include "libno_main.h"

int main(void)
{
    double a[20], b[20];
    for (int i = 0; i < 20; i++) {
        a[i] = i;
        b[i] = 20 - i;
    }
    scale(a, 20, 0.5);
    printf("a[19] = %g\n", a[19]);
    printf("dot = %g\n", dot(a, b, 20));
    struct Vec2 v = {3.0, 4.0};
    printf("norm2 = %g, v = (%g, %g)\n", norm2(v), v.x, v.y);
    return 0;
}
