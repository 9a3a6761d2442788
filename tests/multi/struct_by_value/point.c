typedef struct {
    double x, y;
    int n;
} Point;

Point scaled(Point p, double k) {
    Point r = {p.x * k, p.y * k, p.n + 1};
    return r;
}

double norm1(Point p) { return (p.x < 0 ? -p.x : p.x) + (p.y < 0 ? -p.y : p.y); }
