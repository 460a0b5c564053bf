#include "func/engine.h"

#include "common/error.h"

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
  return ctx;
}

FuncEngine::FuncEngine(const config::Config& cfg, GlobalMemory& mem, std::ostream* out)
    : cfg_(cfg), mem_(mem), out_(out), quantum_(uint64_t(cfg.get(kQuantum))) {}

void FuncEngine::launch(const ptx::Module& mod, const ptx::Function& kernel, runtime::Dim3 grid,
                        runtime::Dim3 block, uint64_t dyn_shmem, const std::vector<uint8_t>& params,
                        runtime::LaunchRecord& rec) {
  LaunchCtx ctx = launch_ctx(mod, kernel, grid, block, dyn_shmem, params, mem_, out_, ++launches_, cfg_);

  FlatRegs regs;
  Executor ex(ctx, regs);
  uint64_t cls[size_t(OpClass::count_)] = {};
  uint64_t thread_insn = 0, warp_insn = 0;
  InFlight f;
  Cta cta;
  for (uint32_t z = 0; z < grid.z; ++z)
    for (uint32_t y = 0; y < grid.y; ++y)
      for (uint32_t x = 0; x < grid.x; ++x) {
        const uint32_t id[3] = {x, y, z};
        ex.init_cta(cta, id, 0);
        for (;;) {
          bool progress = false;
          for (Warp& w : cta.warps) {
            for (uint64_t q = 0; q < quantum_ && !w.done && !w.at_barrier; ++q) {
              Event e = ex.step(cta, w, f);
              ++warp_insn;
              thread_insn += uint64_t(__builtin_popcount(f.active));
              ++cls[size_t(f.d->cls)];
              progress = true;
              if (e != Event::none) break;
            }
          }
          if (cta.all_done()) break;
          if (!progress)
            throw KernelError("kernel '" + kernel.name + "': barrier deadlock in CTA (" + std::to_string(x) + "," +
                              std::to_string(y) + "," + std::to_string(z) + "): " + ex.describe_waits(cta));
        }
      }
  rec.warp_insn = warp_insn;
  rec.thread_insn = thread_insn;
  nlohmann::ordered_json c = nlohmann::ordered_json::object();
  for (size_t i = 0; i < size_t(OpClass::count_); ++i) c[opclass_name(OpClass(i))] = cls[i];
  rec.detail["engine"] = "functional";
  rec.detail["class_counts"] = c;
  rec.detail["ctas"] = grid.count();
}

}  // namespace relgpu::func
