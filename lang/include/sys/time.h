/* <sys/time.h> as parc provides it. */
#ifndef _PARC_SYS_TIME_H
#define _PARC_SYS_TIME_H

typedef long time_t;
typedef long suseconds_t;

struct timeval {
    time_t tv_sec;
    suseconds_t tv_usec;
};

/* The time zone argument is obsolete: pass NULL. */
int gettimeofday(struct timeval *tv, void *tz);

#endif
