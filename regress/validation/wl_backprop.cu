// regress/workloads/backprop as a standalone CUDA program: the exact kernels
// (bp_forward: shared-memory partial sums of 16 input rows; bp_finish:
// sigmoid via expf; bp_adjust: weight update with momentum), launched as the
// workload's driver launches them (two epochs of forward, finish, adjust), at
// a validation size. bp_finish is one 16-thread block, as in the workload.
#define VAL_PROG "wl_backprop"
#include <cstdint>
#include <vector>

#include "val.h"
#include "../workloads/backprop/backprop.cu"
#include "../workloads/backprop/backprop_ref.h"

int main() {
  // 4,096 inputs: bp_forward and bp_adjust run 256 and 257 blocks of 16x16
  // threads, 6 launches in all.
  const int n_in = 4096, epochs = 2;
  float eta = 0.3f, momentum = 0.3f;
  int nrows = n_in + 1, nblocks = n_in / ROWS;
  val::Rng rng(18);
  const backprop_ref::Net net = backprop_ref::make_net(rng, n_in, epochs);
  const auto &w = net.w, &w_out = net.w_out;
  const auto& inputs = net.inputs;
  const auto& targets = net.targets;

  const size_t wbytes = w.size() * 4;
  float *d_in, *d_w, *d_dw, *d_partial, *d_hidden, *d_delta;
  CHECK(cudaMalloc(&d_in, size_t(nrows) * 4));
  CHECK(cudaMalloc(&d_w, wbytes));
  CHECK(cudaMalloc(&d_dw, wbytes));
  CHECK(cudaMalloc(&d_partial, size_t(nblocks) * HIDDEN * 4));
  CHECK(cudaMalloc(&d_hidden, HIDDEN * 4));
  CHECK(cudaMalloc(&d_delta, HIDDEN * 4));
  CHECK(cudaMemcpy(d_w, w.data(), wbytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_dw, 0, wbytes));
  std::vector<float> w_ref = w, dw_ref(w.size(), 0.0f), h_gpu(HIDDEN), h_ref(HIDDEN), delta_gpu(HIDDEN),
                     delta_ref(HIDDEN);
  // The kernels' sums follow the reference's order exactly; expf (a couple
  // of ulp), an unfused fma (val.h) and their propagation through the deltas
  // into the next epoch differ: 1e-5 relative is ~100x that.
  const double rel = 1e-5, abs_tol = 1e-6;
  const dim3 block(HIDDEN, ROWS);
  for (int e = 0; e < epochs; ++e) {
    CHECK(cudaMemcpy(d_in, inputs[e].data(), size_t(nrows) * 4, cudaMemcpyHostToDevice));
    bp_forward<<<nblocks, block>>>(d_in, d_w, d_partial);
    CHECK_LAUNCH();
    bp_finish<<<1, HIDDEN>>>(d_partial, nblocks, d_w, d_hidden);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(h_gpu.data(), d_hidden, HIDDEN * 4, cudaMemcpyDeviceToHost));
    backprop_ref::forward(inputs[e], w_ref, n_in, h_ref);
    if (!val::close("hidden activations", h_gpu.data(), h_ref.data(), HIDDEN, rel, abs_tol)) return val::finish();
    backprop_ref::hidden_delta(h_gpu, w_out, targets[e], delta_gpu);
    backprop_ref::hidden_delta(h_ref, w_out, targets[e], delta_ref);
    CHECK(cudaMemcpy(d_delta, delta_gpu.data(), HIDDEN * 4, cudaMemcpyHostToDevice));
    bp_adjust<<<(nrows + ROWS - 1) / ROWS, block>>>(d_delta, d_in, d_w, d_dw, nrows, eta, momentum);
    CHECK_LAUNCH();
    backprop_ref::adjust(delta_ref, inputs[e], w_ref, dw_ref, eta, momentum);
  }
  std::vector<float> w_gpu(w.size());
  CHECK(cudaMemcpy(w_gpu.data(), d_w, wbytes, cudaMemcpyDeviceToHost));
  for (float* p : {d_in, d_w, d_dw, d_partial, d_hidden, d_delta}) CHECK(cudaFree(p));
  val::close("weights", w_gpu.data(), w_ref.data(), w.size(), rel, abs_tol);
  return val::finish();
}
