/* <sys/time.h> as parc provides it: nothing yet beyond the header. */
#ifndef _PARC_SYS_TIME_H
#define _PARC_SYS_TIME_H

#endif
