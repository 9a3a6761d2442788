/* <unistd.h> as parc provides it. POSIX's `void sync(void)` is not here:
 * `sync` is a ParC keyword. */
#ifndef _PARC_UNISTD_H
#define _PARC_UNISTD_H

int getpid(void);

#endif
