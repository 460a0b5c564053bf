// CPU reference of pathfinder.cu: the cheapest top-to-bottom path cost ending
// in each column of the last row (a sequential DP over `rows` rows of `cols`
// costs); shared by the workload's driver (pathfinder.cpp) and its validation
// program (regress/validation/wl_pathfinder.cu).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pathfinder_ref {

inline std::vector<int32_t> last_row(const std::vector<int32_t>& cost, int rows, int cols) {
  std::vector<int32_t> cur(cost.begin(), cost.begin() + cols), next(cols);
  for (int r = 1; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      int32_t best = cur[c];
      if (c > 0) best = std::min(best, cur[c - 1]);
      if (c + 1 < cols) best = std::min(best, cur[c + 1]);
      next[c] = best + cost[size_t(r) * cols + c];
    }
    cur.swap(next);
  }
  return cur;
}

}  // namespace pathfinder_ref
