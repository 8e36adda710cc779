// Device printf: each line a kernel prints is also computed on the host and written to
// stderr prefixed "EXPECT "; the test driver compares the two sets of lines.
#include "common.h"

__global__ void say(int n, const float *v, const char *tag_unused) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i % 7 == 0)
    printf("dev: block %d thread %u value %.3f hex %x long %ld str %s\n", (int)blockIdx.x, threadIdx.x, v[i],
           i * 3, (long)i * 100000000L, i % 2 ? "odd" : "even");
}

__global__ void constant_line() { printf("dev: constant line, width |%5d|%-4s|%c|\n", 42, "ab", 'z'); }

int main() {
  const int n = 100;
  std::vector<float> v(n);
  unsigned seed = 2;
  for (auto &x : v) x = frand(seed);
  float *dv;
  CHECK(hipMalloc(&dv, n * 4));
  CHECK(hipMemcpy(dv, v.data(), n * 4, hipMemcpyHostToDevice));
  say<<<4, 32>>>(n, dv, nullptr);
  CHECK(hipDeviceSynchronize());
  constant_line<<<1, 1>>>();
  CHECK(hipDeviceSynchronize());
  std::fflush(stdout);
  for (int i = 0; i < n; i++)
    if (i % 7 == 0)
      std::fprintf(stderr, "EXPECT dev: block %d thread %u value %.3f hex %x long %ld str %s\n", i / 32,
                   (unsigned)(i % 32), v[i], i * 3, (long)i * 100000000L, i % 2 ? "odd" : "even");
  std::fprintf(stderr, "EXPECT dev: constant line, width |%5d|%-4s|%c|\n", 42, "ab", 'z');
  return finish();
}
