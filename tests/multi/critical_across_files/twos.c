extern double total;

/* A section of the name `acc` that is not one update. */
void add_twos(int n) {
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
#pragma omp critical(acc)
        {
            double t = total;
            total = t + 2.0;
        }
    }
}
