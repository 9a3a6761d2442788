/* <omp.h> as parc provides it. parc runs `#pragma omp parallel for` loops
 * (under -fopenmp) on its workers, and the OpenMP runtime functions it
 * knows are built in, with these C signatures:
 *
 *   int omp_get_thread_num(void);   the worker in a parallel loop, else 0
 *   int omp_get_num_threads(void);  the number of workers in a parallel
 *                                   loop, else 1
 *   int omp_get_max_threads(void);  the number of workers (PARC_NUM_THREADS)
 *   int omp_get_num_procs(void);    the same
 *   int omp_in_parallel(void);      1 in a parallel loop, else 0
 *   double omp_get_wtime(void);     seconds, monotonic (wtime())
 *   void omp_set_num_threads(int);  no effect (with a warning): the
 *                                   number of workers is PARC_NUM_THREADS
 *
 * "In a parallel loop" means in the body of one in the same function. */
#ifndef _PARC_OMP_H
#define _PARC_OMP_H

#endif
