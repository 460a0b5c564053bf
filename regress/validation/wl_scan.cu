// regress/workloads/scan as a standalone CUDA program: the exact kernels
// (work-efficient up/down-sweep in dynamic shared memory, then the block
// offsets added back), launched as the workload's driver launches them
// (recursively, one level per scan_blocks launch), at a validation size.
#define VAL_PROG "wl_scan"
#include <cstdint>
#include <vector>

#include "val.h"
#include "../workloads/scan/scan.cu"
#include "../workloads/scan/scan_ref.h"

static const unsigned kBlock = 256;  // the workload's default block

// Shared bytes scan_blocks needs for 2*block elements, one padding word per 32.
static size_t shared_bytes(unsigned block) {
  size_t last = 2 * size_t(block) - 1;
  return (last + (last >> LOG_BANKS) + 1) * 4;
}

// out[i] = in[0] + ... + in[i-1] (mod 2^32); in may equal out.
static void scan_device(const unsigned* in, unsigned* out, size_t n) {
  const size_t per_block = 2 * size_t(kBlock);
  const unsigned nblocks = unsigned((n + per_block - 1) / per_block);
  unsigned* sums;
  CHECK(cudaMalloc(&sums, size_t(nblocks) * 4));
  scan_blocks<<<nblocks, kBlock, shared_bytes(kBlock)>>>(in, out, sums, n);
  CHECK_LAUNCH();
  if (nblocks > 1) {
    scan_device(sums, sums, nblocks);
    scan_add_offsets<<<nblocks, kBlock>>>(out, sums, n);
    CHECK_LAUNCH();
  }
  CHECK(cudaFree(sums));
}

int main() {
  // 66,313 values (not a multiple of the 512 a block scans: the last block is
  // ragged): 130 blocks in the first level, one block scanning their sums,
  // then 130 blocks adding the offsets back. Three launches.
  const size_t n = (size_t(1) << 16) + 777;
  val::Rng rng(15);
  const std::vector<unsigned> in = scan_ref::make_values(rng, n);
  const std::vector<unsigned> want = scan_ref::exclusive(in);

  unsigned *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * 4));
  CHECK(cudaMalloc(&d_out, n * 4));
  CHECK(cudaMemcpy(d_in, in.data(), n * 4, cudaMemcpyHostToDevice));
  scan_device(d_in, d_out, n);
  std::vector<unsigned> got(n);
  CHECK(cudaMemcpy(got.data(), d_out, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  val::exact("exclusive scan", got.data(), want.data(), n);
  return val::finish();
}
