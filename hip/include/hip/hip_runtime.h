/* wavejit's HIP runtime header: the language subset (qualifiers, built-in index variables,
 * synchronisation, atomics, warp functions, device math, printf) for clang's HIP mode
 * without ROCm (`-nogpulib -nogpuinc`), plus the host API of hip_runtime_api.h.
 * Device code uses clang builtins only (`__builtin_amdgcn_*`, `__hip_atomic_*`, `__builtin_*`). */
#ifndef WAVEJIT_HIP_RUNTIME_H
#define WAVEJIT_HIP_RUNTIME_H

#include <hip/hip_runtime_api.h>

#ifndef __HIP__
#error "hip/hip_runtime.h needs clang's HIP mode (-x hip); use scripts/hipcc"
#endif

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((amdgpu_flat_work_group_size(1, __WJ_FIRST(__VA_ARGS__, 0))))
#define __WJ_FIRST(a, ...) a
#define HIP_SYMBOL(x) x
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...)                                  \
  do {                                                                                               \
    kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__);                                     \
  } while (0)

/* warpSize: the wave size of the target being compiled (64 on the host pass). An object
 * converting to int rather than a macro, so that hipDeviceProp_t::warpSize stays usable. */
struct __wj_warp_size_t {
  __host__ __device__ operator int() const {
#ifdef __HIP_DEVICE_COMPILE__
    return __builtin_amdgcn_wavefrontsize();
#else
    return 64;
#endif
  }
};
static constexpr __wj_warp_size_t warpSize{};

/* Built-in index variables: property reads of the work-item/group registers. */
#define __WJ_INDEX_VAR(type, name, fx, fy, fz)                                                       \
  struct type {                                                                                      \
    __declspec(property(get = __get_x)) unsigned int x;                                              \
    __declspec(property(get = __get_y)) unsigned int y;                                              \
    __declspec(property(get = __get_z)) unsigned int z;                                              \
    static __device__ __forceinline__ unsigned int __get_x() { return fx; }                         \
    static __device__ __forceinline__ unsigned int __get_y() { return fy; }                         \
    static __device__ __forceinline__ unsigned int __get_z() { return fz; }                         \
    __device__ operator dim3() const { return dim3(fx, fy, fz); }                                    \
  };                                                                                                 \
  extern const __device__ __attribute__((weak)) type name;

__WJ_INDEX_VAR(__wj_threadIdx_t, threadIdx, __builtin_amdgcn_workitem_id_x(),
               __builtin_amdgcn_workitem_id_y(), __builtin_amdgcn_workitem_id_z())
__WJ_INDEX_VAR(__wj_blockIdx_t, blockIdx, __builtin_amdgcn_workgroup_id_x(),
               __builtin_amdgcn_workgroup_id_y(), __builtin_amdgcn_workgroup_id_z())
__WJ_INDEX_VAR(__wj_blockDim_t, blockDim, __builtin_amdgcn_workgroup_size_x(),
               __builtin_amdgcn_workgroup_size_y(), __builtin_amdgcn_workgroup_size_z())
__WJ_INDEX_VAR(__wj_gridDim_t, gridDim,
               __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(),
               __builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y(),
               __builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z())
#undef __WJ_INDEX_VAR

/* Synchronisation. */
static __device__ __forceinline__ void __syncthreads(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
static __device__ __forceinline__ void __threadfence(void) { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
static __device__ __forceinline__ void __threadfence_block(void) {
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup");
}

/* Atomics (device scope, relaxed, returning the old value). */
#define __WJ_ATOMIC(name, builtin, T)                                                                \
  static __device__ __forceinline__ T name(T *p, T v) {                                              \
    return builtin(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                                \
  }
__WJ_ATOMIC(atomicAdd, __hip_atomic_fetch_add, int)
__WJ_ATOMIC(atomicAdd, __hip_atomic_fetch_add, unsigned int)
__WJ_ATOMIC(atomicAdd, __hip_atomic_fetch_add, unsigned long long)
__WJ_ATOMIC(atomicAdd, __hip_atomic_fetch_add, float)
__WJ_ATOMIC(atomicAdd, __hip_atomic_fetch_add, double)
__WJ_ATOMIC(atomicSub, __hip_atomic_fetch_sub, int)
__WJ_ATOMIC(atomicSub, __hip_atomic_fetch_sub, unsigned int)
__WJ_ATOMIC(atomicMax, __hip_atomic_fetch_max, int)
__WJ_ATOMIC(atomicMax, __hip_atomic_fetch_max, unsigned int)
__WJ_ATOMIC(atomicMin, __hip_atomic_fetch_min, int)
__WJ_ATOMIC(atomicMin, __hip_atomic_fetch_min, unsigned int)
__WJ_ATOMIC(atomicAnd, __hip_atomic_fetch_and, int)
__WJ_ATOMIC(atomicAnd, __hip_atomic_fetch_and, unsigned int)
__WJ_ATOMIC(atomicOr, __hip_atomic_fetch_or, int)
__WJ_ATOMIC(atomicOr, __hip_atomic_fetch_or, unsigned int)
__WJ_ATOMIC(atomicXor, __hip_atomic_fetch_xor, int)
__WJ_ATOMIC(atomicXor, __hip_atomic_fetch_xor, unsigned int)
__WJ_ATOMIC(atomicExch, __hip_atomic_exchange, int)
__WJ_ATOMIC(atomicExch, __hip_atomic_exchange, unsigned int)
__WJ_ATOMIC(atomicExch, __hip_atomic_exchange, float)
#undef __WJ_ATOMIC
template <class T> static __device__ __forceinline__ T atomicCAS(T *p, T expected, T desired) {
  __hip_atomic_compare_exchange_strong(p, &expected, desired, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                       __HIP_MEMORY_SCOPE_AGENT);
  return expected;
}

/* Warp (wave) functions. */
static __device__ __forceinline__ unsigned int __lane_id(void) {
  unsigned int lo = __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE == 32
  return lo;
#else
  return __builtin_amdgcn_wavefrontsize() == 32 ? lo : __builtin_amdgcn_mbcnt_hi(~0u, lo);
#endif
}
static __device__ __forceinline__ int __shfl(int v, int src, int width = warpSize) {
  int self = (int)__lane_id();
  int idx = ((self & ~(width - 1)) + (src & (width - 1))) << 2;
  return __builtin_amdgcn_ds_bpermute(idx, v);
}
static __device__ __forceinline__ float __shfl(float v, int src, int width = warpSize) {
  return __builtin_bit_cast(float, __shfl(__builtin_bit_cast(int, v), src, width));
}
static __device__ __forceinline__ int __shfl_down(int v, unsigned int delta, int width = warpSize) {
  int self = (int)__lane_id();
  int target = self + (int)delta;
  if ((target & ~(width - 1)) != (self & ~(width - 1))) target = self;
  return __builtin_amdgcn_ds_bpermute(target << 2, v);
}
static __device__ __forceinline__ float __shfl_down(float v, unsigned int delta, int width = warpSize) {
  return __builtin_bit_cast(float, __shfl_down(__builtin_bit_cast(int, v), delta, width));
}
static __device__ __forceinline__ int __shfl_xor(int v, int mask, int width = warpSize) {
  int self = (int)__lane_id();
  int target = self ^ mask;
  if ((target & ~(width - 1)) != (self & ~(width - 1))) target = self;
  return __builtin_amdgcn_ds_bpermute(target << 2, v);
}
static __device__ __forceinline__ float __shfl_xor(float v, int mask, int width = warpSize) {
  return __builtin_bit_cast(float, __shfl_xor(__builtin_bit_cast(int, v), mask, width));
}
static __device__ __forceinline__ unsigned long long __ballot(int pred) {
#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE == 32
  return __builtin_amdgcn_ballot_w32(pred != 0);
#else
  return __builtin_amdgcn_ballot_w64(pred != 0);
#endif
}

/* Device math: overloads lowered by the compiler itself (no device library). */
#define __WJ_MATH1(name, builtin)                                                                    \
  static __device__ __forceinline__ float name##f(float x) { return builtin##f(x); }                 \
  static __device__ __forceinline__ double name(double x) { return builtin(x); }
#define __WJ_MATH2(name, builtin)                                                                    \
  static __device__ __forceinline__ float name##f(float x, float y) { return builtin##f(x, y); }     \
  static __device__ __forceinline__ double name(double x, double y) { return builtin(x, y); }
__WJ_MATH1(sqrt, __builtin_sqrt)
__WJ_MATH1(fabs, __builtin_fabs)
__WJ_MATH1(floor, __builtin_floor)
__WJ_MATH1(ceil, __builtin_ceil)
__WJ_MATH1(trunc, __builtin_trunc)
__WJ_MATH1(rint, __builtin_rint)
__WJ_MATH2(fmin, __builtin_fmin)
__WJ_MATH2(fmax, __builtin_fmax)
__WJ_MATH2(copysign, __builtin_copysign)
static __device__ __forceinline__ float expf(float x) { return __builtin_expf(x); }
static __device__ __forceinline__ float exp2f(float x) { return __builtin_exp2f(x); }
static __device__ __forceinline__ float logf(float x) { return __builtin_logf(x); }
static __device__ __forceinline__ float log2f(float x) { return __builtin_log2f(x); }
static __device__ __forceinline__ float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
static __device__ __forceinline__ double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
static __device__ __forceinline__ float rsqrtf(float x) { return __builtin_amdgcn_rsqf(x); }
static __device__ __forceinline__ float __expf(float x) { return __builtin_amdgcn_exp2f(x * 1.4426950408889634f); }
static __device__ __forceinline__ int abs(int x) { return x < 0 ? -x : x; }
static __device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
static __device__ __forceinline__ int max(int a, int b) { return a > b ? a : b; }
static __device__ __forceinline__ unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
static __device__ __forceinline__ unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
static __device__ __forceinline__ float min(float a, float b) { return __builtin_fminf(a, b); }
static __device__ __forceinline__ float max(float a, float b) { return __builtin_fmaxf(a, b); }
#undef __WJ_MATH1
#undef __WJ_MATH2

/* Clock: the shader clock (s_memtime / s_memrealtime). */
static __device__ __forceinline__ long long clock64(void) { return (long long)__builtin_readcyclecounter(); }

/* Device printf: clang's buffered printf (-mprintf-kind=buffered, set by scripts/hipcc) writes
 * records into the buffer that the hidden_printf_buffer kernel argument points to.
 * Buffer layout (wavejit's, read back by libamdhip64 after each launch):
 * u32 bytes used (after the 8-byte header), u32 capacity, then the records. */
extern "C" __device__ int printf(const char *format, ...);
#ifdef __HIP_DEVICE_COMPILE__
extern "C" __device__ __attribute__((noinline, weak, used)) __attribute__((address_space(1))) char *
__printf_alloc(unsigned int bytes) {
  /* Code object v5/v6: hidden_printf_buffer is at byte 72 of the implicit arguments. */
  const unsigned long long *implicit = (const unsigned long long *)__builtin_amdgcn_implicitarg_ptr();
  __attribute__((address_space(1))) unsigned int *buf =
      (__attribute__((address_space(1))) unsigned int *)implicit[9];
  if (!buf) return 0;
  unsigned int capacity = buf[1];
  unsigned int at = __hip_atomic_load(buf, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  do {
    if (bytes > capacity || at > capacity - bytes) return 0;
  } while (!__hip_atomic_compare_exchange_weak(buf, &at, at + bytes, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                               __HIP_MEMORY_SCOPE_AGENT));
  return (__attribute__((address_space(1))) char *)buf + 8 + at;
}
#endif

#endif
