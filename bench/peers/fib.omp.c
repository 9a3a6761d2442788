/* fib.pc with OpenMP tasks: the gcc -fopenmp side of the fib benchmark.
 *
 * The prelude (include/parc.h) cannot make `x = spawn f(a);` an OpenMP task
 * (a pragma cannot sit inside an expression), so through it gcc runs fib's
 * serial projection. This file is the same program written the way OpenMP
 * spells spawn and sync: a task per spawn (no cutoff, as in fib.pc), a
 * taskwait per sync, and one thread of a parallel region starting the root.
 * Its output must equal fib.pc's. */
#include <stdio.h>
#include <stdlib.h>

int fib(int n)
{
    if (n < 2)
        return n;
    int x = 0;
    int y = 0;
#pragma omp task shared(x)
    x = fib(n - 1);
    y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

int main(int argc, char **argv)
{
    int n = 35;
    if (argc > 1)
        n = atoi(argv[1]);
    int r = 0;
#pragma omp parallel
#pragma omp single
    r = fib(n);
    printf("fib(%d) = %d\n", n, r);
    return 0;
}
