// regress/workloads/nw as a standalone CUDA program: the exact kernel
// (Needleman-Wunsch, one 16-thread block per 16x16 tile, anti-diagonals
// inside the tile), launched as the workload's driver launches it (one launch
// per anti-diagonal of tiles), at a validation size. The launches are small
// by nature: a wavefront of 1 to 8 blocks of 16 threads.
#define VAL_PROG "wl_nw"
#include <algorithm>
#include <cstdint>
#include <vector>

#include "val.h"
#include "../workloads/nw/nw.cu"
#include "../workloads/nw/nw_ref.h"

int main() {
  // Sequences of 128 (8x8 tiles): 15 launches of 1..8..1 blocks.
  int n = 128, gap = 3, alphabet = 20;
  const int ntiles = n / TILE;
  const size_t width = size_t(n) + 1;
  val::Rng rng(17);
  const nw_ref::Input in = nw_ref::make_input(rng, n, alphabet);
  const auto &a = in.a, &b = in.b;
  const auto& subst = in.subst;
  const std::vector<int> init = nw_ref::borders(n, gap);
  const std::vector<int> want = nw_ref::scores(a, b, subst, alphabet, n, gap);

  const size_t bytes = width * width * 4;
  int *d_score, *d_subst;
  unsigned char *d_a, *d_b;
  CHECK(cudaMalloc(&d_score, bytes));
  CHECK(cudaMalloc(&d_a, n));
  CHECK(cudaMalloc(&d_b, n));
  CHECK(cudaMalloc(&d_subst, subst.size() * 4));
  CHECK(cudaMemcpy(d_score, init.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_a, a.data(), n, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, b.data(), n, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_subst, subst.data(), subst.size() * 4, cudaMemcpyHostToDevice));
  for (int diag = 0; diag < 2 * ntiles - 1; ++diag) {
    const int first = std::max(0, diag - ntiles + 1), last = std::min(diag, ntiles - 1);
    nw_tile_diagonal<<<unsigned(last - first + 1), TILE>>>(d_score, d_a, d_b, d_subst, alphabet, n, diag, gap);
    CHECK_LAUNCH();
  }
  std::vector<int> got(width * width);
  CHECK(cudaMemcpy(got.data(), d_score, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_score));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_subst));
  val::exact("score matrix", got.data(), want.data(), got.size());
  return val::finish();
}
