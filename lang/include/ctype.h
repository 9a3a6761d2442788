/* <ctype.h> as parc provides it: the "C" locale's classes of the values
 * of `unsigned char` and EOF, defined here (so they inline, and work in
 * kernels too). A class test returns glibc's nonzero value for its class
 * (isdigit('7') is 2048, as in a gcc-built program), else 0; other
 * arguments are undefined in C and classify as nothing here. */
#ifndef _PARC_CTYPE_H
#define _PARC_CTYPE_H

static inline int isupper(int c) { return (unsigned)c - 'A' < 26 ? 256 : 0; }
static inline int islower(int c) { return (unsigned)c - 'a' < 26 ? 512 : 0; }
static inline int isalpha(int c) { return ((unsigned)c | 32) - 'a' < 26 ? 1024 : 0; }
static inline int isdigit(int c) { return (unsigned)c - '0' < 10 ? 2048 : 0; }
static inline int isxdigit(int c)
{
    return (unsigned)c - '0' < 10 || ((unsigned)c | 32) - 'a' < 6 ? 4096 : 0;
}
/* ' ' and \t \n \v \f \r */
static inline int isspace(int c) { return c == ' ' || (unsigned)c - '\t' < 5 ? 8192 : 0; }
/* ' ' to '~' */
static inline int isprint(int c) { return (unsigned)c - ' ' < 95 ? 16384 : 0; }
/* '!' to '~' */
static inline int isgraph(int c) { return (unsigned)c - '!' < 94 ? 32768 : 0; }
static inline int isblank(int c) { return c == ' ' || c == '\t' ? 1 : 0; }
static inline int iscntrl(int c) { return (unsigned)c < 32 || c == 127 ? 2 : 0; }
static inline int ispunct(int c) { return isgraph(c) && !isalpha(c) && !isdigit(c) ? 4 : 0; }
static inline int isalnum(int c) { return isalpha(c) || isdigit(c) ? 8 : 0; }
static inline int tolower(int c) { return isupper(c) ? c + ('a' - 'A') : c; }
static inline int toupper(int c) { return islower(c) ? c - ('a' - 'A') : c; }

#endif
