/* <stdio.h> as parc provides it. */
#ifndef _PARC_STDIO_H
#define _PARC_STDIO_H

/* A stream. The standard ones are the small addresses fd + 1, which no
 * object has (the same value in every file of a program); other streams
 * (fopen's) point to a FILE: the file descriptor, then the C library's
 * stream. */
typedef struct __parc_file {
    int fd;
    void *__stream;
} FILE;

#define stdin ((FILE *)1)
#define stdout ((FILE *)2)
#define stderr ((FILE *)3)

int printf(const char *format, ...);
int fprintf(FILE *stream, const char *format, ...);
int sprintf(char *str, const char *format, ...);
int snprintf(char *str, unsigned long size, const char *format, ...);

/* The `v` functions take a `va_list` (<stdarg.h>'s, a `char *` to the
 * variadic arguments of a function parc defines) instead of the
 * arguments; `vprintf` and `vsprintf` are `vfprintf` and `vsnprintf`. */
int vfprintf(FILE *stream, const char *format, char *ap);
int vsnprintf(char *str, unsigned long size, const char *format, char *ap);
static inline int vprintf(const char *format, char *ap) {
    return vfprintf(stdout, format, ap);
}
static inline int vsprintf(char *str, const char *format, char *ap) {
    return vsnprintf(str, (unsigned long)-1, format, ap);
}

#define EOF (-1)

/* The scanf family: the number of items stored, or EOF if the input
 * ended before any was (see docs/LANGUAGE.md for the conversions). */
int scanf(const char *format, ...);
int fscanf(FILE *stream, const char *format, ...);
int sscanf(const char *str, const char *format, ...);

int fflush(FILE *stream);

FILE *fopen(const char *path, const char *mode);
int fclose(FILE *stream);
unsigned long fread(void *ptr, unsigned long size, unsigned long n, FILE *stream);
unsigned long fwrite(const void *ptr, unsigned long size, unsigned long n, FILE *stream);
char *fgets(char *s, int n, FILE *stream);
int feof(FILE *stream);
int ferror(FILE *stream);

#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

int fseek(FILE *stream, long offset, int whence);
long ftell(FILE *stream);
void rewind(FILE *stream);
int fgetc(FILE *stream);
int ungetc(int c, FILE *stream);
int remove(const char *path);

/* The character and string writers, on fprintf (so they share its
 * streams and buffers); results as glibc's. */
static inline int fputs(const char *s, FILE *stream) {
    return fprintf(stream, "%s", s) < 0 ? EOF : 1;
}
static inline int puts(const char *s) {
    int n = printf("%s\n", s);
    return n < 0 ? EOF : n;
}
static inline int fputc(int c, FILE *stream) {
    return fprintf(stream, "%c", c) < 0 ? EOF : (unsigned char)c;
}
static inline int putc(int c, FILE *stream) { return fputc(c, stream); }
static inline int putchar(int c) { return fputc(c, stdout); }
static inline int getc(FILE *stream) { return fgetc(stream); }
static inline int getchar(void) { return fgetc(stdin); }

#endif
