// A CSR gather, the shape of bench/grad/mesh.pc: node i's energy sums a
// cubic term of its differences to the neighbours col[rowptr[i]..].
// Included by strict_aliasing.pc and strict_aliasing_off.pc, whose tape
// reports differ in whether rowptr[] and col[] are recorded.

void csr(double *x, double *e, int *rowptr, int *col, int n)
{
    parallel_for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int p = rowptr[i]; p < rowptr[i + 1]; p++) {
            double d = x[col[p]] - x[i];
            s += d * d * d;
        }
        e[i] = s;
    }
}

double h_of(double x)
{
    double a = fabs(x);
    return 1e-6 * (a > 1.0 ? a : 1.0);
}

void check(char *name, double analytic, double fd)
{
    printf("check %s %.17g %.17g\n", name, analytic, fd);
}

// sum w[i] e[i] with x[j] moved by delta.
double csr_loss(double *x, double *e, int *rowptr, int *col, double *w, int n, int j, double delta)
{
    double old = x[j];
    x[j] = old + delta;
    csr(x, e, rowptr, col, n);
    x[j] = old;
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += w[i] * e[i];
    return s;
}

// Checks the gradient of csr_loss at a few places against central
// differences, on a ring with one far neighbour per node.
void check_csr(int n)
{
    int *rowptr = (int *)malloc((n + 1) * sizeof(int));
    int *col = (int *)malloc(3 * n * sizeof(int));
    double *x = (double *)malloc(n * sizeof(double));
    double *dx = (double *)calloc(n, sizeof(double));
    double *e = (double *)malloc(n * sizeof(double));
    double *de = (double *)malloc(n * sizeof(double));
    double *w = (double *)malloc(n * sizeof(double));
    int nnz = 0;
    for (int i = 0; i < n; i++) {
        rowptr[i] = nnz;
        col[nnz++] = (i + n - 1) % n;
        col[nnz++] = (i + 1) % n;
        if (i % 3 == 0)
            col[nnz++] = (i * 37 + 11) % n;
        x[i] = 0.01 * ((i * 37) % 101) - 0.5;
        w[i] = 1.0 + 0.5 * (i % 4);
        de[i] = w[i];
    }
    rowptr[n] = nnz;
    __enzyme_autodiff(csr, x, dx, e, de, enzyme_const, rowptr, enzyme_const, col, n);
    int probes[4] = {0, 1, n / 2 + 3, n - 1};
    for (int q = 0; q < 4; q++) {
        int j = probes[q];
        double h = h_of(x[j]);
        check("csr", dx[j],
              (csr_loss(x, e, rowptr, col, w, n, j, h) - csr_loss(x, e, rowptr, col, w, n, j, -h)) /
                  (2.0 * h));
    }
    printf("csr: nnz = %d\n", nnz);
    free(rowptr);
    free(col);
    free(x);
    free(dx);
    free(e);
    free(de);
    free(w);
}
