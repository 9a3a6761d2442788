// Structs passed and returned by value between the files of one program:
// both sides are ParC, so the calls agree (a function defined in C would
// be refused; see tests/bad/link_struct_by_value).
#include <stdio.h>

typedef struct {
    double x, y;
    int n;
} Point;

Point scaled(Point p, double k);
double norm1(Point p);

int main() {
    Point p = {1.5, -2.0, 3};
    Point q = scaled(p, 2.0);
    printf("%.2f %.2f %d %.2f\n", q.x, q.y, q.n, norm1(q));
    return 0;
}
