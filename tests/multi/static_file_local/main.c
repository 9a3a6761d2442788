/* `static` at file scope keeps a name to its file (C's internal
   linkage): each file here has its own `count`, its own `bump` and its
   own `next_id` (with a `static` local of the same name), and a `static`
   table; `shared` is one variable, defined in a.c, whose name b.c also
   uses for a `static` variable of its own. */
#include <stdio.h>
void a_work(int n);
void b_work(int n);
int a_count(void);
int b_count(void);
int b_shared(void);
extern int shared;
static int count = 100;
static int bump(int by) { return count += by; }
static int next_id(void) {
    static int id = 1000;
    return ++id;
}
static const char *names[] = {"zero", "one", "two"};

int main(void) {
    a_work(3);
    b_work(5);
    a_work(2);
    bump(7);
    printf("main: count %d, a: %d, b: %d\n", count, a_count(), b_count());
    int first = next_id();
    printf("main: ids %d %d\n", first, next_id());
    printf("main: shared %d, b's own shared %d\n", shared, b_shared());
    printf("main: %s %s\n", names[1], names[2]);
    return 0;
}
