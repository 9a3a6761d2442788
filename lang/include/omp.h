/* <omp.h> as parc provides it. Under -fopenmp parc runs `#pragma omp
 * parallel for` loops and `#pragma omp parallel` regions on its workers,
 * and the OpenMP runtime functions it knows are built in, with these C
 * signatures:
 *
 *   int omp_get_thread_num(void);   the thread's number in the region or
 *                                   parallel loop the call is written in;
 *                                   0 in main outside them
 *   int omp_get_num_threads(void);  that team's size; 1 in main outside
 *   int omp_in_parallel(void);      whether that team has several threads
 *   int omp_get_max_threads(void);  the number of workers (PARC_NUM_THREADS)
 *   int omp_get_num_procs(void);    the same
 *   double omp_get_wtime(void);     seconds, monotonic (wtime())
 *   void omp_set_num_threads(int);  no effect (with a warning): the
 *                                   number of workers is PARC_NUM_THREADS
 *
 * In a function without an OpenMP construct around the call, other than
 * main, parc cannot tell which thread calls it: the first three are
 * errors there (pass the thread number as a parameter).
 *
 * Locks (the runtime's: spin, then yield, while another thread holds
 * one; in the interpreter, which runs one thread, setting a lock that is
 * set is a run-time error, as it would wait forever). A nestable lock
 * (omp_nest_lock_t) may be set again by the thread that holds it, and is
 * released by as many unsets (unsetting one the thread does not hold is
 * a run-time error). `#pragma omp critical(name)` is a lock per name, the
 * same way. */
#ifndef _PARC_OMP_H
#define _PARC_OMP_H

typedef struct __parc_omp_lock {
    long __word;
} omp_lock_t;

void omp_init_lock(omp_lock_t *lock);
void omp_destroy_lock(omp_lock_t *lock);
void omp_set_lock(omp_lock_t *lock);
void omp_unset_lock(omp_lock_t *lock);
int omp_test_lock(omp_lock_t *lock);

typedef struct __parc_omp_nest_lock {
    long __owner;
    long __count;
} omp_nest_lock_t;

void omp_init_nest_lock(omp_nest_lock_t *lock);
void omp_destroy_nest_lock(omp_nest_lock_t *lock);
void omp_set_nest_lock(omp_nest_lock_t *lock);
void omp_unset_nest_lock(omp_nest_lock_t *lock);
int omp_test_nest_lock(omp_nest_lock_t *lock);

#endif
