/* <time.h> as parc provides it (ParC's own clock is `double wtime(void)`,
 * with no header). Clock ids are Linux's. */
#ifndef _PARC_TIME_H
#define _PARC_TIME_H

typedef long time_t;
typedef long clock_t;
typedef int clockid_t;

struct timespec {
    time_t tv_sec;
    long tv_nsec;
};

#define CLOCKS_PER_SEC 1000000L
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID 3

clock_t clock(void);
time_t time(time_t *t);
int clock_gettime(clockid_t clock, struct timespec *ts);

#endif
