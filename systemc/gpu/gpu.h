// The GPU top: N SMs, the interconnect and M memory partitions (L2 slice +
// DRAM controller), wired with TLM-2.0 sockets, plus the CTA scheduler and
// kernel completion. Built once per process (SystemC elaborates once); the
// TimingEngine drives one launch at a time:
//   begin(...)            (simulation paused) set up the launch
//   sc_start(...)         the launcher thread dispatches CTAs; the SMs run;
//                         the last SM to go idle ends the kernel (sc_pause),
//                         after a timed L2 flush with l2.flush=kernel
//   finished()/error()    outcome; kernel_stats() the per-kernel stats
//   begin_flush()         (l2.flush=end, after the last launch) the timed L2
//   sc_start(...)         flush, which extends that launch: kernel_stats()
//                         then covers it
#pragma once
#include <exception>
#include <memory>
#include <vector>

#include <systemc>

#include "common/config.h"
#include "func/exec.h"
#include "gpu/cta_scheduler.h"
#include "gpu/global_smoother.h"
#include "gpu/keys.h"
#include "gpu/sm_module.h"
#include "mem/interconnect.h"
#include "mem/partition.h"
#include "power/chip_power.h"
#include "power/pdn.h"
#include "runtime/device.h"

namespace relgpu::gpu {

class Gpu final : public sc_core::sc_module, public SmHost {
 public:
  // `cfg` must outlive the Gpu (the SMs read it at construction).
  Gpu(sc_core::sc_module_name name, const config::Config& cfg, func::GlobalMemory& gmem);
  ~Gpu() override;

  // Prepares a launch; the CTAs go out when the simulation next runs.
  void begin(const func::LaunchCtx& ctx, runtime::Dim3 grid, const sm::CtaShape& shape);
  bool finished() const { return finished_; }
  std::exception_ptr error() const { return error_; }
  // Simulated time of the launch so far (end time once finished), in ps.
  uint64_t start_ps() const { return start_ps_; }
  uint64_t end_ps() const { return end_ps_; }
  // The per-kernel stats of the launch that just finished; fills thread/warp counts.
  config::json kernel_stats(uint64_t& thread_insn, uint64_t& warp_insn) const;
  // The launch's occupancy (sm/sm_core.h), from SM 0: every SM has the same resources.
  config::json occupancy(const sm::CtaShape& s) const;
  // Where the SMs stand, for deadlock and runaway messages.
  std::string describe() const;

  // Timed flush of every dirty L2 line (Partition::start_flush); the
  // simulation then runs until it is done (finished()), extending the last
  // launch. Call while paused after a finished launch.
  void begin_flush();

  // Memory side, for the engine's host hooks (functional: no simulated time).
  // host_read copies dirty lines of the range to memory, keeping them dirty;
  // invalidate drops the lines of a range the host wrote; invalidate_all
  // writes every dirty line back (untimed) and drops every line.
  void host_read(uint64_t addr, uint64_t n);
  void invalidate(uint64_t addr, uint64_t n);
  // The host wrote [addr, addr+n) (copy: a host-to-device memcpy): the L2
  // slices drop their copies, or install the lines with l2.fill_on_memcpy.
  void host_wrote(uint64_t addr, uint64_t n, bool copy);
  void invalidate_all();
  // Points the memory side at another device's memory (a new Device in this process).
  void set_memory(func::GlobalMemory& gmem);

  unsigned num_sms() const { return unsigned(sms_.size()); }
  SmModule& sm(unsigned i) { return *sms_[i]; }
  const Clock& ref_clock() const { return ref_clock_; }

  // SmHost
  void ctas_finished(unsigned sm, unsigned n) override;
  void sm_idle(unsigned sm) override;
  void sm_failed(unsigned sm, std::exception_ptr e) override;

 private:
  void launcher();
  void dispatch();
  void flusher();
  void end_launch();  // finished, sc_pause

  Clock ref_clock_;
  std::vector<std::unique_ptr<SmModule>> sms_;
  std::vector<sm::SmCore*> cores_;
  std::unique_ptr<mem::Interconnect> icnt_;
  std::vector<std::unique_ptr<mem::Partition>> parts_;
  std::unique_ptr<power::ChipPower> power_;  // power.enable (power/chip_power.h)
  std::unique_ptr<power::Pdn> pdn_;          // pdn.enable (power/pdn.h)
  CtaScheduler sched_;
  std::unique_ptr<GlobalSmoother> smoother_;  // smoothing.global.enable (gpu/global_smoother.h)
  sc_core::sc_event start_ev_, flush_ev_;
  bool start_pending_ = false, running_ = false, finished_ = false;
  bool flush_each_kernel_ = false, flush_pending_ = false;  // l2.flush
  std::exception_ptr error_;
  uint64_t start_ps_ = 0, end_ps_ = 0;
  uint64_t kernel_end_ps_ = 0;  // the last SM went idle (end_ps_ is later by a flush)
  func::GlobalMemory* gmem_ = nullptr;
  std::vector<unsigned> served_;  // scratch for dispatch
};

}  // namespace relgpu::gpu
