/* <errno.h> as parc provides it: `errno` is each thread's, as in glibc,
 * and set by the C library functions parc calls (`strtol`, `strtod`,
 * `fopen`, `fseek`, ...); the interpreter sets it where they would. */
#ifndef _PARC_ERRNO_H
#define _PARC_ERRNO_H

int *__errno_location(void);
#define errno (*__errno_location())

#define EPERM 1
#define ENOENT 2
#define EIO 5
#define EBADF 9
#define ENOMEM 12
#define EACCES 13
#define EEXIST 17
#define EISDIR 21
#define EINVAL 22
#define ESPIPE 29
#define EDOM 33
#define ERANGE 34

#endif
