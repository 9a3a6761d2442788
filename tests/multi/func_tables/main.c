/* Function addresses in initial images across files: a table here of
   functions defined in ops.c, a pointer in ops.c to a `static` function
   of ops.c, and a `static` function here with that function's name. */
#include <stdio.h>
int twice(int x);
int square(int x);
extern int (*ops_scale)(int);
static int scale(int x) { return x + 1000; }
static int (*const pipeline[])(int) = {twice, square, scale, twice};

int main(void) {
    int v = 3;
    for (int i = 0; i < 4; i++) {
        v = pipeline[i](v);
        printf("step %d: %d\n", i, v);
    }
    printf("ops_scale(4) = %d, scale(4) = %d\n", ops_scale(4), scale(4));
    return 0;
}
