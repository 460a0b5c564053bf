// regress/workloads/reduce as a standalone CUDA program: the exact kernels
// (shared-memory tree + __shfl_down_sync; two-pass and atomicAdd variants),
// launched as the workload's driver launches them, at a validation size.
#define VAL_PROG "wl_reduce"
#include <cstdint>
#include <vector>

#include "val.h"
#include "../workloads/reduce/reduce.cu"
#include "../workloads/reduce/reduce_ref.h"

int main() {
  // n is deliberately not a multiple of the grid size (ragged last stride).
  const uint64_t n = (uint64_t(1) << 15) + 12345;
  const unsigned block = 256, grid = 60;             // reduce_partial: power of two >= 64
  const unsigned atomic_block = ATOMIC_BLOCK, atomic_grid = 60;
  const unsigned max_value = 4096;                   // values in [0, 4096)

  if (!reduce_ref::block_sums_fit(n, atomic_grid, atomic_block, max_value)) {
    val::fail("sizes chosen so that a block sum can overflow 32 bits");
    return val::finish();
  }

  val::Rng rng(12);
  const std::vector<unsigned> in = reduce_ref::make_values(rng, n, max_value);
  const reduce_ref::Sums want = reduce_ref::sums(in);

  unsigned *d_in, *d_partial, *d_sum;
  unsigned long long* d_total;
  CHECK(cudaMalloc(&d_in, n * 4));
  CHECK(cudaMalloc(&d_partial, grid * 4));
  CHECK(cudaMalloc(&d_sum, 4));
  CHECK(cudaMalloc(&d_total, 8));
  CHECK(cudaMemcpy(d_in, in.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_total, 0, 8));

  // Pass 1: one partial per block. Pass 2: one block of 128 over the partials.
  reduce_partial<<<grid, block, block * 4>>>(d_in, n, d_partial);
  CHECK_LAUNCH();
  reduce_partial<<<1, 128, 128 * 4>>>(d_partial, size_t(grid), d_sum);
  CHECK_LAUNCH();
  reduce_atomic<<<atomic_grid, atomic_block>>>(d_in, n, d_total);
  CHECK_LAUNCH();

  unsigned got32 = 0;
  unsigned long long got64 = 0;
  CHECK(cudaMemcpy(&got32, d_sum, 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&got64, d_total, 8, cudaMemcpyDeviceToHost));
  for (void* p : {(void*)d_in, (void*)d_partial, (void*)d_sum, (void*)d_total}) CHECK(cudaFree(p));
  const unsigned long long w64 = want.full;
  val::exact("two-pass sum (mod 2^32)", &got32, &want.mod32, 1);
  val::exact("atomicAdd sum (64-bit)", &got64, &w64, 1);
  return val::finish();
}
