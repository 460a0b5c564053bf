// Host driver for nw.cu: Needleman-Wunsch score matrix of two random
// sequences over a 20-letter alphabet with a random symmetric substitution
// table and a linear gap penalty. One launch per anti-diagonal of 16x16
// tiles; the whole matrix is compared with a sequential DP.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "nw_ref.h"
#include "workload.h"

namespace relgpu::wl {
namespace {

constexpr int kTile = 16;     // TILE in nw.cu; also the block size (16 threads)
constexpr int kAlphabet = 20;

Result run_nw(Context& ctx) {
  const bool small = ctx.size == Size::small;
  int n = small ? 64 : 1024;  // sequence length; a multiple of the tile
  int gap = 3;
  const int ntiles = n / kTile;
  const size_t width = size_t(n) + 1;

  Rng rng(ctx.seed);
  const nw_ref::Input in = nw_ref::make_input(rng, n, kAlphabet);
  const auto &a = in.a, &b = in.b;
  const auto& subst = in.subst;
  const std::vector<int32_t> init = nw_ref::borders(n, gap);
  const std::vector<int32_t> want = nw_ref::scores(a, b, subst, kAlphabet, n, gap);

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  const auto& k = dev.kernel(mod, "nw_tile_diagonal");
  const size_t bytes = width * width * 4;
  runtime::DevPtr d_score = dev.malloc(bytes), d_a = dev.malloc(n), d_b = dev.malloc(n),
                  d_subst = dev.malloc(subst.size() * 4);
  dev.memcpy_to_device(d_score, init.data(), bytes);
  dev.memcpy_to_device(d_a, a.data(), n);
  dev.memcpy_to_device(d_b, b.data(), n);
  dev.memcpy_to_device(d_subst, subst.data(), subst.size() * 4);
  int alphabet = kAlphabet;
  for (int diag = 0; diag < 2 * ntiles - 1; ++diag) {
    const int first = std::max(0, diag - ntiles + 1), last = std::min(diag, ntiles - 1);
    const uint32_t tiles = uint32_t(last - first + 1);
    void* args[] = {&d_score, &d_a, &d_b, &d_subst, &alphabet, &n, &diag, &gap};
    dev.launch(k, {tiles, 1, 1}, {kTile, 1, 1}, 0, args);
  }
  dev.synchronize();
  std::vector<int32_t> got(width * width);
  dev.memcpy_to_host(got.data(), d_score, bytes);
  for (auto p : {d_score, d_a, d_b, d_subst}) dev.free(p);
  ctx.log << "nw: n=" << n << " tiles=" << ntiles << "x" << ntiles << " launches=" << 2 * ntiles - 1 << "\n";

  std::string msg;
  bool ok = compare_exact(got.data(), want.data(), got.size(), msg) < 0;
  return {ok, "score matrix " + std::to_string(width) + "x" + std::to_string(width) + ", final score " +
                  std::to_string(want.back()) + ": " + msg};
}

}  // namespace

RELGPU_WORKLOAD(nw, "Needleman-Wunsch alignment: tile wavefront, 16-thread blocks, intra-tile anti-diagonals",
                run_nw);

}  // namespace relgpu::wl
