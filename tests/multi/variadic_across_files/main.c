/* Calls of another file's variadic functions: by name, through a
   pointer taken here, with no variadic argument, and one variadic call's
   result as another's argument. */
#include <stdio.h>
#include "log.h"

static void twice(int (*say)(const char *, ...), const char *what) {
    say("%s (%d)\n", what, 1);
    say("%s (%d)\n", what, 2);
}

int main(void) {
    int n = log_msg("%d apples, %.2f kg, %s\n", 3, 0.75, "red");
    printf("log_msg wrote %d bytes\n", n);
    log_msg("no arguments\n");
    log_msg("mean %g\n", mean_of(4, 1.0, 2.0, 3.5, 0.5));
    int (*say)(const char *, ...) = log_msg;
    twice(say, "through a pointer");
    printf("%d lines logged\n", logged);
    return 0;
}
