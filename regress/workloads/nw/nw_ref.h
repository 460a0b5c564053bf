// CPU reference of nw.cu: the Needleman-Wunsch score matrix ((n+1) x (n+1),
// linear gap penalty); shared by the workload's driver (nw.cpp) and its
// validation program (regress/validation/wl_nw.cu).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nw_ref {

// The matrix with only its borders set (row 0 and column 0: -i * gap), as the
// kernels receive it.
inline std::vector<int32_t> borders(int n, int gap) {
  const size_t width = size_t(n) + 1;
  std::vector<int32_t> m(width * width, 0);
  for (size_t i = 0; i < width; ++i) m[i * width] = m[i] = -int32_t(i) * gap;
  return m;
}

// The whole matrix, filled row by row from borders(n, gap).
inline std::vector<int32_t> scores(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                                   const std::vector<int32_t>& subst, int alphabet, int n, int gap) {
  const size_t width = size_t(n) + 1;
  std::vector<int32_t> m = borders(n, gap);
  for (size_t i = 1; i < width; ++i)
    for (size_t j = 1; j < width; ++j) {
      int32_t d = m[(i - 1) * width + j - 1] + subst[a[i - 1] * alphabet + b[j - 1]];
      int32_t up = m[(i - 1) * width + j] - gap, left = m[i * width + j - 1] - gap;
      m[i * width + j] = std::max(d, std::max(up, left));
    }
  return m;
}

}  // namespace nw_ref
