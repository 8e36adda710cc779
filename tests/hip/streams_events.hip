// Streams and events: work on two streams, stream order, event timing and queries.
#include "common.h"

__global__ void fill(int n, float *v, float x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = x + i;
}

__global__ void add_into(int n, const float *a, float *b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += a[i];
}

__global__ void busy(int n, float *v, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = v[i];
    for (int k = 0; k < iters; k++) x = x * 0.999f + 0.001f;
    v[i] = x;
  }
}

int main() {
  const int n = 1 << 16;
  hipStream_t s1, s2;
  CHECK(hipStreamCreate(&s1));
  CHECK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
  float *a, *b, *h;
  CHECK(hipMalloc(&a, n * 4));
  CHECK(hipMalloc(&b, n * 4));
  CHECK(hipHostMalloc(&h, n * 4));
  hipEvent_t start, mid, stop, untimed;
  CHECK(hipEventCreate(&start));
  CHECK(hipEventCreate(&mid));
  CHECK(hipEventCreate(&stop));
  CHECK(hipEventCreateWithFlags(&untimed, hipEventDisableTiming));
  expect(hipEventQuery(stop) == hipErrorNotReady, "an unrecorded event is not ready");

  CHECK(hipEventRecord(start, s1));
  fill<<<n / 256, 256, 0, s1>>>(n, a, 1.0f);
  fill<<<n / 256, 256, 0, s2>>>(n, b, 0.5f);
  CHECK(hipEventRecord(mid, s2));
  CHECK(hipStreamWaitEvent(s1, mid, 0));
  add_into<<<n / 256, 256, 0, s1>>>(n, a, b);
  busy<<<n / 256, 256, 0, s1>>>(n, b, 200);
  CHECK(hipMemcpyAsync(h, b, n * 4, hipMemcpyDeviceToHost, s1));
  CHECK(hipEventRecord(stop, s1));
  CHECK(hipEventRecord(untimed, s1));
  CHECK(hipStreamSynchronize(s1));
  CHECK(hipEventSynchronize(stop));
  expect(hipEventQuery(stop) == hipSuccess && hipStreamQuery(s1) == hipSuccess, "event and stream complete");
  float ms = -1, ms_mid = -1, dummy;
  CHECK(hipEventElapsedTime(&ms, start, stop));
  CHECK(hipEventElapsedTime(&ms_mid, start, mid));
  std::printf("  elapsed start->mid %.3f ms, start->stop %.3f ms\n", ms_mid, ms);
  expect(ms > 0 && ms_mid > 0 && ms >= ms_mid, "hipEventElapsedTime is positive and ordered");
  expect(hipEventElapsedTime(&dummy, start, untimed) == hipErrorInvalidHandle,
         "no timing with hipEventDisableTiming");
  (void)hipGetLastError();

  double t0 = now_ms();
  std::vector<float> want(n);
  for (int i = 0; i < n; i++) {
    float x = (1.0f + i) + (0.5f + i);
    for (int k = 0; k < 200; k++) x = x * 0.999f + 0.001f;
    want[i] = x;
  }
  timing("fill+add+200-step recurrence on 65536", ms, now_ms() - t0);
  std::vector<float> got(h, h + n);
  expect(same(got, want, 1e-4), "stream-ordered kernels and async copy give the host result");

  CHECK(hipEventDestroy(start));
  CHECK(hipEventDestroy(mid));
  CHECK(hipEventDestroy(stop));
  CHECK(hipEventDestroy(untimed));
  CHECK(hipStreamDestroy(s1));
  CHECK(hipStreamDestroy(s2));
  expect(hipStreamSynchronize(s1) == hipErrorInvalidHandle, "a destroyed stream is rejected");
  (void)hipGetLastError();
  return finish();
}
