/* <cuda_runtime.h>: the CUDA runtime calls ParC knows are built in
 * (`cudaMalloc`, `cudaMemcpy` with `cudaMemcpyHostToDevice`,
 * `cudaMemcpyDeviceToHost` and `cudaMemcpyDeviceToDevice`, `cudaFree`,
 * `cudaDeviceSynchronize`, `__syncthreads`, `atomicAdd`, `threadIdx` and
 * friends); this header declares the ones a C prototype can describe. */
#ifndef _PARC_CUDA_RUNTIME_H
#define _PARC_CUDA_RUNTIME_H

int cudaFree(void *p);
int cudaDeviceSynchronize(void);

#endif
