/* <stdio.h> as parc provides it. */
#ifndef _PARC_STDIO_H
#define _PARC_STDIO_H

/* A stream. The standard ones are the small addresses fd + 1, which no
 * object has (the same value in every file of a program); other streams
 * point to a FILE, whose first field is the file descriptor. */
typedef struct __parc_file {
    int fd;
} FILE;

#define stdin ((FILE *)1)
#define stdout ((FILE *)2)
#define stderr ((FILE *)3)

int printf(const char *format, ...);
int fprintf(FILE *stream, const char *format, ...);

#endif
