// Host driver for pathfinder.cu: cheapest top-to-bottom path through a grid
// of cell costs, moving down to one of three neighbours each row. Each launch
// advances up to `steps` rows (the last launch fewer), ping-ponging two row
// buffers; the final row is compared with a sequential DP.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "pathfinder_ref.h"
#include "workload.h"

namespace relgpu::wl {
namespace {

Result run_pathfinder(Context& ctx) {
  const bool small = ctx.size == Size::small;
  int cols = small ? 300 : 20000;
  const int rows = small ? 14 : 96;  // row 0 plus 13 / 95 rows of steps
  const int steps_per_launch = small ? 8 : 10;
  const uint32_t block = small ? 128 : 256;  // <= PF_MAX_BLOCK in pathfinder.cu, > 2 * steps

  Rng rng(ctx.seed);
  std::vector<int32_t> cost(size_t(rows) * cols);
  for (auto& v : cost) v = int32_t(rng.below(10));

  const std::vector<int32_t> want = pathfinder_ref::last_row(cost, rows, cols);

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  const auto& k = dev.kernel(mod, "pathfinder_rows");
  const size_t row_bytes = size_t(cols) * 4;
  runtime::DevPtr d_cost = dev.malloc(cost.size() * 4);
  runtime::DevPtr buf[2] = {dev.malloc(row_bytes), dev.malloc(row_bytes)};
  dev.memcpy_to_device(d_cost, cost.data(), cost.size() * 4);
  dev.memcpy_device(buf[0], d_cost, row_bytes);  // row 0's best cost is its own cost
  int cur = 0, launches = 0;
  for (int start = 1; start < rows; start += steps_per_launch, ++launches) {
    int steps = std::min(steps_per_launch, rows - start);
    const uint32_t span = block - 2 * uint32_t(steps);  // columns each block completes
    const uint32_t grid = (uint32_t(cols) + span - 1) / span;
    void* args[] = {&d_cost, &buf[cur], &buf[1 - cur], &cols, &start, &steps};
    dev.launch(k, {grid, 1, 1}, {block, 1, 1}, 0, args);
    cur = 1 - cur;
  }
  dev.synchronize();
  std::vector<int32_t> got(cols);
  dev.memcpy_to_host(got.data(), buf[cur], row_bytes);
  for (auto p : {d_cost, buf[0], buf[1]}) dev.free(p);
  ctx.log << "pathfinder: " << rows << "x" << cols << " steps/launch=" << steps_per_launch << " launches=" << launches
          << "\n";

  std::string msg;
  bool ok = compare_exact(got.data(), want.data(), size_t(cols), msg) < 0;
  const int32_t best = *std::min_element(want.begin(), want.end());
  return {ok, "last-row path costs (best " + std::to_string(best) + "): " + msg};
}

}  // namespace

RELGPU_WORKLOAD(pathfinder, "row dynamic program: several rows per launch in shared memory, ghost columns, int min",
                run_pathfinder);

}  // namespace relgpu::wl
