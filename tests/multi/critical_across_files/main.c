// flags: -fopenmp
/* `critical(acc)` is one update `total += 1.0` here and a block in
   twos.c: the sections of the name must exclude each other, so both take
   the lock (built alone, this file's section would be an atomic add,
   which a thread inside twos.c's section would not wait for: lost
   updates). `critical(count)` is an atomic add in every file. */
#include <stdio.h>
double total = 0.0;
long hits = 0;
void add_twos(int n);

int main(void) {
#pragma omp parallel for
    for (int i = 0; i < 100000; i++) {
#pragma omp critical(acc)
        total += 1.0;
#pragma omp critical(count)
        hits++;
    }
    add_twos(100000);
    printf("total %.1f hits %ld\n", total, hits);
    return 0;
}
