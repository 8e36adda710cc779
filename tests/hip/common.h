// Helpers shared by the HIP test programs: checked API calls, result comparison, timing.
// Each program checks its results against a host computation done in the program, prints
// PASS or FAIL lines, and exits non-zero on any mismatch.
#pragma once
#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    hipError_t e_ = (call);                                                                        \
    if (e_ != hipSuccess) {                                                                        \
      std::printf("FAIL %s:%d: %s -> %s (%s)\n", __FILE__, __LINE__, #call, hipGetErrorName(e_),    \
                  hipGetErrorString(e_));                                                          \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

static int g_failures = 0;

// Records one named check.
static void expect(bool ok, const char *what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what);
  if (!ok) g_failures++;
}

template <class T> static bool close_enough(T got, T want, double rel) {
  double g = (double)got, w = (double)want;
  return std::fabs(g - w) <= rel * std::fmax(1.0, std::fabs(w));
}

// Compares two arrays; prints the first mismatch.
template <class T>
static bool same(const std::vector<T> &got, const std::vector<T> &want, double rel = 0.0) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); i++) {
    if (!close_enough(got[i], want[i], rel)) {
      std::printf("  mismatch at %zu: got %.9g want %.9g\n", i, (double)got[i], (double)want[i]);
      return false;
    }
  }
  return true;
}

static double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// Prints the time of the emulated computation next to the same computation on the host.
static void timing(const char *what, double device_ms, double host_ms) {
  std::printf("TIME %s: wavejit %.3f ms, host %.3f ms\n", what, device_ms, host_ms);
}

static int finish() {
  if (g_failures) {
    std::printf("FAIL: %d check(s) failed\n", g_failures);
    return 1;
  }
  std::printf("ALL PASS\n");
  return 0;
}

// A deterministic pseudo-random sequence (no all-zero test data).
static unsigned lcg(unsigned &s) { return s = s * 1664525u + 1013904223u; }
static float frand(unsigned &s) { return (float)(lcg(s) >> 8) / (float)(1 << 24) * 2.0f - 1.0f; }
