// Dynamic shared memory: the size comes from the launch; kernels reverse and scan blocks.
#include "common.h"

__global__ void reverse_blocks(int n, const int *in, int *out) {
  extern __shared__ int buf[];
  int base = blockIdx.x * blockDim.x;
  int t = threadIdx.x;
  if (base + t < n) buf[t] = in[base + t];
  __syncthreads();
  int src = blockDim.x - 1 - t;
  if (base + t < n && base + src < n) out[base + t] = buf[src];
}

__global__ void inclusive_scan(const float *in, float *out) {
  HIP_DYNAMIC_SHARED(float, s)
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int off = 1; off < (int)blockDim.x; off *= 2) {
    float add = t >= off ? s[t - off] : 0.0f;
    __syncthreads();
    s[t] += add;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = s[t];
}

int main() {
  unsigned seed = 21;
  for (int block : {64, 256, 1024}) {
    const int n = block * 10;
    std::vector<int> in(n), out(n), want(n);
    for (auto &v : in) v = (int)lcg(seed);
    int *din, *dout;
    CHECK(hipMalloc(&din, n * 4));
    CHECK(hipMalloc(&dout, n * 4));
    CHECK(hipMemcpy(din, in.data(), n * 4, hipMemcpyHostToDevice));
    reverse_blocks<<<n / block, block, block * sizeof(int)>>>(n, din, dout);
    CHECK(hipGetLastError());
    CHECK(hipMemcpy(out.data(), dout, n * 4, hipMemcpyDeviceToHost));
    for (int b = 0; b < n / block; b++)
      for (int t = 0; t < block; t++) want[b * block + t] = in[b * block + block - 1 - t];
    char what[80];
    std::snprintf(what, sizeof what, "block reverse with %d bytes of dynamic shared memory", block * 4);
    expect(same(out, want), what);
    CHECK(hipFree(din));
    CHECK(hipFree(dout));
  }
  const int block = 512, blocks = 40;
  std::vector<float> in(block * blocks), out(block * blocks), want(block * blocks);
  for (auto &v : in) v = frand(seed);
  float *din, *dout;
  CHECK(hipMalloc(&din, in.size() * 4));
  CHECK(hipMalloc(&dout, in.size() * 4));
  CHECK(hipMemcpy(din, in.data(), in.size() * 4, hipMemcpyHostToDevice));
  double t0 = now_ms();
  hipLaunchKernelGGL(inclusive_scan, dim3(blocks), dim3(block), block * sizeof(float), 0, din, dout);
  CHECK(hipDeviceSynchronize());
  double dev_ms = now_ms() - t0;
  CHECK(hipMemcpy(out.data(), dout, out.size() * 4, hipMemcpyDeviceToHost));
  t0 = now_ms();
  for (int b = 0; b < blocks; b++) {
    float acc = 0;
    for (int t = 0; t < block; t++) want[b * block + t] = acc += in[b * block + t];
  }
  timing("block scans 40x512", dev_ms, now_ms() - t0);
  expect(same(out, want, 1e-5), "Hillis-Steele scan in dynamic shared memory");
  // More dynamic shared memory than the device has is refused at launch.
  inclusive_scan<<<1, 64, 1 << 20>>>(din, dout);
  expect(hipGetLastError() == hipErrorLaunchOutOfResources, "1 MiB of dynamic shared memory is refused");
  return finish();
}
