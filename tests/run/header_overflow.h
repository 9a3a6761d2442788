/* Unbounded recursion in a header: native code's stack overflow (found
   by the signal handler through the line table) names this file. */
long down(long n)
{
    double a[600];
    a[n % 600] = n;
    return down(n + 1) + (long)a[n % 7];
}
