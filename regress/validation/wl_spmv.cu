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
#include "../workloads/spmv/spmv_ref.h"

using spmv_ref::Csr;

int main() {
  // 1920 rows: the row-per-thread kernel has 15 blocks of 128 (one per SM);
  // the warp-per-row kernel runs 30 x 256 threads (240 warps < rows, so its
  // grid-stride loop is taken).
  int rows = 1920;
  const int cols = 1920;
  val::Rng rng(15);
  const Csr a = spmv_ref::make_matrix(rng, rows, cols);
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
    w1[r] = spmv_ref::row_scalar(a, x, r);
    w2[r] = spmv_ref::row_warp(a, x, r);
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
