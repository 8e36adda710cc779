// __device__ and __constant__ variables: initial values, hipMemcpyToSymbol/FromSymbol,
// hipGetSymbolAddress, and kernels reading and updating them.
#include "common.h"

__constant__ float coeff[4];
__constant__ int offset_c = 17;
__device__ int counter = 1000;
__device__ float table[256];

__global__ void poly(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = ((coeff[3] * v + coeff[2]) * v + coeff[1]) * v + coeff[0] + table[i % 256] + offset_c;
    atomicAdd(&counter, 1);
  }
}

int main() {
  const int n = 5000;
  float c[4] = {0.5f, -1.0f, 0.25f, 2.0f};
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(coeff), c, sizeof c));
  std::vector<float> tab(256);
  unsigned seed = 5;
  for (auto &v : tab) v = frand(seed);
  // Half through the symbol API, half through its address.
  CHECK(hipMemcpyToSymbol(table, tab.data(), 128 * 4, 0, hipMemcpyHostToDevice));
  float *table_addr = nullptr;
  CHECK(hipGetSymbolAddress((void **)&table_addr, HIP_SYMBOL(table)));
  size_t table_size = 0;
  CHECK(hipGetSymbolSize(&table_size, HIP_SYMBOL(table)));
  expect(table_addr != nullptr && table_size == 256 * 4, "hipGetSymbolAddress/Size");
  CHECK(hipMemcpy(table_addr + 128, tab.data() + 128, 128 * 4, hipMemcpyHostToDevice));

  int initial = 0;
  CHECK(hipMemcpyFromSymbol(&initial, HIP_SYMBOL(counter), sizeof(int)));
  expect(initial == 1000, "a __device__ variable starts with its initialiser");

  std::vector<float> x(n), y(n), want(n);
  for (auto &v : x) v = frand(seed);
  float *dx, *dy;
  CHECK(hipMalloc(&dx, n * 4));
  CHECK(hipMalloc(&dy, n * 4));
  CHECK(hipMemcpy(dx, x.data(), n * 4, hipMemcpyHostToDevice));
  double t0 = now_ms();
  poly<<<(n + 127) / 128, 128>>>(n, dx, dy);
  CHECK(hipDeviceSynchronize());
  double dev_ms = now_ms() - t0;
  CHECK(hipMemcpy(y.data(), dy, n * 4, hipMemcpyDeviceToHost));
  t0 = now_ms();
  for (int i = 0; i < n; i++) {
    float v = x[i];
    want[i] = ((c[3] * v + c[2]) * v + c[1]) * v + c[0] + tab[i % 256] + 17;
  }
  timing("polynomial 5000", dev_ms, now_ms() - t0);
  expect(same(y, want, 1e-6), "kernel reads __constant__ and __device__ data");
  int count = 0;
  CHECK(hipMemcpyFromSymbol(&count, counter, sizeof(int), 0, hipMemcpyDeviceToHost));
  expect(count == 1000 + n, "kernel atomics on a __device__ variable");
  // A copy past the end of a symbol is an error, not a write.
  float big[300] = {1};
  expect(hipMemcpyToSymbol(coeff, big, sizeof big) == hipErrorInvalidValue, "oversized symbol copy is refused");
  (void)hipGetLastError();
  return finish();
}
