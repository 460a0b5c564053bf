// regress/workloads/histogram as a standalone CUDA program: the exact kernel
// (256 bins privatised in shared memory with atomicAdd, merged with global
// atomicAdd), launched as the workload's driver launches it, at a validation
// size.
#define VAL_PROG "wl_histogram"
#include <vector>

#include "val.h"
#include "../workloads/histogram/histogram.cu"
#include "../workloads/histogram/histogram_ref.h"

static_assert(HIST_BINS == histogram_ref::kBins, "histogram_ref::kBins must match HIST_BINS");

int main() {
  // 80000 values on 60 blocks of 192 threads (the 256-bin init and merge
  // loops take a second pass on some threads).
  int n = 80000;
  unsigned lo = 1000, width = 37;  // not a power of two: a real division
  const unsigned kBins = HIST_BINS;
  val::Rng rng(17);
  const std::vector<unsigned> data = histogram_ref::make_values(rng, n, lo, width);
  unsigned *d_data, *d_hist;
  CHECK(cudaMalloc(&d_data, size_t(n) * 4));
  CHECK(cudaMalloc(&d_hist, kBins * 4));
  CHECK(cudaMemcpy(d_data, data.data(), size_t(n) * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_hist, 0, kBins * 4));
  histogram256<<<60, 192>>>(d_data, n, lo, width, d_hist);
  CHECK_LAUNCH();
  std::vector<unsigned> got(kBins);
  CHECK(cudaMemcpy(got.data(), d_hist, kBins * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_data));
  CHECK(cudaFree(d_hist));
  const std::vector<unsigned> want = histogram_ref::bins(data, lo, width);
  val::exact("bins", got.data(), want.data(), kBins);
  return val::finish();
}
