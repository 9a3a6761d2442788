/* <unistd.h> as parc provides it. POSIX's `void sync(void)` is not here:
 * `sync` is a ParC keyword. */
#ifndef _PARC_UNISTD_H
#define _PARC_UNISTD_H

int getpid(void);

/* The command line's options, as glibc parses them (GNU `getopt`: the
 * options are moved before the other arguments unless `optstring` starts
 * with `+` or POSIXLY_CORRECT is set). Native code calls glibc's; the
 * interpreter runs the same algorithm. */
int getopt(int argc, char *const argv[], const char *optstring);
extern char *optarg;
extern int optind, opterr, optopt;

#endif
