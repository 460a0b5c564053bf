// Shared by the timing-validation programs (regress/validation/README.md):
// a CUDA error check, a deterministic input generator and a result checker
// that prints exactly one line, "<prog>: PASS" or "<prog>: FAIL <reason>".
//
// Each program defines VAL_PROG (its name, the same as its binary) before
// including this header, checks every kernel's output against a CPU reference
// and ends with `return val::finish();` (exit status 0 only if all passed).
#pragma once
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#ifndef VAL_PROG
#error "define VAL_PROG (the program's name) before including val.h"
#endif

namespace val {

inline std::string& first_failure() {
  static std::string s;
  return s;
}
inline int& failures() {
  static int n = 0;
  return n;
}

// Records a failure (the first one is printed by finish()).
inline void fail(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (failures()++ == 0) first_failure() = buf;
}

// Prints the program's one result line and returns its exit status.
inline int finish() {
  if (failures() == 0) {
    std::printf("%s: PASS\n", VAL_PROG);
    std::fflush(stdout);
    return 0;
  }
  std::printf("%s: FAIL %s (%d failed check%s)\n", VAL_PROG, first_failure().c_str(), failures(),
              failures() == 1 ? "" : "s");
  std::fflush(stdout);
  return 1;
}

// Integers (or anything compared with ==): every element must match exactly.
template <class T>
bool exact(const char* what, const T* got, const T* want, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!(got[i] == want[i])) {
      fail("%s: [%zu] got %lld, want %lld", what, i, (long long)got[i], (long long)want[i]);
      return false;
    }
  return true;
}

// Floats: |got - want| <= abs_tol + rel_tol * |want| for every element (each
// caller states why its tolerance is what it is).
inline bool close(const char* what, const float* got, const float* want, size_t n, double rel_tol,
                  double abs_tol) {
  for (size_t i = 0; i < n; ++i) {
    double g = got[i], w = want[i];
    if (!(std::fabs(g - w) <= abs_tol + rel_tol * std::fabs(w))) {
      fail("%s: [%zu] got %.9g, want %.9g (tolerance abs %g + rel %g)", what, i, g, w, abs_tol, rel_tol);
      return false;
    }
  }
  return true;
}

// Slack for float results built from fma chains. A simulator may evaluate
// fma.rn.f32 unfused, rounding the product before the add (GPGPU-Sim computes
// a*b+c in host float arithmetic), so each step can differ from the fused
// result (which the CPU references compute with std::fma) by up to 2^-24 of
// its product. For a result whose terms' magnitudes add up to `mag`, 2^-22 *
// mag covers that with a 4x margin, while an error above 2.4e-7 * mag (a
// missing or wrong term of ordinary size) still fails.
inline double fma_slack(double mag) { return std::ldexp(mag, -22); }

// Deterministic input generator (splitmix64): the same numbers on every
// platform and compiler, unlike the std:: distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return uint32_t(next() % n); }                       // [0, n)
  float unit() { return float(next() >> 40) * (1.0f / 16777216.0f); }                // [0, 1)
  float uniform(float lo, float hi) { return lo + (hi - lo) * unit(); }
 private:
  uint64_t s_;
};

}  // namespace val

// Stops the program with a FAIL line on any CUDA error.
#define CHECK(call)                                                                                   \
  do {                                                                                                \
    cudaError_t e_ = (call);                                                                          \
    if (e_ != cudaSuccess) {                                                                          \
      std::printf("%s: FAIL %s:%d: %s: %s (%s)\n", VAL_PROG, __FILE__, __LINE__, #call,               \
                  cudaGetErrorName(e_), cudaGetErrorString(e_));                                      \
      std::fflush(stdout);                                                                            \
      std::exit(1);                                                                                   \
    }                                                                                                 \
  } while (0)

// After a <<<...>>> launch: the launch error, then the kernel's own.
#define CHECK_LAUNCH()                    \
  do {                                    \
    CHECK(cudaGetLastError());            \
    CHECK(cudaDeviceSynchronize());       \
  } while (0)
