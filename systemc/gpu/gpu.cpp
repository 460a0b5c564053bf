#include "gpu/gpu.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/error.h"
#include "gpu/stats.h"
#include "power/chip_keys.h"
#include "power/pdn_keys.h"
#include "power/rf_energy.h"

namespace relgpu::gpu {

using config::json;

Gpu::Gpu(sc_core::sc_module_name name, const config::Config& cfg, func::GlobalMemory& gmem)
    : sc_module(name),
      ref_clock_(clock_from_mhz(cfg.get(kSmClockMhz))),
      flush_each_kernel_(cfg.get(kL2Flush) == "kernel") {
  // Clock edges are computed in ps (gpu/keys.h).
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
    throw InputError("timing model: the SystemC time resolution must be 1 ps");
  std::vector<Clock> clocks = sm_clocks(cfg);
  for (unsigned i = 0; i < clocks.size(); ++i) {
    sms_.push_back(std::make_unique<SmModule>(("sm" + std::to_string(i)).c_str(), i, clocks[i], cfg, *this));
    cores_.push_back(&sms_.back()->core());
  }
  // An undervolted RF must still make the SM's clock (power/vf.h).
  for (unsigned i = 0; i < clocks.size(); ++i) {
    const double rf_mhz = sms_[i]->core().rf_fmax_mhz(), sm_mhz = double(clocks[i].khz) / 1000;
    if (rf_mhz < sm_mhz)
      throw InputError("SM " + std::to_string(i) + ": its register file at its supply (rf.vdd / "
                       "rf.cell_failure_rate) reaches only " + std::to_string(rf_mhz) + " MHz, below the SM clock of " +
                       std::to_string(sm_mhz) +
                       " MHz (power/vf.h: vf.fo4_ps, vf.chain_stages, vf.vth, vf.alpha); raise the RF supply");
  }
  icnt_ = std::make_unique<mem::Interconnect>("icnt", cfg, num_sms());
  for (auto& s : sms_) s->socket.bind(icnt_->sm_side);
  // One L2 slice per interconnect port; the slices of a channel share the
  // first one's DRAM controller (mem/address_map.h).
  unsigned nslices = icnt_->map().partitions(), subs = icnt_->map().subs();
  for (unsigned i = 0; i < nslices; ++i) {
    parts_.push_back(std::make_unique<mem::Partition>(("part" + std::to_string(i)).c_str(), cfg, i, gmem));
    icnt_->mem_side.bind(parts_.back()->tgt);
    if (i % subs) parts_.back()->share_dram_with(*parts_[i - i % subs]);
  }
  if (cfg.get(power::chip_keys::kEnable)) {
    std::vector<power::ChipPower::SmSide> sides;
    for (unsigned i = 0; i < clocks.size(); ++i)
      sides.push_back({clocks[i], sms_[i]->core().rf_vdd(), sms_[i]->core().rf_entry_bits()});
    power_ = std::make_unique<power::ChipPower>(cfg, std::move(sides), nslices / subs);
    for (auto* c : cores_) c->add_observer(power_.get());
  }
  if (cfg.get(power::pdn_keys::kEnable)) {
    if (!power_)
      throw InputError("pdn.enable needs power.enable=true: the PDN's currents come from the chip power model "
                       "(relgpu run --pdn sets both)");
    pdn_ = std::make_unique<power::Pdn>(cfg, *power_, clocks);
    for (auto* c : cores_) c->add_observer(pdn_.get());
  }
  if (cfg.get(smoothing_keys::kEnable)) {
    smoother_ = std::make_unique<GlobalSmoother>(cfg, clocks, ref_clock_);
    for (auto* c : cores_) c->set_warp_sink(smoother_.get(), smoother_->period());
  }
  gmem_ = &gmem;
  SC_HAS_PROCESS(Gpu);
  SC_THREAD(launcher);
  SC_THREAD(flusher);
}

Gpu::~Gpu() = default;

void Gpu::begin(const func::LaunchCtx& ctx, runtime::Dim3 grid, const sm::CtaShape& shape) {
  for (auto& s : sms_) {
    s->core().begin_launch(ctx);
    s->reset_counters();
  }
  sched_.start(grid, shape);
  if (smoother_) smoother_->begin_launch();
  finished_ = false;
  error_ = nullptr;
  icnt_->reset_stats();
  for (auto& p : parts_) {
    p->begin_kernel();  // LoSCache: per-kernel counts
    p->reset_stats();
  }
  if (power_) power_->begin_launch(sc_core::sc_time_stamp().value());
  if (pdn_) pdn_->begin_launch(sc_core::sc_time_stamp().value());
  start_pending_ = true;
  start_ev_.notify(sc_core::SC_ZERO_TIME);
}

void Gpu::launcher() {
  for (;;) {
    // The flag, not only the event: the first launch is set up during
    // elaboration, before this thread first runs.
    while (!start_pending_) wait(start_ev_);
    start_pending_ = false;
    start_ps_ = end_ps_ = kernel_end_ps_ = sc_core::sc_time_stamp().value();
    running_ = true;
    dispatch();
    if (!sched_.dispatched()) {
      running_ = false;
      error_ = std::make_exception_ptr(InputError(
          "timing model: a CTA of this launch does not fit in an empty SM (threads, registers, shared "
          "memory or CTA slots; see sm.max_threads, sm.shared_bytes, rf.*)"));
      sc_core::sc_pause();
    }
  }
}

void Gpu::dispatch() {
  served_.clear();
  sched_.dispatch(cores_, served_);
  for (unsigned s : served_) sms_[s]->kick();
}

void Gpu::ctas_finished(unsigned sm, unsigned n) {
  sched_.finished(n);
  if (!sched_.all_dispatched()) dispatch();
}

void Gpu::sm_idle(unsigned) {
  if (!running_ || !sched_.all_finished()) return;
  for (auto* c : cores_)
    if (!c->idle()) return;
  running_ = false;
  kernel_end_ps_ = sc_core::sc_time_stamp().value();
  if (flush_each_kernel_) {
    flush_pending_ = true;
    flush_ev_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  end_launch();
}

void Gpu::end_launch() {
  finished_ = true;
  end_ps_ = sc_core::sc_time_stamp().value();
  sc_core::sc_pause();
}

void Gpu::begin_flush() {
  finished_ = false;
  flush_pending_ = true;
  flush_ev_.notify(sc_core::SC_ZERO_TIME);
}

// The flush ends the launch when the last partition's last write-back has
// left the DRAM bus.
void Gpu::flusher() {
  for (;;) {
    while (!flush_pending_) wait(flush_ev_);
    flush_pending_ = false;
    for (auto& p : parts_) p->start_flush();
    uint64_t end = 0;
    for (auto& p : parts_) {
      while (p->flushing()) wait(p->flush_done());
      end = std::max(end, p->flush_end_ps());
    }
    uint64_t now = sc_core::sc_time_stamp().value();
    if (end > now) wait(sc_core::sc_time::from_value(end - now));
    end_launch();
  }
}

void Gpu::sm_failed(unsigned, std::exception_ptr e) {
  if (!error_) error_ = e;
  running_ = false;
  sc_core::sc_pause();
}

std::string Gpu::describe() const {
  std::ostringstream os;
  os << sched_.dispatched() << " of " << sched_.total() << " CTAs dispatched, " << sched_.finished_count()
     << " finished; busy SMs:";
  bool any = false;
  for (auto& s : sms_)
    if (!s->core().idle()) os << " " << s->id(), any = true;
  if (!any) os << " none";
  return os.str();
}

json Gpu::occupancy(const sm::CtaShape& s) const { return sms_.front()->core().occupancy(s); }

json Gpu::kernel_stats(uint64_t& thread_insn, uint64_t& warp_insn) const {
  json d = json::object();
  d["engine"] = "timing";
  d["ctas"] = sched_.total();
  d["gpu_sim_cycle"] = ref_clock_.cycle_at_or_after(end_ps_) - ref_clock_.cycle_at_or_after(start_ps_);
  d["sim_time_ps"] = end_ps_ - start_ps_;
  json sms = json::array(), total = json::object();
  for (auto& s : sms_) {
    json core = s->core().stats();
    const auto& n = s->counters();
    // The core's own stats ("cycles" = its busy cycles, skipped ones
    // included), then the wrapper's: kernel_cycles counts every edge of this
    // SM's clock during the launch, ticked/skipped how the busy ones were spent.
    json j = std::move(core);
    j["kernel_cycles"] = s->clock().cycle_at_or_after(end_ps_) - s->clock().cycle_at_or_after(start_ps_);
    j["ticked_cycles"] = n.ticked;
    j["skipped_cycles"] = n.skipped;
    j["icnt_requests"] = n.requests;
    j["icnt_send_rejected"] = n.rejected;
    j["mem_latency_sum"] = n.latency_sum;
    // A counter for operand-collector occupancy, so that it sums across SMs
    // and launches (the core reports only the average).
    if (j.contains("oc") && j["oc"].contains("avg_occupied") && !j["oc"].contains("busy_sum"))
      j["oc"]["busy_sum"] = uint64_t(std::llround(j["oc"]["avg_occupied"].get<double>() *
                                                   double(std::max<uint64_t>(j.value("cycles", uint64_t(0)), 1))));
    // Sizes are in the effective config; as stats they would add up.
    if (j.contains("rf")) j["rf"].erase("banks");
    if (j.contains("oc")) j["oc"].erase("collectors");
    if (j.contains("rise")) {  // RISE: the SM's SP lanes over the whole launch (sm/rise.h)
      j["rise"]["capacity_lane_cycles"] = j["kernel_cycles"].get<uint64_t>() * j["rise"]["sp_lanes"].get<uint64_t>();
      j["rise"].erase("sp_lanes");
    }
    // Every SM's RF leaks for the whole launch (power/rf_energy.h).
    if (j.contains("energy")) power::integrate_leakage(j["energy"], double(end_ps_ - start_ps_) * 1e-12);
    add_json(total, j);
    sms.push_back(std::move(j));
  }
  thread_insn = total.value("thread_insn", uint64_t(0));
  warp_insn = total.value("warp_insn", uint64_t(0));
  // Chip-wide sections: the energy accounts, GR-Guard (sm/grguard.h) and
  // register dead time (sm/dead_time.h).
  for (const char* k : {"energy", "grguard", "dead_time", "uniform", "less", "upsets", "rise", "sp_upsets"})
    if (total.contains(k)) {
      d[k] = std::move(total[k]);
      total.erase(k);
    }
  json los_sm = total.contains("loscache") ? std::move(total["loscache"]) : json();  // LoSCache
  total.erase("loscache");
  d["sm_total"] = std::move(total);
  d["sms"] = std::move(sms);
  json parts = json::array(), l2 = json::object(), dram = json::object(), l2e = json::object(), los_l2, life;
  for (auto& p : parts_) {
    json j = p->stats();
    add_json(l2, j["l2"]);
    add_json(dram, j["dram"]);
    add_json(l2e, j["l2_energy"]);
    if (j.contains("loscache")) add_json(los_l2, j["loscache"]);
    if (j.contains("l2_life")) add_json(life, j["l2_life"]);
    parts.push_back(std::move(j));
  }
  // The L2 flush that ended this launch (l2.flush), if any.
  d["l2_flush"] = {{"lines", l2["flush_writebacks"]},
                   {"cycles", ref_clock_.cycle_at_or_after(end_ps_) - ref_clock_.cycle_at_or_after(kernel_end_ps_)}};
  d["l2"] = std::move(l2);
  d["dram"] = std::move(dram);
  d["l2_energy"] = std::move(l2e);  // power/l2_energy.h
  if (!life.is_null()) d["l2_life"] = std::move(life);  // mem/l2_life.h
  d["icnt"] = icnt_->stats();
  // LoSCache (mem/loscache.h, sm/loscache_unit.h): both sides and the query traffic.
  if (!los_l2.is_null()) d["loscache"] = {{"sm", std::move(los_sm)}, {"l2", std::move(los_l2)}, {"icnt", icnt_->query_stats()}};
  d["partitions"] = std::move(parts);
  if (power_) d["power"] = power_->launch_stats(d, start_ps_, end_ps_);  // power/chip_power.h
  if (pdn_) d["pdn"] = pdn_->launch_stats(end_ps_);                      // power/pdn.h
  if (smoother_) d["global_smoother"] = smoother_->stats();
  return d;
}

void Gpu::host_read(uint64_t addr, uint64_t n) {
  for (auto& p : parts_) p->copy_out(addr, n);
}

void Gpu::invalidate(uint64_t addr, uint64_t n) {
  for (auto& p : parts_) p->invalidate(addr, n);
}

void Gpu::host_wrote(uint64_t addr, uint64_t n, bool copy) {
  for (auto& p : parts_) {
    p->invalidate(addr, n);
    if (copy) p->memcpy_fill(addr, n);
  }
}

void Gpu::invalidate_all() {
  // Dirty lines (l2.flush=end, no final flush) still hold the kernels' last
  // writes: into memory first, untimed, so nothing is lost.
  for (auto& p : parts_) {
    p->flush();
    p->invalidate(0, UINT64_MAX);
  }
}

void Gpu::set_memory(func::GlobalMemory& gmem) {
  // The L2 slices hold a reference to the memory they were built with.
  if (&gmem != gmem_)
    throw InputError("timing model: the GPU of this process serves the memory of the first Device that ran a "
                     "launch; run another Device in its own process");
}

}  // namespace relgpu::gpu
