// regress/workloads/bfs as a standalone CUDA program: the exact kernel (one
// level of a level-synchronous BFS per launch: irregular, divergent),
// launched as the workload's driver launches it (until no vertex changes),
// at a validation size.
#define VAL_PROG "wl_bfs"
#include <algorithm>
#include <deque>
#include <utility>
#include <vector>

#include "val.h"
#include "../workloads/bfs/bfs.cu"
#include "../workloads/bfs/bfs_ref.h"

using bfs_ref::Csr;

int main() {
  // 6000 vertices (~20k edges): 47 blocks of 128 threads per launch.
  int n = 6000;
  val::Rng rng(18);
  const Csr g = bfs_ref::make_graph(rng, n);
  const size_t m = g.col_idx.size();

  int *d_row, *d_col, *d_level, *d_changed;
  unsigned char *d_front, *d_next;
  CHECK(cudaMalloc(&d_row, (n + 1) * sizeof(int)));
  CHECK(cudaMalloc(&d_col, m * sizeof(int) + 4));
  CHECK(cudaMalloc(&d_front, n));
  CHECK(cudaMalloc(&d_next, n));
  CHECK(cudaMalloc(&d_level, n * sizeof(int)));
  CHECK(cudaMalloc(&d_changed, sizeof(int)));
  CHECK(cudaMemcpy(d_row, g.row_ptr.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_col, g.col_idx.data(), m * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> level(n, -1);
  level[0] = 0;
  CHECK(cudaMemcpy(d_level, level.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_front, 0, n));
  CHECK(cudaMemset(d_next, 0, n));
  CHECK(cudaMemset(d_front, 1, 1));  // the source, vertex 0

  const unsigned block = 128, grid = unsigned((n + block - 1) / block);
  int depth = 0;
  for (;; ++depth) {
    // A BFS has at most n levels; more means the kernel keeps re-reporting changes.
    if (depth > n) {
      val::fail("bfs did not converge after %d levels", depth);
      return val::finish();
    }
    int changed = 0;
    CHECK(cudaMemcpy(d_changed, &changed, sizeof changed, cudaMemcpyHostToDevice));
    bfs_level<<<grid, block>>>(d_row, d_col, d_front, d_next, d_level, n, depth, d_changed);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(&changed, d_changed, sizeof changed, cudaMemcpyDeviceToHost));
    if (!changed) break;
    std::swap(d_front, d_next);  // the kernel cleared every flag of the old frontier
  }
  CHECK(cudaMemcpy(level.data(), d_level, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (void* p : {(void*)d_row, (void*)d_col, (void*)d_front, (void*)d_next, (void*)d_level, (void*)d_changed})
    CHECK(cudaFree(p));

  const std::vector<int> want = bfs_ref::levels(g, n, 0);
  int max_level = 0;
  for (int l : want) max_level = std::max(max_level, l);
  val::exact("levels", level.data(), want.data(), size_t(n));
  // One launch per level plus the last one, which finds nothing new.
  if (depth != max_level) val::fail("host loop ran %d launches, want %d", depth + 1, max_level + 1);
  return val::finish();
}
