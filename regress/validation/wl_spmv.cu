// regress/workloads/spmv as a standalone CUDA program: the exact kernels
// (CSR SpMV, row-per-thread and warp-per-row with shuffles: irregular
// gathers and divergence), launched as the workload's driver launches them,
// at a validation size.
#define VAL_PROG "wl_spmv"
#include <algorithm>
#include <cmath>
#include <vector>

#include "val.h"
#include "../workloads/spmv/spmv.cu"

struct Csr {
  std::vector<int> row_ptr, col_idx;
  std::vector<float> vals;
};

// Row lengths: 1/16 empty, 1/16 long (64..255), the rest 1..24; columns
// sorted within a row (as in the workload's driver).
static Csr make_matrix(val::Rng& rng, int rows, int cols) {
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

static float ref_row_scalar(const Csr& a, const std::vector<float>& x, int r) {
  float sum = 0.f;
  for (int e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e) sum = std::fma(a.vals[e], x[a.col_idx[e]], sum);
  return sum;
}

// Lane partials, then the shuffle-down tree (lane l < off adds lane l+off).
static float ref_row_warp(const Csr& a, const std::vector<float>& x, int r) {
  float p[32];
  for (int l = 0; l < 32; ++l) {
    p[l] = 0.f;
    for (int e = a.row_ptr[r] + l; e < a.row_ptr[r + 1]; e += 32) p[l] = std::fma(a.vals[e], x[a.col_idx[e]], p[l]);
  }
  for (int off = 16; off > 0; off >>= 1)
    for (int l = 0; l < off; ++l) p[l] = p[l] + p[l + off];
  return p[0];
}

int main() {
  // 1920 rows: the row-per-thread kernel has 15 blocks of 128 (one per SM);
  // the warp-per-row kernel runs 30 x 256 threads (240 warps < rows, so its
  // grid-stride loop is taken).
  int rows = 1920;
  const int cols = 1920;
  val::Rng rng(15);
  const Csr a = make_matrix(rng, rows, cols);
  std::vector<float> x(cols);
  for (auto& v : x) v = rng.uniform(-1.f, 1.f);
  const size_t nnz = a.vals.size();

  int *d_row, *d_col;
  float *d_val, *d_x, *d_y1, *d_y2;
  CHECK(cudaMalloc(&d_row, (rows + 1) * sizeof(int)));
  CHECK(cudaMalloc(&d_col, nnz * sizeof(int) + 4));
  CHECK(cudaMalloc(&d_val, nnz * sizeof(float) + 4));
  CHECK(cudaMalloc(&d_x, cols * sizeof(float)));
  CHECK(cudaMalloc(&d_y1, rows * sizeof(float)));
  CHECK(cudaMalloc(&d_y2, rows * sizeof(float)));
  CHECK(cudaMemcpy(d_row, a.row_ptr.data(), (rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_col, a.col_idx.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_val, a.vals.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_x, x.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_y1, 0xff, rows * sizeof(float)));  // NaN: a row never written cannot pass
  CHECK(cudaMemset(d_y2, 0xff, rows * sizeof(float)));

  spmv_csr_scalar<<<(rows + 127) / 128, 128>>>(rows, d_row, d_col, d_val, d_x, d_y1);
  CHECK_LAUNCH();
  spmv_csr_warp<<<30, 256>>>(rows, d_row, d_col, d_val, d_x, d_y2);
  CHECK_LAUNCH();
  std::vector<float> y1(rows), y2(rows), w1(rows), w2(rows);
  CHECK(cudaMemcpy(y1.data(), d_y1, rows * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(y2.data(), d_y2, rows * sizeof(float), cudaMemcpyDeviceToHost));
  for (void* p : {(void*)d_row, (void*)d_col, (void*)d_val, (void*)d_x, (void*)d_y1, (void*)d_y2}) CHECK(cudaFree(p));

  double max_mag = 0;
  for (int r = 0; r < rows; ++r) {
    w1[r] = ref_row_scalar(a, x, r);
    w2[r] = ref_row_warp(a, x, r);
    double mag = 0;
    for (int e = a.row_ptr[r]; e < a.row_ptr[r + 1]; ++e) mag += std::fabs(a.vals[e] * x[a.col_idx[e]]);
    max_mag = std::max(max_mag, mag);
  }
  // Each reference repeats its kernel's order (fma chain; lane partials and
  // shuffle tree): bit-identical under IEEE rounding. As in the workload's
  // driver, 1e-6 relative + 1e-6 absolute (values are O(1)) forgives a
  // double-rounded fma; val::fma_slack of the largest row's sum of |terms|
  // (~1e-5) also admits a simulator with unfused fma. A lost or wrong
  // product moves a row by ~1e-3 or more.
  const double tol = 1e-6 + val::fma_slack(max_mag);
  val::close("row-per-thread y", y1.data(), w1.data(), rows, 1e-6, tol);
  val::close("warp-per-row y", y2.data(), w2.data(), rows, 1e-6, tol);
  return val::finish();
}
