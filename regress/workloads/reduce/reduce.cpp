// Host driver for reduce.cu: sums a large unsigned array two ways, with a
// two-pass tree (reduce_partial over the input, then over the partials) and
// a one-pass tree plus atomicAdd (reduce_atomic), and checks both exactly.
#include <cstdint>
#include <string>
#include <vector>

#include "reduce_ref.h"
#include "workload.h"

namespace relgpu::wl {
namespace {

Result run_reduce(Context& ctx) {
  const bool small = ctx.size == Size::small;
  // n is deliberately not a multiple of the grid size (ragged last stride).
  const uint64_t n = small ? 5000 : (uint64_t(1) << 22) + 12345;
  const uint32_t block = small ? 128 : 256;  // reduce_partial: power of two >= 64
  const uint32_t grid = small ? 8 : 120;
  const uint32_t atomic_block = 256;          // reduce_atomic: its static array has 256 words
  const uint32_t atomic_grid = small ? 4 : 96;
  const uint32_t max_value = 4096;            // values in [0, 4096)

  if (!reduce_ref::block_sums_fit(n, atomic_grid, atomic_block, max_value))
    return {false, "reduce: sizes chosen so that a block sum can overflow 32 bits"};

  Rng rng(ctx.seed);
  const std::vector<uint32_t> in = reduce_ref::make_values(rng, n, max_value);
  const reduce_ref::Sums want = reduce_ref::sums(in);
  const uint32_t want32 = want.mod32;
  const uint64_t want64 = want.full;
  ctx.log << "reduce: n=" << n << " grid=" << grid << "x" << block << " atomic grid=" << atomic_grid << "x"
          << atomic_block << "\n";

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  const auto& k_partial = dev.kernel(mod, "reduce_partial");
  const auto& k_atomic = dev.kernel(mod, "reduce_atomic");

  runtime::DevPtr d_in = dev.malloc(n * 4);
  runtime::DevPtr d_partial = dev.malloc(grid * 4);
  runtime::DevPtr d_sum = dev.malloc(4);
  runtime::DevPtr d_total = dev.malloc(8);
  dev.memcpy_to_device(d_in, in.data(), n * 4);
  dev.memset(d_total, 0, 8);

  // Pass 1: one partial per block. Pass 2: one block over the partials.
  {
    uint64_t count = n;
    void* args[] = {&d_in, &count, &d_partial};
    dev.launch(k_partial, {grid, 1, 1}, {block, 1, 1}, block * 4, args);
  }
  {
    uint64_t count = grid;
    const uint32_t block2 = 128;
    void* args[] = {&d_partial, &count, &d_sum};
    dev.launch(k_partial, {1, 1, 1}, {block2, 1, 1}, block2 * 4, args);
  }
  {
    uint64_t count = n;
    void* args[] = {&d_in, &count, &d_total};
    dev.launch(k_atomic, {atomic_grid, 1, 1}, {atomic_block, 1, 1}, 0, args);
  }
  dev.synchronize();

  uint32_t got32 = 0;
  uint64_t got64 = 0;
  dev.memcpy_to_host(&got32, d_sum, 4);
  dev.memcpy_to_host(&got64, d_total, 8);
  for (auto p : {d_in, d_partial, d_sum, d_total}) dev.free(p);

  const std::string what = "sum of " + std::to_string(n) + " values";
  if (got32 != want32)
    return {false, what + ", two-pass tree: got " + std::to_string(got32) + ", want " + std::to_string(want32) +
                       " (mod 2^32)"};
  if (got64 != want64)
    return {false, what + ", atomicAdd pass: got " + std::to_string(got64) + ", want " + std::to_string(want64)};
  return {true, what + ": two-pass (mod 2^32) and atomicAdd (64-bit) totals match exactly"};
}

}  // namespace

RELGPU_WORKLOAD(reduce, "tree sum reduction: shared-memory tree, __shfl_down_sync, two-pass and atomicAdd",
                run_reduce);

}  // namespace relgpu::wl
