// CPU side of histogram.cu: the test values and the expected bins; shared by
// the workload's driver (histogram.cpp) and its validation program
// (regress/validation/wl_histogram.cu).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace histogram_ref {

constexpr unsigned kBins = 256;  // HIST_BINS in histogram.cu

// A quarter of the values fall in a narrow hot range (a few bins, so lanes
// of a warp collide on the same shared address), 1/32 below `lo` and the
// rest spread over and past the bins. Rng: any generator with below(n).
template <class Rng>
std::vector<unsigned> make_values(Rng& rng, int n, unsigned lo, unsigned width) {
  std::vector<unsigned> data(n);
  for (auto& v : data) {
    const uint32_t k = rng.below(32);
    if (k == 0)
      v = rng.below(lo);
    else if (k < 9)
      v = lo + 100 * width + rng.below(3 * width);
    else
      v = lo + rng.below(kBins * width + kBins * width / 8);
  }
  return data;
}

// histogram256's bins: values below `lo` in bin 0, past the last bin in it.
inline std::vector<unsigned> bins(const std::vector<unsigned>& data, unsigned lo, unsigned width) {
  std::vector<unsigned> want(kBins, 0);
  for (unsigned v : data) ++want[v < lo ? 0 : std::min((v - lo) / width, kBins - 1)];
  return want;
}

}  // namespace histogram_ref
