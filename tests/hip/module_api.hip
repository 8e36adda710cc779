// The module API: load a code object (path in argv[1]), look up a kernel and a global, launch
// with kernelParams and with the extra argument buffer; hipFuncGetAttributes on a registered
// kernel.
#include "common.h"

#include <fstream>
#include <iterator>

__global__ void local_kernel(float *p) {
  __shared__ float tile[100];
  tile[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = tile[99 - threadIdx.x];
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::printf("FAIL usage: module_api CODE_OBJECT\n");
    return 1;
  }
  std::ifstream f(argv[1], std::ios::binary);
  std::vector<char> image((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  hipModule_t m;
  CHECK(hipModuleLoadData(&m, image.data()));
  hipFunction_t scale;
  CHECK(hipModuleGetFunction(&scale, m, "scale"));
  expect(hipModuleGetFunction(&scale, m, "nope") == hipErrorNotFound, "unknown kernel name");
  (void)hipGetLastError();
  CHECK(hipModuleGetFunction(&scale, m, "scale"));
  hipDeviceptr_t bias;
  size_t bias_size;
  CHECK(hipModuleGetGlobal(&bias, &bias_size, m, "bias"));
  float b = 0;
  CHECK(hipMemcpy(&b, bias, 4, hipMemcpyDeviceToHost));
  expect(bias_size == 4 && b == 0.5f, "hipModuleGetGlobal finds the initialised global");
  float nb = -2.0f;
  CHECK(hipMemcpy(bias, &nb, 4, hipMemcpyHostToDevice));

  const int n = 1000;
  std::vector<float> v(n), want(n);
  unsigned seed = 13;
  for (auto &x : v) x = frand(seed);
  float *dv;
  CHECK(hipMalloc(&dv, n * 4));
  CHECK(hipMemcpy(dv, v.data(), n * 4, hipMemcpyHostToDevice));
  int nn = n;
  float s = 3.0f;
  void *params[] = {&dv, &nn, &s};
  CHECK(hipModuleLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
  // Again through the extra buffer: pointer, int, float at offsets 0, 8, 12.
  struct {
    float *v;
    int n;
    float s;
  } packed = {dv, n, 0.5f};
  size_t size = sizeof packed;
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   HIP_LAUNCH_PARAM_END};
  CHECK(hipModuleLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
  std::vector<float> got(n);
  CHECK(hipMemcpy(got.data(), dv, n * 4, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) want[i] = (v[i] * 3.0f + -2.0f) * 0.5f + -2.0f;
  expect(same(got, want, 1e-6), "hipModuleLaunchKernel with kernelParams and with extra");
  CHECK(hipModuleUnload(m));

  hipFuncAttributes attr;
  CHECK(hipFuncGetAttributes(&attr, reinterpret_cast<const void *>(&local_kernel)));
  std::printf("  local_kernel: shared %zu bytes, max threads %d, regs %d\n", attr.sharedSizeBytes,
              attr.maxThreadsPerBlock, attr.numRegs);
  expect(attr.sharedSizeBytes == 400 && attr.maxThreadsPerBlock >= 256, "hipFuncGetAttributes");

  hipDeviceProp_t p;
  CHECK(hipGetDeviceProperties(&p, 0));
  int count = 0, ws = 0;
  CHECK(hipGetDeviceCount(&count));
  CHECK(hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, 0));
  std::printf("  device: %s, %s, warpSize %d, %d CUs, %zu bytes LDS per block\n", p.name, p.gcnArchName,
              p.warpSize, p.multiProcessorCount, p.sharedMemPerBlock);
  const char *want_arch = std::getenv("WAVEJIT_GPU") ? std::getenv("WAVEJIT_GPU") : "gfx942";
  bool wave64 = std::string(want_arch).rfind("gfx9", 0) == 0;
  expect(count == 1 && std::string(p.gcnArchName).rfind(want_arch, 0) == 0 && p.warpSize == (wave64 ? 64 : 32) &&
             ws == p.warpSize && p.sharedMemPerBlock == 65536,
         "device properties describe the emulated GPU");
  return finish();
}
