// CPU side of bfs.cu: the test graph and a sequential BFS; shared by the
// workload's driver (bfs.cpp) and its validation program
// (regress/validation/wl_bfs.cu).
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

namespace bfs_ref {

struct Csr {
  std::vector<int> row_ptr, col_idx;
};

// Mostly low out-degree (0..5) with a few hubs (16..63 edges), so warps mix
// idle, short and long loops. Vertex 0 (the source) always gets 8 edges.
// Rng: any generator with below(n).
template <class Rng>
Csr make_graph(Rng& rng, int n) {
  Csr g;
  g.row_ptr.reserve(n + 1);
  g.row_ptr.push_back(0);
  for (int v = 0; v < n; ++v) {
    int deg = v == 0 ? 8 : rng.below(32) == 0 ? 16 + int(rng.below(48)) : int(rng.below(6));
    for (int e = 0; e < deg; ++e) g.col_idx.push_back(int(rng.below(uint32_t(n))));
    g.row_ptr.push_back(int(g.col_idx.size()));
  }
  return g;
}

// Every vertex's level from src (-1: unreachable).
inline std::vector<int> levels(const Csr& g, int n, int src) {
  std::vector<int> level(n, -1);
  std::deque<int> q{src};
  level[src] = 0;
  while (!q.empty()) {
    int v = q.front();
    q.pop_front();
    for (int e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e)
      if (level[g.col_idx[e]] < 0) {
        level[g.col_idx[e]] = level[v] + 1;
        q.push_back(g.col_idx[e]);
      }
  }
  return level;
}

}  // namespace bfs_ref
