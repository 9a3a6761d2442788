/* <omp.h> as parc provides it. parc does not run OpenMP pragmas in
 * parallel yet (it warns and runs them serially), so these report the one
 * thread that runs the program, and time with parc's clock. */
#ifndef _PARC_OMP_H
#define _PARC_OMP_H

static double omp_get_wtime(void) { return wtime(); }
static int omp_get_thread_num(void) { return 0; }
static int omp_get_num_threads(void) { return 1; }
static int omp_get_max_threads(void) { return 1; }
static void omp_set_num_threads(int n) { (void)n; }

#endif
