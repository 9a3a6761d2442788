/* <time.h> as parc provides it: nothing yet beyond the header (ParC's own
 * clock is `double wtime(void)`, with no header). */
#ifndef _PARC_TIME_H
#define _PARC_TIME_H

#endif
