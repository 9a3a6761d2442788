/* <stdio.h> as parc provides it. */
#ifndef _PARC_STDIO_H
#define _PARC_STDIO_H

int printf(const char *format, ...);

#endif
