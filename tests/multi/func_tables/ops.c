/* The functions the tables in main.c point at; `scale` is `static`, so
   the same name in main.c is another function. */
int twice(int x) { return 2 * x; }
int square(int x) { return x * x; }
static int scale(int x) { return 10 * x; }
int (*ops_scale)(int) = scale;
