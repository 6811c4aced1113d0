// SEXTANT_HD marks small functions that both host code and CUDA device code call (traits,
// index arithmetic). It expands to `__host__ __device__` only when nvcc compiles the file, so
// headers using it stay plain C++ and never need a CUDA header.
#pragma once

#if defined(__CUDACC__)
#define SEXTANT_HD __host__ __device__
#define SEXTANT_HD_INLINE __host__ __device__ __forceinline__
#else
#define SEXTANT_HD
#define SEXTANT_HD_INLINE inline
#endif
