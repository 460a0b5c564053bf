// spmv: CSR y = A*x with rows of very different lengths, once with a thread
// per row and once with a warp per row (shuffle reduction). Both results are
// checked against host mirrors of their own summation order.
#include <algorithm>
#include <cmath>
#include <vector>

#include "spmv_ref.h"
#include "workload.h"

namespace {

using namespace relgpu;
using runtime::DevPtr;
using runtime::Dim3;
using spmv_ref::Csr;

wl::Result run(wl::Context& ctx) {
  const bool small = ctx.size == wl::Size::small;
  // small: 120 rows (~2.5e5 thread instructions, mostly the warp kernel);
  // default: 40000 rows (~8e7).
  int rows = small ? 120 : 40000;
  const int cols = small ? 300 : 40000;
  wl::Rng rng(ctx.seed);
  const Csr a = spmv_ref::make_matrix(rng, rows, cols);
  std::vector<float> x(cols);
  for (auto& v : x) v = rng.uniform(-1.f, 1.f);
  const size_t nnz = a.vals.size();
  ctx.log << "spmv: " << rows << "x" << cols << ", " << nnz << " nonzeros\n";

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  const auto& k_scalar = dev.kernel(mod, "spmv_csr_scalar");
  const auto& k_warp = dev.kernel(mod, "spmv_csr_warp");
  DevPtr d_row = dev.malloc((rows + 1) * sizeof(int));
  DevPtr d_col = dev.malloc(nnz * sizeof(int) + 4), d_val = dev.malloc(nnz * sizeof(float) + 4);  // +4: never 0 bytes
  DevPtr d_x = dev.malloc(cols * sizeof(float));
  DevPtr d_y1 = dev.malloc(rows * sizeof(float)), d_y2 = dev.malloc(rows * sizeof(float));
  dev.memcpy_to_device(d_row, a.row_ptr.data(), (rows + 1) * sizeof(int));
  dev.memcpy_to_device(d_col, a.col_idx.data(), nnz * sizeof(int));
  dev.memcpy_to_device(d_val, a.vals.data(), nnz * sizeof(float));
  dev.memcpy_to_device(d_x, x.data(), cols * sizeof(float));
  dev.memset(d_y1, 0xff, rows * sizeof(float));  // NaN: a row never written cannot pass
  dev.memset(d_y2, 0xff, rows * sizeof(float));

  void* s_args[] = {&rows, &d_row, &d_col, &d_val, &d_x, &d_y1};
  dev.launch(k_scalar, Dim3{uint32_t((rows + 127) / 128)}, Dim3{128}, 0, s_args);
  // Fewer warps than rows, so the warp kernel's grid-stride loop is taken.
  void* w_args[] = {&rows, &d_row, &d_col, &d_val, &d_x, &d_y2};
  dev.launch(k_warp, Dim3{small ? 8u : 256u}, Dim3{small ? 128u : 256u}, 0, w_args);
  dev.synchronize();
  std::vector<float> y1(rows), y2(rows);
  dev.memcpy_to_host(y1.data(), d_y1, rows * sizeof(float));
  dev.memcpy_to_host(y2.data(), d_y2, rows * sizeof(float));
  for (DevPtr p : {d_row, d_col, d_val, d_x, d_y1, d_y2}) dev.free(p);

  std::vector<float> w1(rows), w2(rows);
  for (int r = 0; r < rows; ++r) {
    w1[r] = spmv_ref::row_scalar(a, x, r);
    w2[r] = spmv_ref::row_warp(a, x, r);
  }
  // Each reference repeats its kernel's order (fma chain; lane partials and
  // shuffle tree), so IEEE rounding makes them bit-identical. 1e-6 relative
  // and 1e-6 absolute (values are O(1)) only forgive a double-rounded fma;
  // a lost or wrong product moves a row by ~1e-3 or more.
  std::string msg;
  if (wl::compare_floats(y1.data(), w1.data(), rows, 1e-6, 1e-6, msg) >= 0) return {false, "row-per-thread y: " + msg};
  if (wl::compare_floats(y2.data(), w2.data(), rows, 1e-6, 1e-6, msg) >= 0) return {false, "warp-per-row y: " + msg};
  return {true, "spmv " + std::to_string(rows) + " rows, " + std::to_string(nnz) + " nonzeros, both kernels: " + msg};
}

}  // namespace

RELGPU_WORKLOAD(spmv, "CSR sparse matrix-vector product, row-per-thread and warp-per-row with shuffles (irregular, f32)", run);
