// CPU side of scan.cu: the test values and their exclusive prefix sum;
// shared by the workload's driver (scan.cpp) and its validation program
// (regress/validation/wl_scan.cu).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace scan_ref {

// n values in [0, 1000). Rng: any generator with below(n).
template <class Rng>
std::vector<uint32_t> make_values(Rng& rng, uint64_t n) {
  std::vector<uint32_t> in(n);
  for (auto& v : in) v = rng.below(1000);
  return in;
}

// out[i] = in[0] + ... + in[i-1] (mod 2^32).
inline std::vector<uint32_t> exclusive(const std::vector<uint32_t>& in) {
  std::vector<uint32_t> out(in.size());
  uint32_t run = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    out[i] = run;
    run += in[i];
  }
  return out;
}

}  // namespace scan_ref
