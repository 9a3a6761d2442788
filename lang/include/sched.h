/* <sched.h> as parc provides it: the scheduling policy calls, Linux's
 * values. */
#ifndef _PARC_SCHED_H
#define _PARC_SCHED_H

#define SCHED_OTHER 0
#define SCHED_FIFO 1
#define SCHED_RR 2

struct sched_param {
    int sched_priority;
};

int sched_get_priority_max(int policy);
int sched_get_priority_min(int policy);
int sched_setscheduler(int pid, int policy, const struct sched_param *param);

#endif
