// The cycle-level timing model as a runtime::Engine (`sim.mode=timing`).
//
// SystemC elaborates once per process, so the Gpu is built at the first
// launch (or elaborate()) and reused by every later launch and by every later
// TimingEngine of the process; the config must then be the same. Per launch:
// the SMs' L1s are invalidated (SmCore::begin_launch), the CTAs dispatched,
// and the simulation runs until the kernel completes (sc_pause, never
// sc_stop). Dirty L2 lines are written back by a timed flush after every
// kernel or once in finish() (l2.flush); host reads copy the L2's dirty data
// out in between (Gpu::host_read). A kernel error inside an SM, a runaway past
// gpu.max_cycles or a deadlock comes out of launch() as KernelError; the
// model is then left mid-kernel and later launches in this process fail.
#pragma once
#include <iosfwd>

#include "func/exec.h"
#include "gpu/gpu.h"
#include "runtime/device.h"

namespace relgpu::gpu {

class TimingEngine final : public runtime::Engine {
 public:
  // printf output goes to `out` (std::cout if null).
  TimingEngine(const config::Config& cfg, func::GlobalMemory& mem, std::ostream* out = nullptr);
  ~TimingEngine() override;
  TimingEngine(const TimingEngine&) = delete;
  TimingEngine& operator=(const TimingEngine&) = delete;

  void launch(const ptx::Module& mod, const ptx::Function& kernel, runtime::Dim3 grid, runtime::Dim3 block,
              uint64_t dyn_shmem, const std::vector<uint8_t>& params, runtime::LaunchRecord& rec) override;
  void host_wrote(uint64_t addr, uint64_t n, bool copy) override;
  void host_reads(uint64_t addr, uint64_t n) override;
  // l2.flush=end: the timed flush of the L2s after the last launch, whose
  // record (`last`) is refilled to cover it.
  void finish(runtime::LaunchRecord& last) override;

  // The process's Gpu, built now if needed (to attach observers before a launch).
  Gpu& elaborate();

 private:
  static void fill_record(Gpu& g, runtime::LaunchRecord& rec);  // the launch's stats
  const config::Config& cfg_;
  func::GlobalMemory& mem_;
  std::ostream* out_;
  func::LaunchCtx ctx_;  // alive until the next launch (the SMs keep a reference)
  uint64_t launches_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> copies_;  // host-to-device copies before the GPU existed
};

}  // namespace relgpu::gpu
