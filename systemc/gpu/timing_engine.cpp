#include "gpu/timing_engine.h"

#include "common/error.h"
#include "func/engine.h"
#include "gpu/stats.h"

namespace relgpu::gpu {

namespace {

// The one Gpu of this process. Never destroyed: SystemC objects must not be
// torn down after simulation has run, and the process ends soon after.
struct Process {
  config::Config cfg;            // the config the Gpu was built with
  std::string fingerprint;       // its effective values, to refuse a different one
  Gpu* gpu = nullptr;
  const TimingEngine* owner = nullptr;  // engine whose memory the Gpu serves now
  bool broken = false;           // an earlier launch stopped mid-kernel
};

Process& process() {
  static Process* p = new Process;
  return *p;
}

}  // namespace

TimingEngine::TimingEngine(const config::Config& cfg, func::GlobalMemory& mem, std::ostream* out)
    : cfg_(cfg), mem_(mem), out_(out) {}

TimingEngine::~TimingEngine() {
  Process& p = process();
  if (p.owner != this) return;
  // The caches hold lines of this engine's memory; a later engine has its own.
  if (!p.broken) p.gpu->invalidate_all();
  p.owner = nullptr;
}

Gpu& TimingEngine::elaborate() {
  Process& p = process();
  std::string fp = cfg_.effective().dump();
  if (!p.gpu) {
    p.cfg = cfg_;
    p.fingerprint = fp;
    p.gpu = new Gpu("gpu", p.cfg, mem_);
    p.owner = this;
  } else if (fp != p.fingerprint) {
    throw InputError("timing model: this process already built the GPU with another configuration (SystemC "
                     "elaborates once per process); run each configuration in its own process");
  }
  if (p.owner != this) {
    p.gpu->set_memory(mem_);
    if (p.owner) p.gpu->invalidate_all();
    p.owner = this;
  }
  for (auto [a, n] : copies_) p.gpu->host_wrote(a, n, true);
  copies_.clear();
  return *p.gpu;
}

void TimingEngine::launch(const ptx::Module& mod, const ptx::Function& kernel, runtime::Dim3 grid,
                          runtime::Dim3 block, uint64_t dyn_shmem, const std::vector<uint8_t>& params,
                          runtime::LaunchRecord& rec) {
  Process& p = process();
  if (p.broken)
    throw KernelError("kernel '" + kernel.name + "': the timing model was stopped mid-kernel by an earlier error "
                      "in this process and cannot run further launches");
  Gpu& g = elaborate();
  ctx_ = func::launch_ctx(mod, kernel, grid, block, dyn_shmem, params, mem_, out_, ++launches_, cfg_);
  ctx_.grid_workspace = grid_workspace;
  ctx_.access = access_log;
  sm::CtaShape shape;
  shape.threads = uint32_t(block.count());
  shape.regs_per_thread = kernel.regs_used();
  shape.shared_bytes = kernel.shared_bytes + dyn_shmem;

  const uint64_t max_cycles = uint64_t(cfg_.get(kMaxCycles));
  const uint64_t budget_ps = g.ref_clock().edge_ps(max_cycles);
  const uint64_t t0 = sc_core::sc_time_stamp().value();
  g.begin(ctx_, grid, shape);
  rec.occupancy = g.occupancy(shape);
  sc_core::sc_start(sc_core::sc_time::from_value(budget_ps), sc_core::SC_EXIT_ON_STARVATION);

  if (std::exception_ptr e = g.error()) {
    try {
      std::rethrow_exception(e);
    } catch (const InputError&) {
      throw;  // refused before any CTA ran: the model is intact
    } catch (...) {
      p.broken = true;
      throw;
    }
  }
  if (!g.finished()) {
    p.broken = true;
    uint64_t ran = sc_core::sc_time_stamp().value() - t0;
    // Events still pending: the budget ran out with the model busy (a warp
    // spinning on memory sleeps between responses, so the clock alone cannot
    // tell). None pending: the model starved, nothing can ever move again.
    if (!sc_core::sc_pending_activity())
      throw KernelError("kernel '" + kernel.name + "': the timing model deadlocked (no SM can make progress) after " +
                        std::to_string(ran / (g.ref_clock().edge_ps(1) ? g.ref_clock().edge_ps(1) : 1)) +
                        " cycles; " + g.describe());
    throw KernelError("kernel '" + kernel.name + "' exceeded gpu.max_cycles=" + std::to_string(max_cycles) +
                      " cycles (runaway kernel?); " + g.describe());
  }
  fill_record(g, rec);
}

void TimingEngine::fill_record(Gpu& g, runtime::LaunchRecord& rec) {
  uint64_t thread_insn = 0, warp_insn = 0;
  config::json d = g.kernel_stats(thread_insn, warp_insn);
  rec.thread_insn = thread_insn;
  rec.warp_insn = warp_insn;
  double cycles = d["gpu_sim_cycle"].get<double>();
  d["ipc"] = cycles > 0 ? double(thread_insn) / cycles : 0.0;
  derive_ratios(d);
  rec.detail = std::move(d);
}

void TimingEngine::finish(runtime::LaunchRecord& last) {
  Process& p = process();
  if (!p.gpu || p.owner != this || p.broken || cfg_.get(kL2Flush) != "end") return;
  Gpu& g = *p.gpu;
  const uint64_t budget_ps = g.ref_clock().edge_ps(uint64_t(cfg_.get(kMaxCycles)));
  g.begin_flush();
  sc_core::sc_start(sc_core::sc_time::from_value(budget_ps), sc_core::SC_EXIT_ON_STARVATION);
  if (!g.finished()) {
    p.broken = true;
    throw KernelError("kernel '" + last.kernel + "': the L2 flush after the last kernel did not finish; " + g.describe());
  }
  fill_record(g, last);  // the last launch now ends with the flush
}

void TimingEngine::host_wrote(uint64_t addr, uint64_t n, bool copy) {
  Process& p = process();
  if (p.gpu && p.owner == this && !p.broken) {
    p.gpu->host_wrote(addr, n, copy);
  } else if (copy && (!p.gpu || p.owner != this)) {
    copies_.push_back({addr, n});  // installed when this engine's GPU is set up (elaborate)
  }
}

void TimingEngine::host_reads(uint64_t addr, uint64_t n) {
  Process& p = process();
  if (p.gpu && p.owner == this && !p.broken) p.gpu->host_read(addr, n);
}

}  // namespace relgpu::gpu
