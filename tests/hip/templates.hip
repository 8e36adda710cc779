// Template kernels instantiated for several types, with a functor parameter.
#include "common.h"

template <class T> struct Affine {
  T a, b;
  __device__ __host__ T operator()(T x) const { return a * x + b; }
};

template <class T, class F> __global__ void apply(int n, const T *in, T *out, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(in[i]);
}

template <class T, int BLOCK> __global__ void block_max(const T *in, T *out) {
  __shared__ T s[BLOCK];
  s[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k /= 2) {
    if ((int)threadIdx.x < k && s[threadIdx.x + k] > s[threadIdx.x]) s[threadIdx.x] = s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

template <class T> static bool run_apply(T a, T b, unsigned seed, const char *what) {
  const int n = 4099;
  std::vector<T> in(n), out(n), want(n);
  for (auto &v : in) v = (T)(frand(seed) * 1000);
  T *din, *dout;
  CHECK(hipMalloc(&din, n * sizeof(T)));
  CHECK(hipMalloc(&dout, n * sizeof(T)));
  CHECK(hipMemcpy(din, in.data(), n * sizeof(T), hipMemcpyHostToDevice));
  Affine<T> f{a, b};
  apply<<<(n + 255) / 256, 256>>>(n, din, dout, f);
  CHECK(hipMemcpy(out.data(), dout, n * sizeof(T), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) want[i] = f(in[i]);
  bool ok = same(out, want, 1e-6); // the device may contract a*x+b into an fma
  expect(ok, what);
  CHECK(hipFree(din));
  CHECK(hipFree(dout));
  return ok;
}

template <class T, int BLOCK> static void run_max(unsigned seed, const char *what) {
  const int blocks = 37;
  std::vector<T> in(blocks * BLOCK), out(blocks), want(blocks);
  for (auto &v : in) v = (T)(frand(seed) * 1e6);
  T *din, *dout;
  CHECK(hipMalloc(&din, in.size() * sizeof(T)));
  CHECK(hipMalloc(&dout, blocks * sizeof(T)));
  CHECK(hipMemcpy(din, in.data(), in.size() * sizeof(T), hipMemcpyHostToDevice));
  block_max<T, BLOCK><<<blocks, BLOCK>>>(din, dout);
  CHECK(hipMemcpy(out.data(), dout, blocks * sizeof(T), hipMemcpyDeviceToHost));
  for (int b = 0; b < blocks; b++) want[b] = *std::max_element(in.begin() + b * BLOCK, in.begin() + (b + 1) * BLOCK);
  expect(same(out, want), what);
}

int main() {
  run_apply<float>(1.5f, -2.0f, 1, "apply<float, Affine<float>> (8-byte struct argument)");
  run_apply<int>(-3, 7, 2, "apply<int, Affine<int>>");
  run_apply<unsigned short>(3, 1, 3, "apply<unsigned short, Affine<unsigned short>> (4-byte struct argument)");
  run_max<float, 128>(4, "block_max<float, 128>");
  run_max<int, 64>(5, "block_max<int, 64>");
  run_max<double, 256>(6, "block_max<double, 256>");
  return finish();
}
