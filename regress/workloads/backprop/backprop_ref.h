// CPU reference of backprop.cu's arithmetic, in the kernels' order; shared by
// the workload's driver (backprop.cpp) and its validation program
// (regress/validation/wl_backprop.cu).
#pragma once
#include <cmath>
#include <cstddef>
#include <vector>

namespace backprop_ref {

constexpr int kHidden = 16;  // HIDDEN in backprop.cu (also blockDim.x)
constexpr int kRows = 16;    // ROWS in backprop.cu (input rows per bp_forward block)

struct Net {
  std::vector<float> w, w_out;               // (n_in + 1) x kHidden (row 0: bias), kHidden + 1 (last: bias)
  std::vector<std::vector<float>> inputs;    // per epoch, n_in + 1 values (input 0 is the bias, 1.0)
  std::vector<float> targets;                // per epoch
};

// Weights in [-0.05, 0.05), output weights in [-1, 1), inputs and targets in
// [0, 1); drawn in that order. Rng: any generator with uniform(lo, hi), unit().
template <class Rng>
Net make_net(Rng& rng, int n_in, int epochs) {
  const size_t nrows = size_t(n_in) + 1;
  Net net{std::vector<float>(nrows * kHidden), std::vector<float>(kHidden + 1),
          std::vector<std::vector<float>>(epochs, std::vector<float>(nrows)), std::vector<float>(epochs)};
  for (auto& v : net.w) v = rng.uniform(-0.05f, 0.05f);
  for (auto& v : net.w_out) v = rng.uniform(-1.0f, 1.0f);
  for (int e = 0; e < epochs; ++e) {
    net.inputs[e][0] = 1.0f;
    for (size_t r = 1; r < nrows; ++r) net.inputs[e][r] = rng.unit();
    net.targets[e] = rng.unit();
  }
  return net;
}

// Hidden activations as the kernels compute them: per block of kRows rows the
// products w*x summed by a halving tree, the bias plus the block partials
// summed in block order, then 1 / (1 + exp(-sum)).
inline void forward(const std::vector<float>& in, const std::vector<float>& w, int n_in, std::vector<float>& hidden) {
  const int nblocks = n_in / kRows;
  for (int j = 0; j < kHidden; ++j) {
    float sum = w[j];
    for (int b = 0; b < nblocks; ++b) {
      float prod[kRows];
      for (int r = 0; r < kRows; ++r) {
        size_t row = size_t(b) * kRows + r + 1;
        prod[r] = w[row * kHidden + j] * in[row];
      }
      for (int half = kRows / 2; half > 0; half /= 2)
        for (int r = 0; r < half; ++r) prod[r] += prod[r + half];
      sum += prod[0];
    }
    hidden[j] = 1.0f / (1.0f + std::exp(-sum));
  }
}

// Output unit and hidden deltas (host side in both paths, in double).
inline void hidden_delta(const std::vector<float>& hidden, const std::vector<float>& w_out, float target,
                         std::vector<float>& delta) {
  double s = w_out[kHidden];  // output bias
  for (int j = 0; j < kHidden; ++j) s += double(hidden[j]) * w_out[j];
  double y = 1.0 / (1.0 + std::exp(-s));
  double d_out = y * (1.0 - y) * (target - y);
  for (int j = 0; j < kHidden; ++j) delta[j] = float(hidden[j] * (1.0 - hidden[j]) * w_out[j] * d_out);
}

// bp_adjust's arithmetic: dw = fma(eta * delta, x, momentum * prev_dw).
inline void adjust(const std::vector<float>& delta, const std::vector<float>& in, std::vector<float>& w,
                   std::vector<float>& prev_dw, float eta, float momentum) {
  for (size_t row = 0; row < in.size(); ++row)
    for (int j = 0; j < kHidden; ++j) {
      size_t idx = row * kHidden + j;
      float dw = std::fma(eta * delta[j], in[row], momentum * prev_dw[idx]);
      w[idx] += dw;
      prev_dw[idx] = dw;
    }
}

}  // namespace backprop_ref
