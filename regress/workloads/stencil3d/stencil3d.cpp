// stencil3d: several Jacobi steps of a 7-point stencil over a 3-D volume,
// ping-ponging two device buffers (memory-bound). One launch per step.
#include <cmath>
#include <utility>
#include <vector>

#include "stencil3d_ref.h"
#include "workload.h"

namespace {

using namespace relgpu;
using runtime::DevPtr;
using runtime::Dim3;

wl::Result run(wl::Context& ctx) {
  const bool small = ctx.size == wl::Size::small;
  // small: 30x10x8, 3 steps (~2e5 thread instructions); nx*ny = 300 columns
  // is not a multiple of the 128-thread block. default: 128x96x64, 5 steps (~8e7).
  int nx = small ? 30 : 128, ny = small ? 10 : 96, nz = small ? 8 : 64;
  const int steps = small ? 3 : 5;
  float c0 = 0.4f, c1 = 0.1f;  // c0 + 6*c1 = 1: a stable diffusion step

  const size_t cells = size_t(nx) * ny * nz;
  wl::Rng rng(ctx.seed);
  std::vector<float> a(cells), b(cells);
  for (auto& v : a) v = rng.uniform(0.f, 100.f);
  ctx.log << "stencil3d: " << nx << "x" << ny << "x" << nz << ", " << steps << " steps\n";

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  const auto& k = dev.kernel(mod, "stencil7");
  const size_t bytes = cells * sizeof(float);
  DevPtr d_in = dev.malloc(bytes), d_out = dev.malloc(bytes);
  dev.memcpy_to_device(d_in, a.data(), bytes);
  dev.memset(d_out, 0xff, bytes);  // NaN: a cell never written cannot pass
  const uint32_t block = 128;
  const Dim3 grid{uint32_t((size_t(nx) * ny + block - 1) / block)};
  for (int s = 0; s < steps; ++s) {
    void* args[] = {&d_in, &d_out, &nx, &ny, &nz, &c0, &c1};
    dev.launch(k, grid, Dim3{block}, 0, args);
    std::swap(d_in, d_out);
  }
  dev.synchronize();
  std::vector<float> got(cells);
  dev.memcpy_to_host(got.data(), d_in, bytes);  // after the swap, d_in holds the last result
  dev.free(d_in);
  dev.free(d_out);

  for (int s = 0; s < steps; ++s) {
    stencil3d_ref::step(a, b, nx, ny, nz, c0, c1);
    std::swap(a, b);
  }
  // Same adds in the same order and one fma per cell: bit-identical under
  // IEEE rounding. 1e-6 relative only forgives a double-rounded fma (values
  // are 0..100, so abs 1e-5 is ~1 ulp of the largest); a wrong neighbour
  // moves a cell by ~0.1 or more.
  std::string msg;
  if (wl::compare_floats(got.data(), a.data(), cells, 1e-6, 1e-5, msg) >= 0) return {false, "volume: " + msg};
  return {true, "stencil3d " + std::to_string(cells) + " cells x " + std::to_string(steps) + " steps: " + msg};
}

}  // namespace

RELGPU_WORKLOAD(stencil3d, "7-point 3-D Jacobi stencil, z-marching columns, ping-pong buffers (memory-bound, f32)", run);
