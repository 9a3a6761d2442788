/* Plain C in three files, as gcc compiles them: prototypes of functions
   defined elsewhere, a `static` function and a string literal in each
   file, a recursive function calling across files, a global defined in
   one file and declared `extern` in the others. */
#include <stdio.h>
extern int calls;
int is_even(int n);
double mean(const double *v, int n);
static const char *name(void) { return "main.c"; }

int main(void) {
    double v[5] = {1.0, 2.0, 3.0, 4.0, 10.0};
    printf("%s: mean = %g\n", name(), mean(v, 5));
    for (int n = 0; n < 4; n++) {
        printf("%s: %d is %s\n", name(), n, is_even(n) ? "even" : "odd");
    }
    printf("%s: %d calls of is_even and is_odd\n", name(), calls);
    return 0;
}
