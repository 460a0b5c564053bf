// vecops: memory-bound streaming kernels chained through device memory:
//   y = a*x + y;  w = (x + s*y) * z  (float4 body + scalar tail);  w = clamp(w)*k
// All three use grid-stride loops over a size_t length.
#include <vector>

#include "vecops_ref.h"
#include "workload.h"

namespace {

using namespace relgpu;
using runtime::DevPtr;
using runtime::Dim3;

wl::Result run(wl::Context& ctx) {
  const bool small = ctx.size == wl::Size::small;
  // small: 4099 elements (a 3-element tail after the float4 part), 768
  // threads, so each thread strides several times (~1.5e5 thread
  // instructions). default: 2^21+3 elements on 120x256 threads (~5e7).
  size_t n = small ? 4099 : (size_t(1) << 21) + 3;
  const Dim3 grid{small ? 6u : 120u}, block{small ? 128u : 256u};
  float a = 0.75f, s = -1.25f, lo = -0.5f, hi = 1.0f, scale = 2.0f;

  wl::Rng rng(ctx.seed);
  std::vector<float> x(n), y(n), z(n);
  vecops_ref::make_vectors(rng, x, y, z);
  ctx.log << "vecops: " << n << " elements\n";

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  const auto& k_saxpy = dev.kernel(mod, "saxpy");
  const auto& k_triad = dev.kernel(mod, "triad4");
  const auto& k_clamp = dev.kernel(mod, "clamp_scale");
  const size_t bytes = n * sizeof(float);
  DevPtr dx = dev.malloc(bytes), dy = dev.malloc(bytes), dz = dev.malloc(bytes), dw = dev.malloc(bytes);
  dev.memcpy_to_device(dx, x.data(), bytes);
  dev.memcpy_to_device(dy, y.data(), bytes);
  dev.memcpy_to_device(dz, z.data(), bytes);
  dev.memset(dw, 0xff, bytes);  // NaN pattern: an element the kernel skips cannot pass
  void* saxpy_args[] = {&n, &a, &dx, &dy};
  dev.launch(k_saxpy, grid, block, 0, saxpy_args);
  void* triad_args[] = {&n, &s, &dx, &dy, &dz, &dw};
  dev.launch(k_triad, grid, block, 0, triad_args);
  void* clamp_args[] = {&n, &lo, &hi, &scale, &dw};
  dev.launch(k_clamp, grid, block, 0, clamp_args);
  dev.synchronize();
  std::vector<float> gy(n), gw(n);
  dev.memcpy_to_host(gy.data(), dy, bytes);
  dev.memcpy_to_host(gw.data(), dw, bytes);
  for (DevPtr p : {dx, dy, dz, dw}) dev.free(p);

  std::vector<float> w(n);
  vecops_ref::compute(a, s, lo, hi, scale, x, y, z, w);

  // Every element is one fma, a multiply and a clamp, in the kernel's order:
  // results are bit-identical under IEEE rounding. 1e-6 relative (~8 ulp)
  // only forgives a double-rounded fma; any wrong input or operation fails.
  std::string msg;
  if (wl::compare_floats(gy.data(), y.data(), n, 1e-6, 1e-7, msg) >= 0) return {false, "saxpy y: " + msg};
  if (wl::compare_floats(gw.data(), w.data(), n, 1e-6, 1e-7, msg) >= 0) return {false, "triad/clamp w: " + msg};
  return {true, "vecops " + std::to_string(n) + " elements: " + msg};
}

}  // namespace

RELGPU_WORKLOAD(vecops, "streaming saxpy, float4 triad and clamp with grid-stride loops (memory-bound, f32)", run);
