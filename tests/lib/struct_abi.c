/* Driver of struct_abi.pc: the structs are the header's. */
#include <stdio.h>
#include "libstruct_abi.h"

int main(void)
{
    struct Vec2 a = {3.0, 4.0}, b = {0.5, -1.0};
    printf("norm2 = %g, a = (%g, %g)\n", norm2(a), a.x, a.y);
    struct Vec2 s = add(a, b);
    printf("add = (%g, %g)\n", s.x, s.y);
    struct Mixed m = {40, 1.5};
    struct Mixed m2 = bump(m, 2);
    printf("bump = (%d, %g), m = (%d, %g)\n", m2.k, m2.d, m.k, m.d);
    struct Pair p = {7, -3};
    struct Pair q = swap(p);
    printf("swap = (%d, %d)\n", q.a, q.b);
    struct F3 f = {1.0f, 2.0f, 3.0f};
    struct F3 g = f3_scale(f, 0.5f);
    printf("f3_scale = (%g, %g, %g)\n", g.x, g.y, g.z);
    struct Bytes by = {1, 2, 3};
    printf("bytes_sum = %d\n", bytes_sum(by));
    struct Big big = {{1.0, 2.0, 3.0, 4.0}};
    struct Big big2 = big_twice(big);
    printf("big_twice = (%g, %g, %g, %g), big = (%g, ..., %g)\n", big2.v[0], big2.v[1],
           big2.v[2], big2.v[3], big.v[0], big.v[3]);
    struct Seg seg = {{1.0, 2.0}, {0.25f, 0.5f}};
    printf("seg_len = %g\n", seg_len(seg, 2.0));
    struct Vec2 v = {2.0, 3.0};
    printf("many_doubles = %g\n", many_doubles(0.5, 1, 2, 3, 4, 5, 6, v, 7.0));
    struct Wide w = {2, 3};
    printf("many_ints = %ld\n", many_ints(1, 2, 3, 4, 5, w, 6));
    struct Five five = {{1, 2, 3, 4, 5}};
    struct F3 g3 = {0.5f, 0.25f, 0.25f};
    printf("odd_sizes = %ld\n", odd_sizes(five, 1, 1, 1, 1, 1, 1, 1, 1, g3, 7));
    /* The library prints through its own buffer, flushed as each call
       returns; the driver's goes first. */
    fflush(stdout);
    struct Vec2 h = halves(v);
    printf("halves = (%g, %g)\n", h.x, h.y);
    fflush(stdout);
    inside();
    return 0;
}
