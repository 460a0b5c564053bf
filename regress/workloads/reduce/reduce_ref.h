// CPU side of reduce.cu: the test values and their sums; shared by the
// workload's driver (reduce.cpp) and its validation program
// (regress/validation/wl_reduce.cu).
#pragma once
#include <cstdint>
#include <vector>

namespace reduce_ref {

// n values in [0, max_value). Rng: any generator with below(n).
template <class Rng>
std::vector<uint32_t> make_values(Rng& rng, uint64_t n, uint32_t max_value) {
  std::vector<uint32_t> in(n);
  for (auto& v : in) v = rng.below(max_value);
  return in;
}

// reduce_atomic adds 32-bit block sums into a 64-bit total: exact only if no
// block's own sum wraps. Whether that holds for this launch.
inline bool block_sums_fit(uint64_t n, uint32_t grid, uint32_t block, uint32_t max_value) {
  const uint64_t stride = uint64_t(grid) * block;
  const uint64_t per_block = (n + stride - 1) / stride * block;  // values a block sees, at most
  return per_block * (max_value - 1) < (uint64_t(1) << 32);
}

struct Sums {
  uint32_t mod32;  // wraps mod 2^32, as the kernel's unsigned adds do
  uint64_t full;
};

inline Sums sums(const std::vector<uint32_t>& in) {
  Sums s{0, 0};
  for (uint32_t v : in) {
    s.mod32 += v;
    s.full += v;
  }
  return s;
}

}  // namespace reduce_ref
