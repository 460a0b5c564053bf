// Functional engine: runs a launch to completion with the executor
// (exec.h). The CTAs the timing model would hold at once (sm::resident_ctas
// per SM, times gpu.num_sms) are resident together, and a finished CTA's
// slot takes the next; their warps run round-robin, func.quantum warp
// instructions at a time or until they reach a barrier or exit. When every
// unfinished warp waits at a barrier that cannot release, the launch stops
// with a KernelError listing where the warps of a CTA wait.
#pragma once
#include <cstdint>
#include <iosfwd>

#include "common/config.h"
#include "func/exec.h"
#include "runtime/device.h"

namespace relgpu::func {

inline const config::Key<int64_t> kMaxWarpInsn{
    "func.max_warp_insn", 4'000'000'000, "warp instructions",
    "runaway guard: a launch stops with an error past this many warp instructions", 1, 9.2e18};
inline const config::Key<int64_t> kStackBytes{
    "func.stack_bytes", 1024, "bytes",
    "per-thread stack for .func call frames above the kernel's local frame (cudaLimitStackSize); "
    "each frame takes max(its .local size, 16) bytes",
    16, 1 << 20};
inline const config::Key<int64_t> kQuantum{
    "func.quantum", 64, "warp instructions",
    "functional mode: instructions a warp runs before the next resident warp gets a turn", 1, 1 << 30};

inline const config::Key<int64_t> kCtaRounds{
    "func.cta_rounds", 16, "rounds",
    "functional mode: rounds of its warps (func.quantum each) a resident CTA runs before the next resident "
    "CTA gets a turn; more keeps a CTA's registers in the host's caches, fewer lets CTAs that wait on "
    "each other alternate sooner",
    1, 1 << 30};

inline const config::Key<std::string> kReconvergence{
    "func.reconvergence", "auto", "",
    "how a warp's diverged threads are scheduled: ipdom = the SIMT stack, reconverging at the immediate "
    "post-dominator (Fermi, the seeds' GPGPU-Sim); its = independent thread scheduling (sm_70+): the same "
    "stack order, but a path that spins (func.its_yield backward branches) lets the waiting threads run, "
    "and bar.warp.sync waits for its member threads; auto = its when the PTX .target is sm_70 or later",
    std::vector<std::string>{"auto", "ipdom", "its"}};
inline const config::Key<int64_t> kItsYield{
    "func.its_yield", 64, "backward branches",
    "independent thread scheduling: backward branches a path takes, with no divergence or reconvergence "
    "in between, while other threads of its warp wait, before those threads get to run ahead of it",
    1, 1 << 30};

// One launch's context, built the same way by the functional and the timing
// engine: the launch arguments plus the func.* limits from cfg.
LaunchCtx launch_ctx(const ptx::Module& mod, const ptx::Function& kernel, runtime::Dim3 grid, runtime::Dim3 block,
                     uint64_t dyn_shmem, const std::vector<uint8_t>& params, GlobalMemory& mem, std::ostream* out,
                     uint64_t gridid, const config::Config& cfg);

class FuncEngine final : public runtime::Engine {
 public:
  // printf output goes to `out` (std::cout if null).
  FuncEngine(const config::Config& cfg, GlobalMemory& mem, std::ostream* out = nullptr);
  void launch(const ptx::Module& mod, const ptx::Function& kernel, runtime::Dim3 grid, runtime::Dim3 block,
              uint64_t dyn_shmem, const std::vector<uint8_t>& params, runtime::LaunchRecord& rec) override;
  void set_output(std::ostream* out) { out_ = out; }

 private:
  const config::Config& cfg_;
  GlobalMemory& mem_;
  std::ostream* out_;
  uint64_t quantum_, cta_rounds_;
  uint64_t launches_ = 0;
};

}  // namespace relgpu::func
