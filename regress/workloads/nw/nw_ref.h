// CPU reference of nw.cu: the Needleman-Wunsch score matrix ((n+1) x (n+1),
// linear gap penalty); shared by the workload's driver (nw.cpp) and its
// validation program (regress/validation/wl_nw.cu).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nw_ref {

struct Input {
  std::vector<uint8_t> a, b;    // the two sequences, letters in [0, alphabet)
  std::vector<int32_t> subst;   // alphabet x alphabet, symmetric
};

// b is a mutated copy of a, so the best alignment is mostly diagonal; the
// substitution table rewards matches (4..7) over mismatches (-4..2).
// Rng: any generator with below(n).
template <class Rng>
Input make_input(Rng& rng, int n, int alphabet) {
  Input in{std::vector<uint8_t>(n), std::vector<uint8_t>(n), std::vector<int32_t>(size_t(alphabet) * alphabet)};
  for (auto& c : in.a) c = uint8_t(rng.below(alphabet));
  for (int i = 0; i < n; ++i) in.b[i] = rng.below(4) == 0 ? uint8_t(rng.below(alphabet)) : in.a[i];
  for (int x = 0; x < alphabet; ++x)
    for (int y = 0; y <= x; ++y) {
      int v = x == y ? 4 + int(rng.below(4)) : int(rng.below(7)) - 4;
      in.subst[x * alphabet + y] = in.subst[y * alphabet + x] = v;
    }
  return in;
}

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
