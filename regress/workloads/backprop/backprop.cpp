// Host driver for backprop.cu: a few training steps of the input -> hidden
// layer of a perceptron (n_in inputs, 16 sigmoid hidden units, one output
// unit kept on the host). Per epoch: bp_forward + bp_finish give the hidden
// activations, the host back-propagates the output error to hidden deltas,
// bp_adjust updates the weights with momentum. A CPU reference repeats the
// same arithmetic in the kernels' order.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "backprop_ref.h"
#include "workload.h"

namespace relgpu::wl {
namespace {

using backprop_ref::kHidden;
using backprop_ref::kRows;

Result run_backprop(Context& ctx) {
  const bool small = ctx.size == Size::small;
  const int n_in = small ? 96 : 32768;  // a multiple of kRows
  const int epochs = 2;
  float eta = 0.3f, momentum = 0.3f;
  int nrows = n_in + 1;
  int nblocks = n_in / kRows;

  Rng rng(ctx.seed);
  const backprop_ref::Net net = backprop_ref::make_net(rng, n_in, epochs);
  const auto &w = net.w, &w_out = net.w_out;
  const auto& inputs = net.inputs;
  const auto& targets = net.targets;

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  const auto& k_fwd = dev.kernel(mod, "bp_forward");
  const auto& k_fin = dev.kernel(mod, "bp_finish");
  const auto& k_adj = dev.kernel(mod, "bp_adjust");
  const size_t wbytes = w.size() * 4;
  runtime::DevPtr d_in = dev.malloc(size_t(nrows) * 4), d_w = dev.malloc(wbytes), d_dw = dev.malloc(wbytes),
                  d_partial = dev.malloc(size_t(nblocks) * kHidden * 4), d_hidden = dev.malloc(kHidden * 4),
                  d_delta = dev.malloc(kHidden * 4);
  dev.memcpy_to_device(d_w, w.data(), wbytes);
  dev.memset(d_dw, 0, wbytes);

  std::vector<float> w_ref = w, dw_ref(w.size(), 0.0f), h_gpu(kHidden), h_ref(kHidden), delta_gpu(kHidden),
                     delta_ref(kHidden);
  // Tolerances: the kernels' sums follow the reference's order exactly; what
  // differs is expf (ex2.approx-based, a couple of ulp) and then the
  // propagation of that through the deltas into later epochs: 1e-5
  // relative is ~100x that.
  const double rel = 1e-5, abs_tol = 1e-6;
  for (int e = 0; e < epochs; ++e) {
    dev.memcpy_to_device(d_in, inputs[e].data(), size_t(nrows) * 4);
    void* f_args[] = {&d_in, &d_w, &d_partial};
    dev.launch(k_fwd, {uint32_t(nblocks), 1, 1}, {kHidden, kRows, 1}, 0, f_args);
    void* h_args[] = {&d_partial, &nblocks, &d_w, &d_hidden};
    dev.launch(k_fin, {1, 1, 1}, {kHidden, 1, 1}, 0, h_args);
    dev.memcpy_to_host(h_gpu.data(), d_hidden, kHidden * 4);

    backprop_ref::forward(inputs[e], w_ref, n_in, h_ref);
    std::string msg;
    if (compare_floats(h_gpu.data(), h_ref.data(), kHidden, rel, abs_tol, msg) >= 0)
      return {false, "epoch " + std::to_string(e) + ", hidden activations: " + msg};

    backprop_ref::hidden_delta(h_gpu, w_out, targets[e], delta_gpu);
    backprop_ref::hidden_delta(h_ref, w_out, targets[e], delta_ref);
    dev.memcpy_to_device(d_delta, delta_gpu.data(), kHidden * 4);
    void* a_args[] = {&d_delta, &d_in, &d_w, &d_dw, &nrows, &eta, &momentum};
    dev.launch(k_adj, {uint32_t((nrows + kRows - 1) / kRows), 1, 1}, {kHidden, kRows, 1}, 0, a_args);
    backprop_ref::adjust(delta_ref, inputs[e], w_ref, dw_ref, eta, momentum);
  }
  dev.synchronize();
  std::vector<float> w_gpu(w.size());
  dev.memcpy_to_host(w_gpu.data(), d_w, wbytes);
  for (auto p : {d_in, d_w, d_dw, d_partial, d_hidden, d_delta}) dev.free(p);
  ctx.log << "backprop: inputs=" << n_in << " hidden=" << kHidden << " epochs=" << epochs << "\n";

  std::string msg;
  bool ok = compare_floats(w_gpu.data(), w_ref.data(), w.size(), rel, abs_tol, msg) < 0;
  return {ok, std::to_string(epochs) + " epochs, hidden activations within tolerance; weights: " + msg};
}

}  // namespace

RELGPU_WORKLOAD(backprop, "perceptron layer training: shared-memory partial sums, sigmoid via expf, weight update",
                run_backprop);

}  // namespace relgpu::wl
