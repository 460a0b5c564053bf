// CPU side of spmv.cu: the test matrix and host mirrors of both kernels'
// summation orders; shared by the workload's driver (spmv.cpp) and its
// validation program (regress/validation/wl_spmv.cu).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace spmv_ref {

struct Csr {
  std::vector<int> row_ptr, col_idx;
  std::vector<float> vals;
};

// Row lengths: 1/16 empty, 1/16 long (64..255), the rest 1..24. Columns are
// sorted within a row, as CSR producers usually emit them. Rng: any generator
// with below(n) and uniform(lo, hi).
template <class Rng>
Csr make_matrix(Rng& rng, int rows, int cols) {
  Csr a;
  a.row_ptr.push_back(0);
  for (int r = 0; r < rows; ++r) {
    const uint32_t kind = rng.below(16);
    const int len = kind == 0 ? 0 : kind == 1 ? 64 + int(rng.below(192)) : 1 + int(rng.below(24));
    std::vector<int> c(len);
    for (auto& v : c) v = int(rng.below(uint32_t(cols)));
    std::sort(c.begin(), c.end());
    for (int v : c) {
      a.col_idx.push_back(v);
      a.vals.push_back(rng.uniform(-1.f, 1.f));
    }
    a.row_ptr.push_back(int(a.col_idx.size()));
  }
  return a;
}

// spmv_scalar: one thread walks the row.
inline float row_scalar(const Csr& a, const std::vector<float>& x, int r) {
  float sum = 0.f;
  for (int e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e) sum = std::fma(a.vals[e], x[a.col_idx[e]], sum);
  return sum;
}

// spmv_warp: lane partials, then the shuffle-down tree: at each offset lane
// l < off adds lane l+off (lanes >= off compute values lane 0 never reads).
inline float row_warp(const Csr& a, const std::vector<float>& x, int r) {
  float p[32];
  for (int l = 0; l < 32; ++l) {
    p[l] = 0.f;
    for (int e = a.row_ptr[r] + l; e < a.row_ptr[r + 1]; e += 32) p[l] = std::fma(a.vals[e], x[a.col_idx[e]], p[l]);
  }
  for (int off = 16; off > 0; off >>= 1)
    for (int l = 0; l < off; ++l) p[l] = p[l] + p[l + off];
  return p[0];
}

}  // namespace spmv_ref
