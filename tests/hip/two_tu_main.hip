// Two translation units, each with its own fat binary: kernels of both run in one program.
#include "common.h"

__global__ void scale_add(int n, const int *a, int *out); // defined in two_tu_kernels.hip
void launch_scale_add(int n, const int *a, int *out);

static __constant__ int scale_factor = 5; // a different variable of the same name in this unit

__global__ void negate(int n, int *v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = -v[i] * scale_factor;
}

int main() {
  const int n = 3000;
  std::vector<int> a(n), out(n), want(n);
  unsigned seed = 9;
  for (auto &v : a) v = (int)(lcg(seed) % 1000);
  int *da, *dout;
  CHECK(hipMalloc(&da, n * 4));
  CHECK(hipMalloc(&dout, n * 4));
  CHECK(hipMemcpy(da, a.data(), n * 4, hipMemcpyHostToDevice));
  scale_add<<<(n + 127) / 128, 128>>>(n, da, dout); // the other unit's kernel, launched here
  CHECK(hipMemcpy(out.data(), dout, n * 4, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) want[i] = a[i] * 3 + 1;
  expect(same(out, want), "kernel of the other unit, launched from this one");
  negate<<<(n + 127) / 128, 128>>>(n, dout);
  CHECK(hipMemcpy(out.data(), dout, n * 4, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) want[i] = -(a[i] * 3 + 1) * 5;
  expect(same(out, want), "this unit's kernel sees this unit's __constant__");
  launch_scale_add(n, dout, da);
  CHECK(hipMemcpy(out.data(), da, n * 4, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) want[i] = want[i] * 3 + 1;
  expect(same(out, want), "launch from host code of the other unit");
  return finish();
}
