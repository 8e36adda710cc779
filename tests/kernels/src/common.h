// Minimal HIP device-side definitions for building kernels without ROCm headers
// (clang -x hip -nogpuinc). See /work/shared/notes/toolchain.md §2.1.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

// Workgroup barrier with workgroup-scope release/acquire fences (what HIP's __syncthreads does).
#define __syncthreads()                                                        \
  do {                                                                         \
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");                     \
    __builtin_amdgcn_s_barrier();                                              \
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");                     \
  } while (0)

// threadIdx / blockIdx / blockDim.
static __device__ inline unsigned tid_x() { return __builtin_amdgcn_workitem_id_x(); }
static __device__ inline unsigned tid_y() { return __builtin_amdgcn_workitem_id_y(); }
static __device__ inline unsigned tid_z() { return __builtin_amdgcn_workitem_id_z(); }
static __device__ inline unsigned bid_x() { return __builtin_amdgcn_workgroup_id_x(); }
static __device__ inline unsigned bid_y() { return __builtin_amdgcn_workgroup_id_y(); }
static __device__ inline unsigned bid_z() { return __builtin_amdgcn_workgroup_id_z(); }
static __device__ inline unsigned bdim_x() { return __builtin_amdgcn_workgroup_size_x(); }
static __device__ inline unsigned bdim_y() { return __builtin_amdgcn_workgroup_size_y(); }
static __device__ inline unsigned bdim_z() { return __builtin_amdgcn_workgroup_size_z(); }

// Global linear indices.
static __device__ inline unsigned gid_x() { return bid_x() * bdim_x() + tid_x(); }
static __device__ inline unsigned gid_y() { return bid_y() * bdim_y() + tid_y(); }
static __device__ inline unsigned gid_z() { return bid_z() * bdim_z() + tid_z(); }

// Lane id within the wave64.
static __device__ inline unsigned lane_id() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
