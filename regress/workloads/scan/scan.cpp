// Host driver for scan.cu: exclusive prefix sum of an unsigned array of any
// length. Each level scans blocks of 2*block elements and collects their
// totals; the totals are scanned recursively (in place) and added back.
#include <cstdint>
#include <string>
#include <vector>

#include "scan_ref.h"
#include "workload.h"

namespace relgpu::wl {
namespace {

struct ScanKernels {
  runtime::Device& dev;
  const ptx::Function& blocks;
  const ptx::Function& add_offsets;
  uint32_t block;  // threads per block, power of two
  uint32_t levels = 0;
  uint64_t launches = 0;
};

// Shared words scan_blocks needs for 2*block elements: PAD(2*block - 1) + 1
// with one padding word per 32 (LOG_BANKS = 5 in scan.cu).
uint64_t shared_words(uint32_t block) {
  uint64_t last = 2 * uint64_t(block) - 1;
  return last + (last >> 5) + 1;
}

// out[i] = in[0] + ... + in[i-1] (mod 2^32); in may equal out.
void scan_device(ScanKernels& k, runtime::DevPtr in, runtime::DevPtr out, uint64_t n) {
  const uint64_t per_block = 2 * uint64_t(k.block);
  const uint32_t nblocks = uint32_t((n + per_block - 1) / per_block);
  runtime::DevPtr sums = k.dev.malloc(uint64_t(nblocks) * 4);
  ++k.levels;
  {
    void* args[] = {&in, &out, &sums, &n};
    k.dev.launch(k.blocks, {nblocks, 1, 1}, {k.block, 1, 1}, shared_words(k.block) * 4, args);
    ++k.launches;
  }
  if (nblocks > 1) {
    scan_device(k, sums, sums, nblocks);
    void* args[] = {&out, &sums, &n};
    k.dev.launch(k.add_offsets, {nblocks, 1, 1}, {k.block, 1, 1}, 0, args);
    ++k.launches;
  }
  k.dev.free(sums);
}

Result run_scan(Context& ctx) {
  const bool small = ctx.size == Size::small;
  // Not multiples of the block span, so the last block of each level is ragged.
  const uint64_t n = small ? 1800 : (uint64_t(1) << 19) + 777;
  const uint32_t block = small ? 64 : 256;

  Rng rng(ctx.seed);
  const std::vector<uint32_t> in = scan_ref::make_values(rng, n);
  const std::vector<uint32_t> want = scan_ref::exclusive(in);

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  ScanKernels k{dev, dev.kernel(mod, "scan_blocks"), dev.kernel(mod, "scan_add_offsets"), block};
  runtime::DevPtr d_in = dev.malloc(n * 4), d_out = dev.malloc(n * 4);
  dev.memcpy_to_device(d_in, in.data(), n * 4);
  scan_device(k, d_in, d_out, n);
  dev.synchronize();
  std::vector<uint32_t> got(n);
  dev.memcpy_to_host(got.data(), d_out, n * 4);
  dev.free(d_in);
  dev.free(d_out);
  ctx.log << "scan: n=" << n << " block=" << block << " levels=" << k.levels << " launches=" << k.launches << "\n";

  std::string msg;
  bool ok = compare_exact(got.data(), want.data(), n, msg) < 0;
  return {ok, "exclusive scan of " + std::to_string(n) + " values (" + std::to_string(k.levels) + " levels): " + msg};
}

}  // namespace

RELGPU_WORKLOAD(scan, "work-efficient exclusive prefix sum: up/down-sweep in dynamic shared memory, multi-level",
                run_scan);

}  // namespace relgpu::wl
