// bfs: level-synchronous breadth-first search on a random directed graph in
// CSR form, one launch per level until no vertex changes (irregular memory
// access, divergent loops). Output: the level of every vertex, exact.
#include <algorithm>
#include <deque>
#include <utility>
#include <vector>

#include "bfs_ref.h"
#include "workload.h"

namespace {

using namespace relgpu;
using runtime::DevPtr;
using runtime::Dim3;
using bfs_ref::Csr;

wl::Result run(wl::Context& ctx) {
  const bool small = ctx.size == wl::Size::small;
  // small: 800 vertices (~3k edges, ~8 levels, ~2.5e5 thread
  // instructions); default: 160k vertices (~600k edges, ~8e7).
  int n = small ? 800 : 160000;
  wl::Rng rng(ctx.seed);
  const Csr g = bfs_ref::make_graph(rng, n);
  const size_t m = g.col_idx.size();
  ctx.log << "bfs: " << n << " vertices, " << m << " edges\n";

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  const auto& k = dev.kernel(mod, "bfs_level");
  DevPtr d_row = dev.malloc((n + 1) * sizeof(int)), d_col = dev.malloc(m * sizeof(int) + 4);  // +4: never a 0-byte malloc
  DevPtr d_front = dev.malloc(n), d_next = dev.malloc(n), d_level = dev.malloc(n * sizeof(int));
  DevPtr d_changed = dev.malloc(sizeof(int));
  dev.memcpy_to_device(d_row, g.row_ptr.data(), (n + 1) * sizeof(int));
  dev.memcpy_to_device(d_col, g.col_idx.data(), m * sizeof(int));
  std::vector<int> level(n, -1);
  level[0] = 0;
  dev.memcpy_to_device(d_level, level.data(), n * sizeof(int));
  dev.memset(d_front, 0, n);
  dev.memset(d_next, 0, n);
  dev.memset(d_front, 1, 1);  // the source, vertex 0

  const uint32_t block = 128;
  const Dim3 grid{uint32_t((n + block - 1) / block)};
  int depth = 0;
  for (;; ++depth) {
    // A BFS has at most n levels; more means the kernel keeps re-reporting
    // changes, which must fail rather than loop forever.
    if (depth > n) return {false, "bfs did not converge after " + std::to_string(depth) + " levels"};
    int changed = 0;
    dev.memcpy_to_device(d_changed, &changed, sizeof changed);
    void* args[] = {&d_row, &d_col, &d_front, &d_next, &d_level, &n, &depth, &d_changed};
    dev.launch(k, grid, Dim3{block}, 0, args);
    dev.memcpy_to_host(&changed, d_changed, sizeof changed);
    if (!changed) break;
    std::swap(d_front, d_next);  // the kernel cleared every flag of the old frontier
  }
  dev.synchronize();
  dev.memcpy_to_host(level.data(), d_level, n * sizeof(int));
  for (DevPtr p : {d_row, d_col, d_front, d_next, d_level, d_changed}) dev.free(p);

  const std::vector<int> want = bfs_ref::levels(g, n, 0);
  int reached = 0, max_level = 0;
  for (int l : want)
    if (l >= 0) ++reached, max_level = std::max(max_level, l);
  std::string msg;
  if (wl::compare_exact(level.data(), want.data(), size_t(n), msg) >= 0) return {false, "levels: " + msg};
  // The last launch finds nothing new: one launch per level plus that one.
  if (depth != max_level)
    return {false, "levels match but the host loop ran " + std::to_string(depth + 1) + " launches, want " +
                       std::to_string(max_level + 1)};
  return {true, "bfs " + std::to_string(n) + " vertices, " + std::to_string(reached) + " reached in " +
                    std::to_string(max_level) + " levels: " + msg};
}

}  // namespace

RELGPU_WORKLOAD(bfs, "level-synchronous BFS on a random CSR graph, one launch per level (irregular, divergent)", run);
