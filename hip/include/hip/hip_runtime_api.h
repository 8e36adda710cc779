/* wavejit's HIP runtime API header: the host-side subset of the HIP API that
 * libamdhip64.so (the wavejit-hip crate) implements. Types, names and enum values follow
 * the published HIP interface; the implementation runs kernels on the CPU through wavejit. */
#ifndef WAVEJIT_HIP_RUNTIME_API_H
#define WAVEJIT_HIP_RUNTIME_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define WJ_EXTERN_C extern "C"
#define WJ_DEFAULT(v) = v
#else
#define WJ_EXTERN_C
#define WJ_DEFAULT(v)
#endif

#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 0
#define HIP_VERSION_PATCH 0
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)
#define __HIP_PLATFORM_AMD__ 1
#define __HIP_PLATFORM_HCC__ 1

typedef enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorMemoryAllocation = 2,
  hipErrorNotInitialized = 3,
  hipErrorDeinitialized = 4,
  hipErrorInvalidConfiguration = 9,
  hipErrorInvalidSymbol = 13,
  hipErrorInvalidDevicePointer = 17,
  hipErrorInvalidMemcpyDirection = 21,
  hipErrorMissingConfiguration = 52,
  hipErrorPriorLaunchFailure = 53,
  hipErrorInvalidDeviceFunction = 98,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorInvalidContext = 201,
  hipErrorNoBinaryForGpu = 209,
  hipErrorInvalidKernelFile = 218,
  hipErrorFileNotFound = 301,
  hipErrorInvalidHandle = 400,
  hipErrorInvalidResourceHandle = 400,
  hipErrorNotFound = 500,
  hipErrorNotReady = 600,
  hipErrorIllegalAddress = 700,
  hipErrorLaunchOutOfResources = 701,
  hipErrorLaunchFailure = 719,
  hipErrorNotSupported = 801,
  hipErrorUnknown = 999
} hipError_t;

typedef enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4
} hipMemcpyKind;

typedef enum hipFuncCache_t {
  hipFuncCachePreferNone = 0,
  hipFuncCachePreferShared = 1,
  hipFuncCachePreferL1 = 2,
  hipFuncCachePreferEqual = 3
} hipFuncCache_t;

typedef enum hipDeviceAttribute_t {
  hipDeviceAttributeMaxThreadsPerBlock = 56,
  hipDeviceAttributeWarpSize = 87,
  hipDeviceAttributeMultiprocessorCount = 63,
  hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
  hipDeviceAttributeComputeCapabilityMajor = 23,
  hipDeviceAttributeComputeCapabilityMinor = 61,
  hipDeviceAttributeClockRate = 5,
  hipDeviceAttributeMaxBlockDimX = 26,
  hipDeviceAttributeMaxBlockDimY = 27,
  hipDeviceAttributeMaxBlockDimZ = 28,
  hipDeviceAttributeMaxGridDimX = 29,
  hipDeviceAttributeMaxGridDimY = 30,
  hipDeviceAttributeMaxGridDimZ = 31
} hipDeviceAttribute_t;

#define hipHostMallocDefault 0x0
#define hipHostMallocPortable 0x1
#define hipHostMallocMapped 0x2
#define hipHostMallocWriteCombined 0x4
#define hipMemAttachGlobal 0x01
#define hipMemAttachHost 0x02
#define hipStreamDefault 0x00
#define hipStreamNonBlocking 0x01
#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2

typedef struct dim3 {
  uint32_t x;
  uint32_t y;
  uint32_t z;
#ifdef __cplusplus
  constexpr __attribute__((host)) __attribute__((device)) dim3(uint32_t _x = 1, uint32_t _y = 1, uint32_t _z = 1)
      : x(_x), y(_y), z(_z) {}
#endif
} dim3;

typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef void *hipDeviceptr_t;
typedef int hipDevice_t;

/* Device properties (wavejit's layout: programs built with these headers see these fields;
 * hipGetDeviceProperties fills it). */
typedef struct hipDeviceProp_t {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  int memoryClockRate;
  int memoryBusWidth;
  size_t totalConstMem;
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  int computeMode;
  int clockInstructionRate;
  int concurrentKernels;
  int pciDomainID;
  int pciBusID;
  int pciDeviceID;
  size_t maxSharedMemoryPerMultiProcessor;
  int isMultiGpuBoard;
  int canMapHostMemory;
  int gcnArch;
  char gcnArchName[256];
  int integrated;
  int cooperativeLaunch;
  int managedMemory;
  int concurrentManagedAccess;
  int pageableMemoryAccess;
  int unifiedAddressing;
  int ECCEnabled;
  int asicRevision;
} hipDeviceProp_t;

/* What hipFuncGetAttributes reports. */
typedef struct hipFuncAttributes {
  int binaryVersion;
  int cacheModeCA;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxDynamicSharedSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int preferredShmemCarveout;
  int ptxVersion;
  size_t sharedSizeBytes;
} hipFuncAttributes;

typedef struct hipPointerAttribute_t {
  int type;
  int device;
  void *devicePointer;
  void *hostPointer;
  int isManaged;
  unsigned allocationFlags;
} hipPointerAttribute_t;

#define HIP_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define HIP_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)
#define HIP_LAUNCH_PARAM_END ((void *)0x03)

WJ_EXTERN_C const char *hipGetErrorString(hipError_t error);
WJ_EXTERN_C const char *hipGetErrorName(hipError_t error);
WJ_EXTERN_C hipError_t hipGetLastError(void);
WJ_EXTERN_C hipError_t hipPeekAtLastError(void);

WJ_EXTERN_C hipError_t hipInit(unsigned int flags);
WJ_EXTERN_C hipError_t hipDriverGetVersion(int *version);
WJ_EXTERN_C hipError_t hipRuntimeGetVersion(int *version);
WJ_EXTERN_C hipError_t hipGetDeviceCount(int *count);
WJ_EXTERN_C hipError_t hipGetDevice(int *device);
WJ_EXTERN_C hipError_t hipSetDevice(int device);
WJ_EXTERN_C hipError_t hipDeviceGet(hipDevice_t *device, int ordinal);
WJ_EXTERN_C hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int device);
WJ_EXTERN_C hipError_t hipDeviceGetAttribute(int *value, hipDeviceAttribute_t attr, int device);
WJ_EXTERN_C hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device);
WJ_EXTERN_C hipError_t hipDeviceSynchronize(void);
WJ_EXTERN_C hipError_t hipDeviceReset(void);
WJ_EXTERN_C hipError_t hipMemGetInfo(size_t *free_bytes, size_t *total_bytes);

WJ_EXTERN_C hipError_t hipMalloc(void **ptr, size_t size);
WJ_EXTERN_C hipError_t hipMallocManaged(void **ptr, size_t size, unsigned int flags WJ_DEFAULT(hipMemAttachGlobal));
WJ_EXTERN_C hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags WJ_DEFAULT(hipHostMallocDefault));
WJ_EXTERN_C hipError_t hipMallocHost(void **ptr, size_t size);
WJ_EXTERN_C hipError_t hipFree(void *ptr);
WJ_EXTERN_C hipError_t hipHostFree(void *ptr);
WJ_EXTERN_C hipError_t hipFreeHost(void *ptr);
WJ_EXTERN_C hipError_t hipMemcpy(void *dst, const void *src, size_t bytes, hipMemcpyKind kind);
WJ_EXTERN_C hipError_t hipMemcpyAsync(void *dst, const void *src, size_t bytes, hipMemcpyKind kind,
                                      hipStream_t stream WJ_DEFAULT(0));
WJ_EXTERN_C hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t bytes);
WJ_EXTERN_C hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t bytes);
WJ_EXTERN_C hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes);
WJ_EXTERN_C hipError_t hipMemset(void *dst, int value, size_t bytes);
WJ_EXTERN_C hipError_t hipMemsetAsync(void *dst, int value, size_t bytes, hipStream_t stream WJ_DEFAULT(0));
WJ_EXTERN_C hipError_t hipMemcpyToSymbol(const void *symbol, const void *src, size_t bytes,
                                         size_t offset WJ_DEFAULT(0),
                                         hipMemcpyKind kind WJ_DEFAULT(hipMemcpyHostToDevice));
WJ_EXTERN_C hipError_t hipMemcpyFromSymbol(void *dst, const void *symbol, size_t bytes,
                                           size_t offset WJ_DEFAULT(0),
                                           hipMemcpyKind kind WJ_DEFAULT(hipMemcpyDeviceToHost));
WJ_EXTERN_C hipError_t hipGetSymbolAddress(void **dev_ptr, const void *symbol);
WJ_EXTERN_C hipError_t hipGetSymbolSize(size_t *size, const void *symbol);
WJ_EXTERN_C hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attr, const void *ptr);

WJ_EXTERN_C hipError_t hipStreamCreate(hipStream_t *stream);
WJ_EXTERN_C hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags);
WJ_EXTERN_C hipError_t hipStreamDestroy(hipStream_t stream);
WJ_EXTERN_C hipError_t hipStreamSynchronize(hipStream_t stream);
WJ_EXTERN_C hipError_t hipStreamQuery(hipStream_t stream);
WJ_EXTERN_C hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags);
WJ_EXTERN_C hipError_t hipEventCreate(hipEvent_t *event);
WJ_EXTERN_C hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags);
WJ_EXTERN_C hipError_t hipEventDestroy(hipEvent_t event);
WJ_EXTERN_C hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream WJ_DEFAULT(0));
WJ_EXTERN_C hipError_t hipEventSynchronize(hipEvent_t event);
WJ_EXTERN_C hipError_t hipEventQuery(hipEvent_t event);
WJ_EXTERN_C hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop);

WJ_EXTERN_C hipError_t hipLaunchKernel(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                                       void **args, size_t sharedMemBytes WJ_DEFAULT(0),
                                       hipStream_t stream WJ_DEFAULT(0));
WJ_EXTERN_C hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem WJ_DEFAULT(0),
                                                  hipStream_t stream WJ_DEFAULT(0));
WJ_EXTERN_C hipError_t __hipPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                                 hipStream_t *stream);
WJ_EXTERN_C hipError_t hipFuncGetAttributes(hipFuncAttributes *attr, const void *func);
WJ_EXTERN_C hipError_t hipFuncSetCacheConfig(const void *func, hipFuncCache_t config);

WJ_EXTERN_C hipError_t hipModuleLoadData(hipModule_t *module, const void *image);
WJ_EXTERN_C hipError_t hipModuleLoad(hipModule_t *module, const char *fname);
WJ_EXTERN_C hipError_t hipModuleUnload(hipModule_t module);
WJ_EXTERN_C hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module, const char *kname);
WJ_EXTERN_C hipError_t hipModuleGetGlobal(hipDeviceptr_t *dptr, size_t *bytes, hipModule_t module,
                                          const char *name);
WJ_EXTERN_C hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                             unsigned int gridDimZ, unsigned int blockDimX,
                                             unsigned int blockDimY, unsigned int blockDimZ,
                                             unsigned int sharedMemBytes, hipStream_t stream,
                                             void **kernelParams, void **extra);

#ifdef __cplusplus
/* Typed conveniences of the C++ API. */
template <class T> static inline hipError_t hipMalloc(T **ptr, size_t size) {
  return hipMalloc((void **)ptr, size);
}
template <class T> static inline hipError_t hipMallocManaged(T **ptr, size_t size,
                                                               unsigned int flags = hipMemAttachGlobal) {
  return hipMallocManaged((void **)ptr, size, flags);
}
template <class T> static inline hipError_t hipHostMalloc(T **ptr, size_t size,
                                                            unsigned int flags = hipHostMallocDefault) {
  return hipHostMalloc((void **)ptr, size, flags);
}
template <class T> static inline hipError_t hipMemcpyToSymbol(const T &symbol, const void *src, size_t bytes,
                                                                size_t offset = 0,
                                                                hipMemcpyKind kind = hipMemcpyHostToDevice) {
  return hipMemcpyToSymbol((const void *)&symbol, src, bytes, offset, kind);
}
template <class T> static inline hipError_t hipMemcpyFromSymbol(void *dst, const T &symbol, size_t bytes,
                                                                  size_t offset = 0,
                                                                  hipMemcpyKind kind = hipMemcpyDeviceToHost) {
  return hipMemcpyFromSymbol(dst, (const void *)&symbol, bytes, offset, kind);
}
template <class T> static inline hipError_t hipGetSymbolAddress(void **dev_ptr, const T &symbol) {
  return hipGetSymbolAddress(dev_ptr, (const void *)&symbol);
}
template <class F> static inline hipError_t hipFuncGetAttributes(hipFuncAttributes *attr, F *func) {
  return hipFuncGetAttributes(attr, (const void *)func);
}
#endif

#endif
