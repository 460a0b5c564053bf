#include "func/engine.h"

#include <algorithm>
#include <vector>

#include "common/error.h"
#include "gpu/keys.h"
#include "sm/occupancy.h"

namespace relgpu::func {

LaunchCtx launch_ctx(const ptx::Module& mod, const ptx::Function& kernel, runtime::Dim3 grid, runtime::Dim3 block,
                     uint64_t dyn_shmem, const std::vector<uint8_t>& params, GlobalMemory& mem, std::ostream* out,
                     uint64_t gridid, const config::Config& cfg) {
  LaunchCtx ctx;
  ctx.mod = &mod;
  ctx.kernel = &kernel;
  ctx.grid = {grid.x, grid.y, grid.z};
  ctx.block = {block.x, block.y, block.z};
  ctx.dyn_shmem = dyn_shmem;
  ctx.params = &params;
  ctx.gmem = &mem;
  ctx.out = out;
  ctx.gridid = gridid;
  ctx.stack_bytes = uint64_t(cfg.get(kStackBytes));
  ctx.max_warp_insn = uint64_t(cfg.get(kMaxWarpInsn));
  const std::string rc = cfg.get(kReconvergence);
  const bool its = rc == "its" || (rc == "auto" && mod.target_sm() >= 70);
  ctx.its_yield = its ? uint32_t(cfg.get(kItsYield)) : 0;
  return ctx;
}

FuncEngine::FuncEngine(const config::Config& cfg, GlobalMemory& mem, std::ostream* out)
    : cfg_(cfg), mem_(mem), out_(out), quantum_(uint64_t(cfg.get(kQuantum))),
      cta_rounds_(uint64_t(cfg.get(kCtaRounds))) {}

void FuncEngine::launch(const ptx::Module& mod, const ptx::Function& kernel, runtime::Dim3 grid,
                        runtime::Dim3 block, uint64_t dyn_shmem, const std::vector<uint8_t>& params,
                        runtime::LaunchRecord& rec) {
  LaunchCtx ctx = launch_ctx(mod, kernel, grid, block, dyn_shmem, params, mem_, out_, ++launches_, cfg_);
  ctx.grid_workspace = grid_workspace;
  ctx.access = access_log;

  // The resident CTAs run together, as on a GPU: as many as the timing
  // model would hold (sm::resident_ctas on every SM), so that a CTA waiting
  // for another (a flag, a lock, a grid-wide barrier) sees it progress.
  sm::CtaShape shape;
  shape.threads = uint32_t(block.count());
  shape.regs_per_thread = kernel.regs_used();
  shape.shared_bytes = kernel.shared_bytes + dyn_shmem;
  const uint64_t total = grid.count();
  const uint64_t per_sm = std::max<uint64_t>(1, sm::resident_ctas(cfg_, shape));
  const size_t nslots = size_t(std::min<uint64_t>(total, per_sm * uint64_t(cfg_.get(gpu::kNumSms))));
  const unsigned nwarps = unsigned((shape.threads + kWarpSize - 1) / kWarpSize);

  FlatRegs regs;
  Executor ex(ctx, regs);
  uint64_t cls[size_t(OpClass::count_)] = {};
  uint64_t thread_insn = 0, warp_insn = 0;
  InFlight f;
  std::vector<Cta> ctas(nslots);
  std::vector<size_t> live;  // slots with a CTA, in start order
  uint64_t next = 0;         // linear id of the next CTA to start (x fastest)
  auto start = [&](size_t slot) {
    const uint32_t id[3] = {uint32_t(next % grid.x), uint32_t(next / grid.x % grid.y),
                            uint32_t(next / (uint64_t(grid.x) * grid.y))};
    ex.init_cta(ctas[slot], id, unsigned(slot) * nwarps);
    ++next;
  };
  for (size_t k = 0; k < nslots; ++k) start(k), live.push_back(k);
  while (!live.empty()) {
    bool progress = false;
    for (size_t i = 0; i < live.size();) {
      Cta& cta = ctas[live[i]];
      // A CTA keeps the host core for up to func.cta_rounds rounds of its
      // warps (its registers stay in the host's caches), then the next one runs.
      for (uint64_t r = 0; r < cta_rounds_ && !cta.all_done(); ++r) {
        bool moved = false;
        for (Warp& w : cta.warps) {
          for (uint64_t q = 0; q < quantum_ && !w.done && !w.at_barrier; ++q) {
            Event e = ex.step(cta, w, f);
            ++warp_insn;
            thread_insn += uint64_t(__builtin_popcount(f.active));
            ++cls[size_t(f.d->cls)];
            moved = true;
            if (e != Event::none) break;
          }
        }
        if (!moved) break;
        progress = true;
      }
      if (!cta.all_done()) {
        ++i;
      } else if (next < total) {
        start(live[i]);  // the slot takes the next CTA and runs it now, while its storage is in cache
      } else {
        live.erase(live.begin() + std::ptrdiff_t(i));
      }
    }
    if (!progress && !live.empty()) {
      // Every warp of every resident CTA waits at a barrier that cannot release.
      const Cta& cta = ctas[live.front()];
      throw KernelError("kernel '" + kernel.name + "': barrier deadlock in CTA (" + std::to_string(cta.ctaid[0]) +
                        "," + std::to_string(cta.ctaid[1]) + "," + std::to_string(cta.ctaid[2]) +
                        "): " + ex.describe_waits(cta));
    }
  }
  rec.warp_insn = warp_insn;
  rec.thread_insn = thread_insn;
  nlohmann::ordered_json c = nlohmann::ordered_json::object();
  for (size_t i = 0; i < size_t(OpClass::count_); ++i) c[opclass_name(OpClass(i))] = cls[i];
  rec.detail["engine"] = "functional";
  rec.detail["class_counts"] = c;
  rec.detail["ctas"] = grid.count();
  rec.detail["its_yields"] = ex.its_yields();
}

}  // namespace relgpu::func
