// Per-launch overhead through the HIP API: many launches of an empty kernel (a benchmark the
// test driver runs once and reports; it checks only that the launches succeed).
#include "common.h"

__global__ void empty() {}
__global__ void tiny(int *p) { p[threadIdx.x] += 1; }

int main(int argc, char **argv) {
  int launches = argc > 1 ? std::atoi(argv[1]) : 2000;
  empty<<<1, 64>>>(); // translation happens once, outside the timing
  CHECK(hipDeviceSynchronize());
  double t0 = now_ms();
  for (int i = 0; i < launches; i++) empty<<<1, 64>>>();
  CHECK(hipDeviceSynchronize());
  double per = (now_ms() - t0) * 1000.0 / launches;
  std::printf("TIME empty kernel <<<1,64>>>: %.2f us per launch (%d launches)\n", per, launches);
  int *d;
  CHECK(hipMalloc(&d, 64 * 4));
  CHECK(hipMemset(d, 0, 64 * 4));
  t0 = now_ms();
  for (int i = 0; i < launches; i++) tiny<<<1, 64>>>(d);
  CHECK(hipDeviceSynchronize());
  per = (now_ms() - t0) * 1000.0 / launches;
  std::printf("TIME one-wave increment kernel: %.2f us per launch\n", per);
  int h[64];
  CHECK(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
  bool ok = true;
  for (int v : h) ok &= v == launches;
  expect(ok, "every launch ran");
  return finish();
}
