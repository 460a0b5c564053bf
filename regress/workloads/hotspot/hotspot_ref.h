// Host mirror of hotspot.cu's hotspot_step; shared by the workload's driver
// (hotspot.cpp) and its validation program (regress/validation/wl_hotspot.cu).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace hotspot_ref {

struct Chip {
  int rows, cols;
  float cap_inv, rx_inv, ry_inv, rz_inv, ambient;
};

// One step, in the kernel's order: nvcc emits
//   flow = fma((n+s) - 2c, ry, power); flow = fma((w+e) - 2c, rx, flow);
//   flow = fma(amb - c, rz, flow);     out = fma(flow, cap, c).
inline void step(const Chip& p, const std::vector<float>& t, const std::vector<float>& power,
                 std::vector<float>& out) {
  auto at = [&](int y, int x) {
    y = std::min(std::max(y, 0), p.rows - 1);
    x = std::min(std::max(x, 0), p.cols - 1);
    return t[size_t(y) * p.cols + x];
  };
  for (int y = 0; y < p.rows; ++y)
    for (int x = 0; x < p.cols; ++x) {
      float c = at(y, x), two_c = c + c;
      float flow = std::fma((at(y - 1, x) + at(y + 1, x)) - two_c, p.ry_inv, power[size_t(y) * p.cols + x]);
      flow = std::fma((at(y, x - 1) + at(y, x + 1)) - two_c, p.rx_inv, flow);
      flow = std::fma(p.ambient - c, p.rz_inv, flow);
      out[size_t(y) * p.cols + x] = std::fma(flow, p.cap_inv, c);
    }
}

}  // namespace hotspot_ref
