#include <stdio.h>
int shared = 1;
static int count;
static int bump(int by) { return count += by; }
static int next_id(void) {
    static int id;
    return ++id;
}
static const char *names[] = {"a0", "a1"};
void a_work(int n) {
    for (int i = 0; i < n; i++) bump(1);
    shared *= 2;
    printf("a: id %d, count %d, %s\n", next_id(), count, names[n % 2]);
}
int a_count(void) { return count; }
