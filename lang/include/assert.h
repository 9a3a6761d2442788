/* <assert.h>. Deliberately not guarded: C lets a program include it again
 * after changing NDEBUG. A failed assert reports as glibc's does
 * (`PROG: FILE:LINE: FUNCTION: Assertion `EXPR' failed.` on stderr) and
 * aborts (status 134 from a shell). */
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
void __assert_fail(const char *assertion, const char *file, unsigned int line,
                   const char *function);
#define assert(e) ((e) ? (void)0 : __assert_fail(#e, __FILE__, __LINE__, __func__))
#endif

/* C11 7.2: the keyword spelled as a macro. */
#undef static_assert
#define static_assert _Static_assert
