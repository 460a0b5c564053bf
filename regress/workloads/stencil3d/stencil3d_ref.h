// Host mirror of stencil3d.cu's stencil7, with the kernel's summation order;
// shared by the workload's driver (stencil3d.cpp) and its validation program
// (regress/validation/wl_stencil3d.cu).
#pragma once
#include <cmath>
#include <cstddef>
#include <vector>

namespace stencil3d_ref {

inline void step(const std::vector<float>& in, std::vector<float>& out, int nx, int ny, int nz, float c0, float c1) {
  const size_t plane = size_t(nx) * ny;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const size_t i = z * plane + size_t(y) * nx + x;
        if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
          out[i] = in[i];
          continue;
        }
        float s = in[i - 1] + in[i + 1];
        s += in[i - nx];
        s += in[i + nx];
        s += in[i - plane];
        s += in[i + plane];
        out[i] = std::fma(c1, s, c0 * in[i]);
      }
}

}  // namespace stencil3d_ref
