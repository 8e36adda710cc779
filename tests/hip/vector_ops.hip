// Element-wise kernels over device, managed and host-allocated memory; every copy direction.
#include "common.h"

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void axpby_d(int n, double a, const double *x, double b, double *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + b * y[i];
}

__global__ void mix(int n, const int *a, unsigned *out, short s, char c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (unsigned)(a[i] * s) ^ (unsigned)(c + i) ^ (unsigned)(a[i] >> 3);
}

__global__ void sqrt_kernel(int n, float *v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = sqrtf(fabsf(v[i])) + fminf(v[i], 0.25f);
}

int main() {
  const int n = 100003; // not a multiple of any block size
  unsigned seed = 7;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; i++) { x[i] = frand(seed); y[i] = frand(seed); }

  // saxpy through hipMalloc and both copy directions.
  float *dx, *dy;
  CHECK(hipMalloc(&dx, n * sizeof(float)));
  CHECK(hipMalloc(&dy, n * sizeof(float)));
  CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice));
  double t0 = now_ms();
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.5f, dx, dy);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  double dev_ms = now_ms() - t0;
  std::vector<float> got(n), want(n);
  CHECK(hipMemcpy(got.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
  t0 = now_ms();
  for (int i = 0; i < n; i++) want[i] = 2.5f * x[i] + y[i];
  timing("saxpy 100003", dev_ms, now_ms() - t0);
  expect(same(got, want, 1e-6), "saxpy matches the host");

  // Device-to-device copy, then memset.
  float *dz;
  CHECK(hipMalloc(&dz, n * sizeof(float)));
  CHECK(hipMemcpy(dz, dy, n * sizeof(float), hipMemcpyDeviceToDevice));
  std::vector<float> back(n);
  CHECK(hipMemcpy(back.data(), dz, n * sizeof(float), hipMemcpyDefault));
  expect(same(back, got), "device-to-device and default-direction copies");
  CHECK(hipMemset(dz, 0x3f, 16));
  unsigned char bytes[20];
  CHECK(hipMemcpy(bytes, dz, 20, hipMemcpyDeviceToHost));
  bool memset_ok = true;
  for (int i = 0; i < 16; i++) memset_ok &= bytes[i] == 0x3f;
  float after;
  std::memcpy(&after, bytes + 16, 4);
  expect(memset_ok && after == want[4], "hipMemset sets exactly its bytes");

  // Grid-stride double kernel on managed memory, touched directly by the host.
  double *mx, *my;
  CHECK(hipMallocManaged(&mx, n * sizeof(double)));
  CHECK(hipMallocManaged(&my, n * sizeof(double)));
  for (int i = 0; i < n; i++) { mx[i] = x[i] * 3.0; my[i] = y[i] - 0.5; }
  axpby_d<<<64, 128>>>(n, -1.25, mx, 0.75, my);
  CHECK(hipDeviceSynchronize());
  bool dbl_ok = true;
  for (int i = 0; i < n && dbl_ok; i++) {
    double w = -1.25 * (x[i] * 3.0) + 0.75 * (y[i] - 0.5);
    dbl_ok = my[i] == w;
    if (!dbl_ok) std::printf("  mismatch at %d: %.17g vs %.17g\n", i, my[i], w);
  }
  expect(dbl_ok, "grid-stride double kernel on managed memory");

  // Small by-value arguments (short, char) and integer ops on host-allocated memory.
  int *ha;
  unsigned *hout;
  CHECK(hipHostMalloc(&ha, n * sizeof(int)));
  CHECK(hipHostMalloc(&hout, n * sizeof(unsigned)));
  for (int i = 0; i < n; i++) { ha[i] = (int)lcg(seed) - (1 << 30); hout[i] = 0xdeadbeef; }
  mix<<<dim3((n + 127) / 128), dim3(128)>>>(n, ha, hout, (short)-3, (char)5);
  CHECK(hipDeviceSynchronize());
  bool mix_ok = true;
  for (int i = 0; i < n && mix_ok; i++)
    mix_ok = hout[i] == ((unsigned)(ha[i] * (short)-3) ^ (unsigned)((char)5 + i) ^ (unsigned)(ha[i] >> 3));
  expect(mix_ok, "integer kernel with short and char arguments on host memory");

  // Math functions.
  std::vector<float> v(n);
  for (int i = 0; i < n; i++) v[i] = frand(seed) * 100.0f;
  CHECK(hipMemcpy(dx, v.data(), n * sizeof(float), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(sqrt_kernel, dim3((n + 63) / 64), dim3(64), 0, 0, n, dx);
  CHECK(hipMemcpy(got.data(), dx, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) want[i] = std::sqrt(std::fabs(v[i])) + std::fmin(v[i], 0.25f);
  expect(same(got, want, 1e-6), "sqrtf/fabsf/fminf kernel (hipLaunchKernelGGL)");

  CHECK(hipFree(dx));
  CHECK(hipFree(dy));
  CHECK(hipFree(dz));
  CHECK(hipFree(mx));
  CHECK(hipFree(my));
  CHECK(hipHostFree(ha));
  CHECK(hipHostFree(hout));
  return finish();
}
