/*
 * parc.h -- the ParC prelude for C compilers (the "serial projection").
 *
 * ParC is C99 plus fork-join parallelism (spawn/sync/parallel_for), CUDA-style
 * kernels and Enzyme-style gradients.  Erasing `spawn`, `sync` and the word
 * `parallel_` from `parallel_for` gives a C99 program with the same meaning, so
 * every ParC program WITHOUT kernels builds with
 *
 *     gcc -O2 -fwrapv -include include/parc.h -x c prog.pc -lm
 *
 * and, with -fopenmp added, parallel_for loops run as OpenMP parallel loops.
 * This is how parc's outputs and speed are compared with gcc.
 *
 * Why each mapping exists:
 *   _POSIX_C_SOURCE   clock_gettime/CLOCK_MONOTONIC (for wtime) are POSIX, not
 *                     ISO C; request them before any system header is read.
 *   _DEFAULT_SOURCE   what gcc's default mode declares besides POSIX (M_PI and
 *                     the other M_ constants of parc's math.h, strcasecmp):
 *                     defining _POSIX_C_SOURCE alone would hide them.
 *   the #includes     ParC's built-ins (printf, malloc/calloc/free, memcpy/memset,
 *                     atoi/atol/atof, strcmp, exit, abs/labs, sqrt...ceil and the
 *                     f versions, bool/true/false, NULL) are C library names.
 *                     <unistd.h> is not included (its POSIX names, `read`,
 *                     `link`, `pause`..., would clash with a program's own);
 *                     a program may include it (see `sync`).
 *   spawn             `x = spawn f(a);` / `spawn f(a);` -> a plain call: the
 *                     serial projection runs the child before the continuation.
 *   sync              `sync;` -> a read of a volatile dummy, an empty statement
 *                     that no -Wall warning names (all children already
 *                     finished, since they ran serially).  Not `;`: <unistd.h>,
 *                     read after this prelude, declares `void sync(void)`, which
 *                     must still parse.  So `sync` names `parc_sync_`, which is
 *                     also a function-like macro: followed by `(` (the POSIX
 *                     declaration, or a call `sync()`) it becomes
 *                     `parc_posix_sync_(...)`, a function whose assembler name is
 *                     the C library's `sync`.  (Expanding to `sync(...)` would not
 *                     do: the preprocessor would expand that `sync` again.)
 *   parallel_for      -> `for`; under -fopenmp (_OPENMP defined) it becomes
 *                     `#pragma omp parallel for` + `for`.  ParC's loop form
 *                     (int i = lo; i < / <= hi; i++ / i += step) is OpenMP's
 *                     canonical loop form.  Without OpenMP the pragma is left out
 *                     so that -Wall stays quiet (-Wunknown-pragmas).
 *   parallel_reduce   `parallel_reduce(op: vars) (header) body` is a parallel_for
 *                     with OpenMP's reduction clause: `for` with, under -fopenmp,
 *                     `#pragma omp parallel for reduction(op: vars)`.
 *   wtime()           ParC built-in: monotonic seconds, as a double.
 *   enzyme_*          Enzyme's activity markers are global ints in Enzyme's C
 *                     interface; declaring them (and __enzyme_autodiff, variadic)
 *                     lets files that use gradients compile.  gcc has no Enzyme
 *                     pass, so under gcc they are also defined (weakly): such a
 *                     program links, and a gradient it asks for at run time
 *                     stops it with a message and status 1 (so a proxy app with
 *                     a gradient mode still builds as gcc's primal baseline).
 *                     clang with the Enzyme plugin sees only the declarations.
 *   __global__ etc.   CUDA qualifiers become nothing, so __device__ helpers are
 *                     ordinary C functions.  Kernel launches (`<<< >>>`),
 *                     threadIdx & co. and __syncthreads are not emulated: programs
 *                     with kernels cannot be built by gcc.
 *   cudaMalloc etc.   host-memory stand-ins (ParC runs kernels on the CPU when
 *                     no GPU is present, and these calls then act on host
 *                     memory), so kernel-free code that stages data compiles.
 */
#ifndef PARC_PRELUDE_H
#define PARC_PRELUDE_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* ---- fork-join parallelism ------------------------------------------------ */
#define spawn
extern void parc_posix_sync_(void) __asm__("sync");
static volatile int parc_sync_;
#define parc_sync_(...) parc_posix_sync_(__VA_ARGS__)
#define sync parc_sync_
#define PARC_PRAGMA_(text) _Pragma(#text)
#ifdef _OPENMP
#define parallel_for _Pragma("omp parallel for") for
#define parallel_reduce(...) PARC_PRAGMA_(omp parallel for reduction(__VA_ARGS__)) for
#else
#define parallel_for for
#define parallel_reduce(...) for
#endif

/* ---- timing ---------------------------------------------------------------- */
static inline double wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- gradients (Enzyme's C interface; compiles, does not link) ------------- */
extern int enzyme_const;
extern int enzyme_dup;
extern int enzyme_dupnoneed;
extern int enzyme_out;
extern double __enzyme_autodiff(void *, ...);
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((weak)) int enzyme_const;
__attribute__((weak)) int enzyme_dup;
__attribute__((weak)) int enzyme_dupnoneed;
__attribute__((weak)) int enzyme_out;
__attribute__((weak)) double __enzyme_autodiff(void *f, ...)
{
    (void)f;
    fflush(stdout);
    fprintf(stderr, "__enzyme_autodiff: this build has no automatic differentiation "
                    "(build with parc, or clang with the Enzyme plugin)\n");
    exit(1);
}
#endif

/* ---- CUDA qualifiers and host-memory stand-ins ----------------------------- */
#define __global__
#define __device__
#define __host__
#define __shared__

#define cudaMemcpyHostToDevice   1
#define cudaMemcpyDeviceToHost   2
#define cudaMemcpyDeviceToDevice 3
#define cudaMalloc(pp, bytes)         (*(pp) = malloc(bytes), 0)
#define cudaMemcpy(dst, src, bytes, kind) ((void)(kind), memcpy((dst), (src), (bytes)), 0)
#define cudaFree(p)                   (free(p), 0)
#define cudaDeviceSynchronize()       0

#endif /* PARC_PRELUDE_H */
