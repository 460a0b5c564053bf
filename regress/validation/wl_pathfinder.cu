// regress/workloads/pathfinder as a standalone CUDA program: the exact kernel
// (several DP rows per launch in shared memory, ghost columns, int min),
// launched as the workload's driver launches it (up to 10 rows a launch,
// ping-pong row buffers), at a validation size.
#define VAL_PROG "wl_pathfinder"
#include <algorithm>
#include <cstdint>
#include <vector>

#include "val.h"
#include "../workloads/pathfinder/pathfinder.cu"
#include "../workloads/pathfinder/pathfinder_ref.h"

int main() {
  // 31 rows of 6,000 columns: row 0 and three launches of 10 rows; blocks of
  // 256 threads complete 236 columns each (26 blocks, all 15 SMs).
  int cols = 6000;
  const int rows = 31, steps_per_launch = 10;
  const unsigned block = 256;  // <= PF_MAX_BLOCK, > 2 * steps
  val::Rng rng(16);
  std::vector<int> cost(size_t(rows) * cols);
  for (auto& v : cost) v = int(rng.below(10));
  const std::vector<int> want = pathfinder_ref::last_row(cost, rows, cols);

  const size_t row_bytes = size_t(cols) * 4;
  int *d_cost, *buf[2];
  CHECK(cudaMalloc(&d_cost, cost.size() * 4));
  CHECK(cudaMalloc(&buf[0], row_bytes));
  CHECK(cudaMalloc(&buf[1], row_bytes));
  CHECK(cudaMemcpy(d_cost, cost.data(), cost.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(buf[0], d_cost, row_bytes, cudaMemcpyDeviceToDevice));  // row 0's cost is its own
  int cur = 0;
  for (int start = 1; start < rows; start += steps_per_launch) {
    const int steps = std::min(steps_per_launch, rows - start);
    const unsigned span = block - 2 * unsigned(steps);  // columns each block completes
    pathfinder_rows<<<(unsigned(cols) + span - 1) / span, block>>>(d_cost, buf[cur], buf[1 - cur], cols, start,
                                                                   steps);
    CHECK_LAUNCH();
    cur = 1 - cur;
  }
  std::vector<int> got(cols);
  CHECK(cudaMemcpy(got.data(), buf[cur], row_bytes, cudaMemcpyDeviceToHost));
  for (int* p : {d_cost, buf[0], buf[1]}) CHECK(cudaFree(p));
  val::exact("last-row path costs", got.data(), want.data(), size_t(cols));
  return val::finish();
}
