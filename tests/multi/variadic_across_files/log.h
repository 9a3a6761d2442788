/* Variadic functions of log.c, called from main.c: parc passes their
   arguments in its own convention in every file of the program. */
#ifndef LOG_H
#define LOG_H
int log_msg(const char *fmt, ...);
double mean_of(int n, ...);
extern int logged;
#endif
