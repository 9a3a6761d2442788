/* <omp.h> as parc provides it. */
#ifndef _PARC_OMP_H
#define _PARC_OMP_H

#endif
