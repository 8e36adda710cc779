// Reductions: shared-memory tree per block, wave shuffles, then atomics across blocks.
#include "common.h"

__global__ void block_sum(const int *in, int n, unsigned long long *total, int *maxv) {
  __shared__ int part[256];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x * 2 + t;
  int v = 0, m = -2147483647 - 1;
  if (i < n) { v = in[i]; m = in[i]; }
  if (i + (int)blockDim.x < n) { v += in[i + blockDim.x]; m = max(m, in[i + blockDim.x]); }
  part[t] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(total, (unsigned long long)(long long)part[0]);
  atomicMax(maxv, m);
}

__global__ void wave_sum(const float *in, int n, float *total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_down(v, off);
  if (__lane_id() == 0) atomicAdd(total, v);
}

__global__ void histogram(const unsigned *in, int n, unsigned *bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[in[i] % 64], 1u);
}

int main() {
  const int n = 1 << 20;
  unsigned seed = 3;
  std::vector<int> a(n);
  for (auto &v : a) v = (int)(lcg(seed) % 2001) - 1000;
  int *da, *dmax;
  unsigned long long *dtotal;
  CHECK(hipMalloc(&da, n * 4));
  CHECK(hipMalloc(&dtotal, 8));
  CHECK(hipMalloc(&dmax, 4));
  CHECK(hipMemcpy(da, a.data(), n * 4, hipMemcpyHostToDevice));
  CHECK(hipMemset(dtotal, 0, 8));
  int lowest = -2147483647 - 1;
  CHECK(hipMemcpy(dmax, &lowest, 4, hipMemcpyHostToDevice));
  double t0 = now_ms();
  block_sum<<<(n + 511) / 512, 256>>>(da, n, dtotal, dmax);
  CHECK(hipDeviceSynchronize());
  double dev_ms = now_ms() - t0;
  long long total = 0;
  int mx = 0;
  CHECK(hipMemcpy(&total, dtotal, 8, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(&mx, dmax, 4, hipMemcpyDeviceToHost));
  t0 = now_ms();
  long long want = 0;
  int want_max = lowest;
  for (int v : a) { want += v; want_max = std::max(want_max, v); }
  timing("sum+max of 2^20 ints", dev_ms, now_ms() - t0);
  std::printf("  sum %lld (host %lld), max %d (host %d)\n", total, want, mx, want_max);
  expect(total == want && want != 0, "shared-memory tree sum with a 64-bit atomicAdd");
  expect(mx == want_max, "atomicMax");

  // Float wave-shuffle sum: atomics make the order vary, so compare with a tolerance.
  std::vector<float> f(n);
  for (auto &v : f) v = frand(seed);
  float *df, *dft;
  CHECK(hipMalloc(&df, n * 4));
  CHECK(hipMalloc(&dft, 4));
  CHECK(hipMemcpy(df, f.data(), n * 4, hipMemcpyHostToDevice));
  CHECK(hipMemset(dft, 0, 4));
  wave_sum<<<n / 256, 256>>>(df, n, dft);
  float fsum = 0;
  CHECK(hipMemcpy(&fsum, dft, 4, hipMemcpyDeviceToHost));
  double fwant = 0;
  for (float v : f) fwant += v;
  std::printf("  float sum %.6f (host %.6f)\n", fsum, fwant);
  expect(std::fabs(fsum - fwant) < 1e-2 && fwant != 0.0, "wave shuffle sum with a float atomicAdd");

  // Histogram: many colliding 32-bit atomics.
  std::vector<unsigned> u(n), bins(64), want_bins(64, 0);
  for (auto &v : u) v = lcg(seed);
  unsigned *du, *dbins;
  CHECK(hipMalloc(&du, n * 4));
  CHECK(hipMalloc(&dbins, 64 * 4));
  CHECK(hipMemcpy(du, u.data(), n * 4, hipMemcpyHostToDevice));
  CHECK(hipMemset(dbins, 0, 64 * 4));
  histogram<<<120, 256>>>(du, n, dbins);
  CHECK(hipMemcpy(bins.data(), dbins, 64 * 4, hipMemcpyDeviceToHost));
  for (unsigned v : u) want_bins[v % 64]++;
  expect(same(bins, want_bins), "histogram with atomicAdd");
  return finish();
}
