/* <string.h> as parc provides it. */
#ifndef _PARC_STRING_H
#define _PARC_STRING_H

void *memcpy(void *dst, const void *src, unsigned long n);
void *memset(void *dst, int c, unsigned long n);
int strcmp(const char *a, const char *b);

#endif
