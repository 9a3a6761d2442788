/* <stdlib.h> as parc provides it. */
#ifndef _PARC_STDLIB_H
#define _PARC_STDLIB_H

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 2147483647

void *malloc(unsigned long size);
void *calloc(unsigned long count, unsigned long size);
void free(void *p);
void *realloc(void *p, unsigned long size);
int atoi(const char *s);
long atol(const char *s);
double atof(const char *s);
long long atoll(const char *s);
long strtol(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
long long strtoll(const char *s, char **end, int base);
unsigned long long strtoull(const char *s, char **end, int base);
double strtod(const char *s, char **end);
float strtof(const char *s, char **end);
char *getenv(const char *name);
void exit(int status);
int atexit(void (*function)(void));
void abort(void);
int posix_memalign(void **memptr, unsigned long alignment, unsigned long size);
int abs(int x);
long labs(long x);
void qsort(void *base, unsigned long nmemb, unsigned long size,
           int (*compar)(const void *, const void *));
void *bsearch(const void *key, const void *base, unsigned long nmemb,
              unsigned long size, int (*compar)(const void *, const void *));
int rand(void);
void srand(unsigned int seed);

#endif
