#include <stdio.h>
static int shared = -5;
static double count = 0.5;
static double bump(double by) { return count *= by; }
static int next_id(void) {
    static int id = 50;
    return id += 10;
}
void b_work(int n) {
    for (int i = 0; i < n; i++) bump(2.0);
    shared -= n;
    printf("b: id %d, count %g\n", next_id(), count);
}
int b_count(void) { return (int)count; }
int b_shared(void) { return shared; }
