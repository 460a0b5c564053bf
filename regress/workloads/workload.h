// A workload: a CUDA kernel file (<name>.cu), its checked-in PTX (<name>.ptx)
// and a host driver (<name>.cpp) that makes deterministic input from a seed,
// runs the kernel(s) through runtime::Device and checks the output against a
// CPU reference. Drivers register themselves with RELGPU_WORKLOAD.
#pragma once
#include <cstdint>
#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "ptx/ptxas.h"
#include "runtime/device.h"

namespace relgpu::wl {

enum class Size { small, standard };  // "small" for tests, "default" (standard) for experiments

struct Context {
  runtime::Device& dev;
  Size size;
  uint64_t seed;
  const std::string& ptx;       // the workload's PTX text
  const std::string& ptx_file;  // its path, for messages
  const ptx::PtxasInfo& ptxas;  // registers per kernel from its checked-in .ptxinfo
  std::ostream& log;
};

struct Result {
  bool pass = false;
  std::string message;          // what was compared and, on failure, the first mismatch
};

struct Workload {
  std::string name;
  std::string description;      // one line, for `relgpu list`
  std::function<Result(Context&)> run;
};

const std::vector<Workload>& all();
const Workload* find(const std::string& name);
// PTX text and path of a workload (embedded at build time).
const std::string& ptx_text(const std::string& name);
const std::string& ptx_path(const std::string& name);
// ptxas's registers per kernel of a workload (<name>.ptxinfo, embedded).
const ptx::PtxasInfo& ptxas_info(const std::string& name);

struct Registrar {
  Registrar(const char* name, const char* desc, Result (*fn)(Context&));
};
#define RELGPU_WORKLOAD(name, desc, fn) static ::relgpu::wl::Registrar relgpu_wl_reg_##name(#name, desc, fn)

// Deterministic generator for inputs: the same seed gives the same data on
// every platform (std::mt19937_64 is specified exactly; distributions are not,
// so use these helpers rather than std::uniform_*_distribution).
class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  uint64_t next() { return g_(); }
  uint32_t below(uint32_t n) { return uint32_t(g_() % n); }
  float unit() { return float(g_() >> 40) * (1.0f / 16777216.0f); }       // [0, 1)
  float uniform(float lo, float hi) { return lo + (hi - lo) * unit(); }
 private:
  std::mt19937_64 g_;
};

// Float comparison helper: |a-b| <= abs_tol + rel_tol*|b|. Returns index of
// first mismatch or -1; fills `msg` with a readable description.
long compare_floats(const float* got, const float* want, size_t n, double rel_tol, double abs_tol, std::string& msg);
template <class T>
long compare_exact(const T* got, const T* want, size_t n, std::string& msg) {
  for (size_t i = 0; i < n; ++i)
    if (!(got[i] == want[i])) {
      msg = "mismatch at [" + std::to_string(i) + "]: got " + std::to_string(got[i]) + ", want " +
            std::to_string(want[i]);
      return long(i);
    }
  msg = std::to_string(n) + " values match exactly";
  return -1;
}

}  // namespace relgpu::wl
