// Errors: a launch with a too-large block fails at once; an out-of-bounds kernel is reported
// (hipErrorIllegalAddress, sticky) by the next synchronising call, with the fault on stderr.
#include "common.h"

__global__ void touch(int *p, long stride) { p[threadIdx.x * stride] = (int)threadIdx.x; }

int main() {
  int *d;
  CHECK(hipMalloc(&d, 256 * sizeof(int)));
  expect(hipGetLastError() == hipSuccess, "no error at the start");

  touch<<<1, 2048>>>(d, 0);
  hipError_t e = hipGetLastError();
  std::printf("  too-large block: %s\n", hipGetErrorName(e));
  expect(e == hipErrorInvalidConfiguration, "a 2048-thread block is hipErrorInvalidConfiguration");
  expect(hipGetLastError() == hipSuccess, "hipGetLastError resets the error");
  touch<<<dim3(1), dim3(32, 32, 2)>>>(d, 0);
  expect(hipPeekAtLastError() == hipErrorInvalidConfiguration, "32x32x2 block is refused too");
  expect(hipPeekAtLastError() == hipErrorInvalidConfiguration, "hipPeekAtLastError keeps it");
  (void)hipGetLastError();

  expect(hipFree((void *)0x1234) == hipErrorInvalidDevicePointer, "freeing a non-allocation");
  expect(hipMemcpy(d, d, 4096, hipMemcpyDeviceToDevice) == hipErrorInvalidValue, "copy past an allocation");
  expect(hipSetDevice(3) == hipErrorInvalidDevice, "device 3 does not exist");
  std::printf("  error string: %s / %s\n", hipGetErrorName(hipErrorIllegalAddress),
              hipGetErrorString(hipErrorIllegalAddress));
  (void)hipGetLastError();

  // In bounds: fine.
  touch<<<1, 64>>>(d, 4);
  expect(hipDeviceSynchronize() == hipSuccess, "an in-bounds launch succeeds");
  // Lane 64 writes element 64*100, far outside the 256-int allocation.
  touch<<<1, 128>>>(d, 100);
  e = hipDeviceSynchronize();
  std::printf("  after the out-of-bounds kernel: %s\n", hipGetErrorName(e));
  expect(e == hipErrorIllegalAddress, "the fault is reported by hipDeviceSynchronize");
  int host = 0;
  expect(hipMemcpy(&host, d, 4, hipMemcpyDeviceToHost) == hipErrorIllegalAddress, "the error is sticky");
  expect(hipGetLastError() == hipErrorIllegalAddress, "hipGetLastError reports it");
  return finish();
}
