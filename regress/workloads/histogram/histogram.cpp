// histogram: 256-bin histogram with bins privatised in shared memory
// (shared atomicAdd), merged with global atomicAdd. Counts are exact.
#include <algorithm>
#include <vector>

#include "workload.h"

namespace {

using namespace relgpu;
using runtime::DevPtr;
using runtime::Dim3;

constexpr unsigned kBins = 256;  // HIST_BINS in histogram.cu

wl::Result run(wl::Context& ctx) {
  const bool small = ctx.size == wl::Size::small;
  // small: 12000 values on 6 blocks (~2.5e5 thread instructions);
  // default: 4M values on 120 blocks (~7e7). 192 threads per block, so the
  // 256-bin init and merge loops take a second pass on some threads.
  int n = small ? 12000 : 4 << 20;
  unsigned lo = 1000, width = 37;  // not a power of two: a real division
  const Dim3 grid{small ? 6u : 120u}, block{192};

  // A quarter of the values fall in a narrow hot range (a few bins, so
  // lanes of a warp collide on the same shared address), 1/32 below `lo`
  // and the rest spread over and past the 256 bins.
  wl::Rng rng(ctx.seed);
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
  ctx.log << "histogram: " << n << " values, " << kBins << " bins\n";

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  const auto& k = dev.kernel(mod, "histogram256");
  DevPtr d_data = dev.malloc(size_t(n) * 4), d_hist = dev.malloc(kBins * 4);
  dev.memcpy_to_device(d_data, data.data(), size_t(n) * 4);
  dev.memset(d_hist, 0, kBins * 4);
  void* args[] = {&d_data, &n, &lo, &width, &d_hist};
  dev.launch(k, grid, block, 0, args);
  dev.synchronize();
  std::vector<unsigned> got(kBins);
  dev.memcpy_to_host(got.data(), d_hist, kBins * 4);
  dev.free(d_data);
  dev.free(d_hist);

  std::vector<unsigned> want(kBins, 0);
  for (unsigned v : data) ++want[v < lo ? 0 : std::min((v - lo) / width, kBins - 1)];
  std::string msg;
  if (wl::compare_exact(got.data(), want.data(), kBins, msg) >= 0) return {false, "bins: " + msg};
  return {true, "histogram of " + std::to_string(n) + " values: " + msg};
}

}  // namespace

RELGPU_WORKLOAD(histogram, "256-bin histogram, shared-memory privatised bins with atomicAdd (atomics)", run);
