// regress/workloads/histogram as a standalone CUDA program: the exact kernel
// (256 bins privatised in shared memory with atomicAdd, merged with global
// atomicAdd), launched as the workload's driver launches it, at a validation
// size.
#define VAL_PROG "wl_histogram"
#include <algorithm>
#include <vector>

#include "val.h"
#include "../workloads/histogram/histogram.cu"

int main() {
  // 80000 values on 60 blocks of 192 threads (the 256-bin init and merge
  // loops take a second pass on some threads).
  int n = 80000;
  unsigned lo = 1000, width = 37;  // not a power of two: a real division
  const unsigned kBins = HIST_BINS;
  // A quarter of the values fall in a narrow hot range (a few bins, so
  // lanes of a warp collide on the same shared address), 1/32 below `lo`
  // and the rest spread over and past the 256 bins.
  val::Rng rng(17);
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
  unsigned *d_data, *d_hist;
  CHECK(cudaMalloc(&d_data, size_t(n) * 4));
  CHECK(cudaMalloc(&d_hist, kBins * 4));
  CHECK(cudaMemcpy(d_data, data.data(), size_t(n) * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_hist, 0, kBins * 4));
  histogram256<<<60, 192>>>(d_data, n, lo, width, d_hist);
  CHECK_LAUNCH();
  std::vector<unsigned> got(kBins), want(kBins, 0);
  CHECK(cudaMemcpy(got.data(), d_hist, kBins * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_data));
  CHECK(cudaFree(d_hist));
  for (unsigned v : data) ++want[v < lo ? 0 : std::min((v - lo) / width, kBins - 1)];
  val::exact("bins", got.data(), want.data(), kBins);
  return val::finish();
}
