// Tiled matrix transpose through shared memory (padded tile, 2-D grid, ragged edges).
#include "common.h"

constexpr int TILE = 32, ROWS = 8;

__global__ void transpose(float *out, const float *in, int width, int height) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int w = 1000, h = 777;
  unsigned seed = 11;
  std::vector<float> in(w * h), out(w * h, -1.0f), want(w * h);
  for (auto &v : in) v = frand(seed);
  float *din, *dout;
  CHECK(hipMalloc(&din, in.size() * 4));
  CHECK(hipMalloc(&dout, in.size() * 4));
  CHECK(hipMemcpy(din, in.data(), in.size() * 4, hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dout, out.data(), out.size() * 4, hipMemcpyHostToDevice));
  hipEvent_t a, b;
  CHECK(hipEventCreate(&a));
  CHECK(hipEventCreate(&b));
  CHECK(hipEventRecord(a));
  transpose<<<dim3((w + TILE - 1) / TILE, (h + TILE - 1) / TILE), dim3(TILE, ROWS)>>>(dout, din, w, h);
  CHECK(hipEventRecord(b));
  CHECK(hipEventSynchronize(b));
  float ms = 0;
  CHECK(hipEventElapsedTime(&ms, a, b));
  CHECK(hipMemcpy(out.data(), dout, out.size() * 4, hipMemcpyDeviceToHost));
  double t0 = now_ms();
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) want[x * h + y] = in[y * w + x];
  timing("transpose 1000x777", ms, now_ms() - t0);
  expect(same(out, want), "tiled transpose matches the host");
  CHECK(hipFree(din));
  CHECK(hipFree(dout));
  return finish();
}
