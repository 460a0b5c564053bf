// histogram: 256-bin histogram with bins privatised in shared memory
// (shared atomicAdd), merged with global atomicAdd. Counts are exact.
#include <vector>

#include "histogram_ref.h"
#include "workload.h"

namespace {

using namespace relgpu;
using runtime::DevPtr;
using runtime::Dim3;

constexpr unsigned kBins = histogram_ref::kBins;

wl::Result run(wl::Context& ctx) {
  const bool small = ctx.size == wl::Size::small;
  // small: 12000 values on 6 blocks (~2.5e5 thread instructions);
  // default: 4M values on 120 blocks (~7e7). 192 threads per block, so the
  // 256-bin init and merge loops take a second pass on some threads.
  int n = small ? 12000 : 4 << 20;
  unsigned lo = 1000, width = 37;  // not a power of two: a real division
  const Dim3 grid{small ? 6u : 120u}, block{192};

  wl::Rng rng(ctx.seed);
  const std::vector<unsigned> data = histogram_ref::make_values(rng, n, lo, width);
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

  const std::vector<unsigned> want = histogram_ref::bins(data, lo, width);
  std::string msg;
  if (wl::compare_exact(got.data(), want.data(), kBins, msg) >= 0) return {false, "bins: " + msg};
  return {true, "histogram of " + std::to_string(n) + " values: " + msg};
}

}  // namespace

RELGPU_WORKLOAD(histogram, "256-bin histogram, shared-memory privatised bins with atomicAdd (atomics)", run);
