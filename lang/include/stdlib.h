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
static inline long long llabs(long long x) { return x < 0 ? -x : x; }

/* C99 7.20.6.2: quotient and remainder in one call, both rounded toward
 * zero as `/` and `%` are. */
typedef struct { int quot; int rem; } div_t;
typedef struct { long quot; long rem; } ldiv_t;
typedef struct { long long quot; long long rem; } lldiv_t;
static inline div_t div(int n, int d) { div_t r = { n / d, n % d }; return r; }
static inline ldiv_t ldiv(long n, long d) { ldiv_t r = { n / d, n % d }; return r; }
static inline lldiv_t lldiv(long long n, long long d) { lldiv_t r = { n / d, n % d }; return r; }
void qsort(void *base, unsigned long nmemb, unsigned long size,
           int (*compar)(const void *, const void *));
void *bsearch(const void *key, const void *base, unsigned long nmemb,
              unsigned long size, int (*compar)(const void *, const void *));
int rand(void);
void srand(unsigned int seed);

#endif
