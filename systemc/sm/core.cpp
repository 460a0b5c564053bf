// SM core: construction, launches and CTAs, the cycle driver, activity and
// stats. The pipeline stages are in core_pipe.cpp and core_ldst.cpp.
#include "sm/core.h"
#include "sm/uniform_unit.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "mem/loscache.h"
#include "ptx/analysis.h"
#include "reliability/keys.h"
#include "reliability/rf_delay.h"
#include "sm/droop_unit.h"
#include "sm/loscache_unit.h"

namespace relgpu::sm {

using func::kWarpSize;

Core::Core(unsigned sm_id, const config::Config& cfg, MemPort& port)
    : id_(sm_id),
      port_(port),
      rf_(unsigned(cfg.get(kRfBanks)), unsigned(cfg.get(kRfEntries)), unsigned(cfg.get(kRfEntryBits))),
      regs_(rf_, unsigned(cfg.get(kMaxThreads) + kWarpSize - 1) / kWarpSize),
      l1_(unsigned(cfg.get(kL1Sets)), unsigned(cfg.get(kL1Ways)), unsigned(cfg.get(kL1Mshrs)),
          unsigned(cfg.get(kL1MshrMerge))),
      rows_(cfg, rf_) {
  max_threads_ = unsigned(cfg.get(kMaxThreads));
  max_ctas_ = unsigned(cfg.get(kMaxCtas));
  max_warps_ = (max_threads_ + kWarpSize - 1) / kWarpSize;
  shared_cap_ = uint64_t(cfg.get(kSharedBytes));
  nsched_ = unsigned(cfg.get(kSchedulers));
  std::string p = cfg.get(kScheduler);
  policy_ = p == "lrr"         ? Policy::lrr
            : p == "two_level"   ? Policy::two_level
            : p == "fetch_group" ? Policy::fetch_group
                                 : Policy::gto;
  two_level_active_ = unsigned(cfg.get(kTwoLevelActive));
  group_warps_ = unsigned(cfg.get(kFetchGroupWarps));
  fetch_groups_ = (max_warps_ + group_warps_ - 1) / group_warps_;
  ib_entries_ = unsigned(cfg.get(kIbufferEntries));
  fetch_lat_ = unsigned(cfg.get(kFetchLatency));
  if (cfg.get(kIcacheEnable))
    icache_ = std::make_unique<ReadOnlyCache>(unsigned(cfg.get(kIcacheSets)), unsigned(cfg.get(kIcacheWays)),
                                              mem::kLineBytes, unsigned(cfg.get(kIcacheMshrs)));
  if (cfg.get(kCcacheEnable))
    ccache_ = std::make_unique<ReadOnlyCache>(unsigned(cfg.get(kCcacheSets)), unsigned(cfg.get(kCcacheWays)),
                                              unsigned(cfg.get(kCcacheLineBytes)), unsigned(cfg.get(kCcacheMshrs)));
  oc_count_[0] = unsigned(cfg.get(kOcSp));
  oc_count_[1] = unsigned(cfg.get(kOcSfu));
  oc_count_[2] = unsigned(cfg.get(kOcMem));
  sp_units_ = unsigned(cfg.get(kSpUnits));
  sfu_units_ = unsigned(cfg.get(kSfuUnits));
  lat_sp_ = uint16_t(cfg.get(kSpLatency));
  release_waits_ = cfg.get(kReleaseWaits);
  ii_sp_ = uint16_t(cfg.get(kSpIi));
  lat_mad_ = uint16_t(cfg.get(kMadLatency));
  lat_div_ = uint16_t(cfg.get(kDivLatency));
  ii_div_ = uint16_t(cfg.get(kDivIi));
  lat_fdiv_ = uint16_t(cfg.get(kFdivLatency));
  ii_fdiv_ = uint16_t(cfg.get(kFdivIi));
  lat_dp_ = uint16_t(cfg.get(kDpLatency));
  ii_dp_ = uint16_t(cfg.get(kDpIi));
  lat_sfu_ = uint16_t(cfg.get(kSfuLatency));
  ii_sfu_ = uint16_t(cfg.get(kSfuIi));
  std::string t = cfg.get(kOpLatency);
  op_table_ = t == "gpgpusim" ? OpTable::gpgpusim : t == "gpgpusim3" ? OpTable::gpgpusim3 : OpTable::relgpu;
  result_delay_ = uint16_t(cfg.get(kResultDelay));
  smem_banks_ = unsigned(cfg.get(kSmemBanks));
  smem_lat_ = unsigned(cfg.get(kSmemLatency));
  l1_hit_ = unsigned(cfg.get(kL1HitLatency));
  l1_global_ = cfg.get(kL1GlobalLoads);
  const_lat_ = unsigned(cfg.get(kConstLatency));
  miss_q_ = unsigned(cfg.get(kMissQueue));
  ldst_q_ = unsigned(cfg.get(kLdstQueue));

  warps_.resize(max_warps_);
  warp_free_.assign(max_warps_, 1);
  ctas_.resize(max_ctas_);
  sched_.resize(nsched_);
  for (int k = 0; k < 3; ++k) oc_[k].assign(oc_count_[k], nullptr), oc_free_[k] = oc_count_[k];
  oc_total_ = oc_count_[0] + oc_count_[1] + oc_count_[2];
  fu_sp_.resize(sp_units_);
  fu_sfu_.resize(sfu_units_);
  group_read_.assign(rf_.groups(), 0);
  group_write_.assign(rf_.groups(), 0);
  rf_shared_port_ = cfg.get(kRfSharedPort);
  if (rf_shared_port_ && cfg.get(kGrGuardEnable))
    throw InputError("rf.shared_port is not modelled with grguard.enable (the patching unit has its own ports)");
  act_.sm = id_;
  act_.rf_reads.assign(rf_.banks(), 0);
  act_.rf_writes.assign(rf_.banks(), 0);
  // ---- RF faults (reliability/): this chip's fault map of this SM's RF ----
  // One Chip per GPU, shared by its SMs. gpu.num_sms is declared by the gpu
  // library; an SM built without it (sm_ tests) is on a chip of id+1 SMs.
  {
    reliability::RfGeometry g;
    g.sms = config::registry().count("gpu.num_sms") ? unsigned(cfg.value("gpu.num_sms").get<int64_t>()) : id_ + 1;
    num_sms_ = g.sms;  // RISE's IS-FRISE divides a launch's blocks by it
    g.banks = rf_.banks(), g.rows = rf_.entries(), g.entry_bits = rf_.entry_bits();
    chip_ = reliability::Chip::shared(cfg, g);
    regs_.set_faults(chip_->faults() ? &chip_->rf_faults(id_) : nullptr, cfg.get(reliability::kRfSecded));
  }
  // ---- end RF faults ----
  // GR-Guard and the RF energy account: last, after the fault map exists.
  rf_energy_ = std::make_unique<power::RfEnergyModel>(cfg, rf_.entry_bits(), rf_faults()->vdd());
  if (cfg.get(kBotEnable)) {  // bank organization (sm/bot_unit.h)
    if (cfg.get(kGrGuardEnable)) throw InputError("bot.enable and grguard.enable cannot be combined");
    if (rf_.entry_bits() != 1024)
      throw InputError("bot.enable needs rf.entry_bits=1024 (a bank = two 512-bit sub-banks), got " +
                       std::to_string(rf_.entry_bits()) + " (configs/fermi_16bank.json has the paper's RF)");
    if (max_ctas_ > unsigned(cfg.get(blocks::bank_org_table_keys::kNumSlots)))
      throw InputError("bot.enable: sm.max_ctas (" + std::to_string(max_ctas_) +
                       ") exceeds blocks.bank_org_table.num_slots");
    const reliability::SbDelays* pv = nullptr;
    if (BotUnit::needs_pv(cfg)) {  // this chip's RF delay (one per GPU, shared)
      reliability::RfGeometry g = chip_->geometry();
      bot_delay_ = reliability::RfDelay::shared(cfg, g);
      pv = &bot_delay_->sm(id_);
    }
    bot_ = std::make_unique<BotUnit>(id_, cfg, rf_.banks(), max_warps_, pv);
    bot_path_ = std::make_unique<BotPath>(*this, *bot_);
    rf_hook_ = bot_path_.get();
    regs_.set_bank_map(bot_.get());
    if (const int64_t fast = cfg.get(kBotFbaRm)) {
      if (cfg.get(kBotPairing) != "rf_bro" || cfg.get(kBotRenaming))
        throw InputError("bot.fba_rm needs bot.pairing=rf_bro (fast vbs first) and excludes bot.renaming");
      if (fast >= int64_t(rf_.groups()))
        throw InputError("bot.fba_rm=" + std::to_string(fast) + " must be below rf.num_banks (" +
                         std::to_string(rf_.groups()) + ")");
      regs_.set_fast_banks(unsigned(fast));
    }
  } else if (cfg.get(kBotFbaRm)) {
    throw InputError("bot.fba_rm needs bot.enable=true");
  }
  if (cfg.get(kLocalEnable)) {  // the local droop predictor (sm/droop_unit.h)
    if (bot_ || cfg.get(kGrGuardEnable))
      throw InputError("smoothing.local.enable cannot be combined with bot.enable or grguard.enable (they own the "
                       "RF arbitration the predictor counts and defers)");
    gate_ = std::make_unique<DroopUnit>(id_, cfg);
  }
  if (cfg.get(kDeadTime)) {  // register dead time (sm/dead_time.h): stats only
    std::vector<DeadTime::Named> overlays;
    for (DeadTimeOverlay& o : dead_time_overlays(cfg, chip_->geometry())) {
      overlays.push_back({o.rate, &o.chip->rf_faults(id_)});
      dead_chips_.push_back(std::move(o.chip));
    }
    dead_ = std::make_unique<DeadTime>(rf_.groups(), rf_.entries(), rf_.span(), rf_faults(),
                                       cfg.get(kDeadTimeDebugFirstRead), overlays);
    observers_.push_back(dead_.get());
    rf_observers_.push_back(dead_.get());
    rf_dead_all_ = cfg.get(kGrGuardDeadBits) == "all";
    rf_exit_deaths_ = cfg.get(kGrGuardExitDeaths);
  } else if (!cfg.get(kDeadTimeFaultRates).empty()) {
    throw InputError("config key '" + kDeadTimeFaultRates.name + "' needs grguard.deadtime=true");
  }
  if (cfg.get(kGrGuardEnable)) {
    // GR-Guard may keep moved entries in rows no warp owns; gating would lose them.
    if (cfg.get(kRfPowerGating)) throw InputError("rf.power_gating and grguard.enable cannot be combined");
    gr_ = std::make_unique<GrGuard>(*this, cfg);
    rf_hook_ = gr_.get();
  }
  if (cfg.get(kLessEnable)) {  // the hybrid STT-RAM/SRAM RF (sm/less_unit.h)
    if (rf_hook_ || gate_ || cfg.get(kUniformEnable))
      throw InputError("less.enable cannot be combined with grguard.enable, bot.enable, smoothing.local.enable or "
                       "uniform.enable (each owns the RF path or its access counts)");
    if (rf_.entry_bits() != 1024)
      throw InputError("less.enable needs rf.entry_bits=1024 (one bank per warp register, 16 banks as the paper's), "
                       "got " + std::to_string(rf_.entry_bits()) + " (configs/less.json has the chapter's GPU)");
    less_ = std::make_unique<LessPath>(*this, cfg);
    rf_hook_ = less_.get();
  }
  if (cfg.get(kRiseEnable) || cfg.get(kSpUpsetRate) > 0) {  // RISE and SP strikes (sm/rise.h, core_rise.cpp)
    if (cfg.get(kUniformEnable))
      throw InputError("rise.enable and sp.upset_rate cannot be combined with uniform.enable (each owns the SP "
                       "results between execute and writeback)");
    if (cfg.get(kRiseEnable)) rise_ = std::make_unique<Rise>(id_, cfg);
    if (cfg.get(kSpUpsetRate) > 0) sp_upsets_ = std::make_unique<SpUpsets>(id_, sp_units_, cfg);
    sp_occ_.resize(sp_units_);
    pair_window_ = uint64_t(cfg.get(kRisePairWindow));
    pair_sm_ = cfg.get(kRisePairScope) == "sm";
    recovery_cycles_ = uint64_t(cfg.get(kRiseRecovery));
  }
  if (cfg.get(kUpsetRate) > 0) {  // particle strikes (sm/upsets.h)
    if (gr_ || bot_ || cfg.get(kUniformEnable))
      throw InputError("rf.upset_rate needs the baseline register mapping: not with grguard.enable, bot.enable or "
                       "uniform.enable");
    upsets_ = std::make_unique<Upsets>(id_, cfg, rf_, regs_);
    observers_.push_back(upsets_.get());
  }
}

Core::~Core() = default;

void Core::begin_launch(const func::LaunchCtx& ctx) {
  if (!idle()) throw std::logic_error("sm: begin_launch while a kernel is still running");
  ctx_ = ctx;
  ex_ = std::make_unique<func::Executor>(ctx_, regs_);
  ex_->set_machine(machine_);
  ops_.clear();
  for (auto& w : warps_) w = WarpSlot{};
  regs_.set_kernel(ctx_.kernel);
  unsigned regs = ctx_.kernel->regs_used();
  rows_per_warp_ = std::max(1u, (regs + rf_.groups() - 1) / rf_.groups());
  if (rows_per_warp_ > rf_.entries())
    throw InputError("kernel '" + ctx_.kernel->name + "' needs " + std::to_string(regs) +
                     " registers per thread; a warp can hold at most " +
                     std::to_string(rf_.entries() * rf_.groups()) + " (rf.entries_per_bank x banks / span)");
  rows_.begin_launch(rows_per_warp_, now_);
  free_warps_ = max_warps_;
  std::fill(warp_free_.begin(), warp_free_.end(), 1);
  for (auto& s : sched_) s = Scheduler{};
  l1_.invalidate_all();  // L1 is not coherent: invalidate at kernel start
  st_ = Stats{};
  st_.rf_reads.assign(rf_.banks(), 0);
  st_.rf_writes.assign(rf_.banks(), 0);
  st_.rf_conflicts.assign(rf_.banks(), 0);
  st_.rf_write_conflicts.assign(rf_.banks(), 0);
  regs_.reset_fault_counts();  // RF faults: rf_faults stats are per launch
  if (rf_hook_) rf_hook_->begin_launch();
  if (upsets_) upsets_->begin_launch();
  if (dead_) dead_->begin_launch();
  if (bot_) {
    bot_->plan_launch(ctx_, regs_);  // hybrid banks
    bot_->begin_launch();
  }
  if (gate_) gate_->begin_launch();  // the droop predictor's first launch writes its CSRs
  hold_until_ = held_cycles_ = 0;
  finished_ = 0;
  started_ = false;
  if (ldst_) ldst_->begin_launch();  // sm/ldst_hook.h
  if (inst_) inst_->begin_launch();  // sm/inst_hook.h
  if (rise_) rise_->begin_launch(uint64_t(ctx_.grid.x) * ctx_.grid.y * ctx_.grid.z, num_sms_, ctx_.gridid);
  if (sp_upsets_) sp_upsets_->begin_launch();
  std::fill(sp_occ_.begin(), sp_occ_.end(), SpOcc{});
  scalar_banks_ = inst_ ? regs_.scalar_banks() : 0;
}

// RF row slots (of rows_per_warp_ rows) one warp of this shape takes.
unsigned Core::slots_per_warp(const CtaShape& s) const {
  const unsigned rows = std::max(1u, (s.regs_per_thread + rf_.groups() - 1) / rf_.groups());
  return rows <= rows_per_warp_ ? 1 : (rows + rows_per_warp_ - 1) / rows_per_warp_;
}

bool Core::can_accept(const CtaShape& s) const {
  if (!ex_) return false;
  unsigned nw = (s.threads + kWarpSize - 1) / kWarpSize;
  return live_ctas_ < max_ctas_ && threads_used_ + s.threads <= max_threads_ && nw <= free_warps_ &&
         shared_used_ + s.shared_bytes <= shared_cap_ && nw * slots_per_warp(s) <= rows_.free_slots();
}

// The limits can_accept() applies, each on its own, for an empty SM.
config::json Core::occupancy(const CtaShape& s) const {
  const unsigned nw = (s.threads + kWarpSize - 1) / kWarpSize;
  const unsigned slots_per_warp = this->slots_per_warp(s);
  const unsigned held = slots_per_warp * rows_per_warp_;  // RF rows a warp holds
  std::vector<std::pair<const char*, uint64_t>> lim = {
      {"ctas", max_ctas_},
      {"threads", std::min<uint64_t>(max_threads_ / std::max(1u, s.threads), max_warps_ / std::max(1u, nw))},
      {"rf_rows", rows_.slots() / std::max(1u, nw * slots_per_warp)}};
  if (s.shared_bytes) lim.push_back({"shared", shared_cap_ / s.shared_bytes});
  auto low = std::min_element(lim.begin(), lim.end(), [](auto& a, auto& b) { return a.second < b.second; });
  config::json limits = config::json::object();
  for (auto& [k, n] : lim) limits[k] = n;
  // GPGPU-Sim's rule: registers per thread rounded up to 4, threads to whole
  // warps. Above ctas_per_sm when whole RF rows hold more than that rounding.
  const uint64_t regs4 = std::max<uint64_t>(4, (uint64_t(s.regs_per_thread) + 3) / 4 * 4);
  return {{"ctas_per_sm", low->second},
          {"limited_by", low->first},
          {"limits", limits},
          {"rf_rows_per_warp", held},
          {"regs_per_thread_held", uint64_t(held) * rf_.groups()},
          {"ctas_by_register_count", uint64_t(rf_.entries()) * rf_.groups() / (uint64_t(nw) * regs4)}};
}

void Core::add_cta(const uint32_t ctaid[3]) {
  unsigned cs = 0;
  while (cs < ctas_.size() && ctas_[cs].live) ++cs;
  if (cs == ctas_.size()) throw std::logic_error("sm: add_cta without a free CTA slot");
  CtaSlot& c = ctas_[cs];
  ex_->init_cta(c.cta, ctaid, 0);
  c.live = true;
  c.threads = ctx_.block.x * ctx_.block.y * ctx_.block.z;
  c.shared = c.cta.shared.size();
  c.warps.clear();
  if (ldst_) ldst_->cta_added(cs);  // LoSCache: the predictor CTA
  ++live_ctas_;
  st_.max_resident_ctas = std::max<uint64_t>(st_.max_resident_ctas, live_ctas_);
  threads_used_ += c.threads;
  shared_used_ += c.shared;
  ++st_.ctas;
  unsigned nregs = unsigned(ctx_.kernel->regs.size());
  for (func::Warp& w : c.cta.warps) {
    unsigned ws = 0;
    while (!warp_free_[ws]) ++ws;
    warp_free_[ws] = 0;
    --free_warps_;
    const unsigned row_base = rows_.take();
    rows_starting_.push_back(ws);
    w.rf = ws;
    regs_.reserve(ws, nregs);
    regs_.bind(ws, &w, row_base, rows_per_warp_);
    WarpSlot& s = warps_[ws];
    s = WarpSlot{};
    s.w = &w;
    s.cta = &c.cta;
    s.cta_slot = cs;
    s.age = age_++;
    s.sbp.assign(regs_.capacity(ws), 0);
    s.sbs.assign(nregs, 0);
    c.warps.push_back(ws);
    if (!w.done) ++active_warps_;
    Scheduler& sc = sched_[ws % nsched_];
    sc.order.push_back(ws);
    if (policy_ == Policy::two_level) {
      if (sc.active.size() < two_level_active_) sc.active.push_back(ws);
      else sc.pending.push_back(ws);
    }
  }
  if (bot_) bot_->cta_added(cs, c.warps, ctaid, regs_);  // renaming-table fill, lane compaction
  if (rise_) rise_->cta_added(cs, unsigned(c.warps.size()));  // IS-FRISE: its q-th block; RP counter reset
  busy_ = true;
  fetch_scan_ = true;
  next_wake_ = 0;
}

// A CTA is finished when all its warps exited and nothing of it is in flight
// (its stores acknowledged), so the next kernel sees its writes.
void Core::cta_check(unsigned cs) {
  CtaSlot& c = ctas_[cs];
  if (!c.live) return;
  for (unsigned ws : c.warps) {
    const WarpSlot& s = warps_[ws];
    if (!s.w->done || s.inflight || s.stores) return;
  }
  for (unsigned ws : c.warps) {
    warp_free_[ws] = 1;
    ++free_warps_;
    rows_.give(regs_.row_base(ws), now_);  // the bound row base
    regs_.unbind(ws);
    Scheduler& sc = sched_[ws % nsched_];
    sc.order.erase(std::find(sc.order.begin(), sc.order.end(), ws));
    auto drop = [ws](std::vector<unsigned>& v) {
      auto it = std::find(v.begin(), v.end(), ws);
      if (it != v.end()) v.erase(it);
    };
    drop(sc.active);
    drop(sc.pending);
    if (sc.last == int(ws)) sc.last = -1;
    warps_[ws].w = nullptr;
  }
  if (policy_ == Policy::two_level)
    for (auto& sc : sched_)
      while (sc.active.size() < two_level_active_ && !sc.pending.empty()) {
        sc.active.push_back(sc.pending.front());
        sc.pending.erase(sc.pending.begin());
      }
  c.live = false;
  if (ldst_) ldst_->cta_finished(cs);  // LoSCache: predictor_done_i
  --live_ctas_;
  threads_used_ -= c.threads;
  shared_used_ -= c.shared;
  ++finished_;
}

unsigned Core::take_finished() {
  unsigned n = finished_;
  finished_ = 0;
  return n;
}

bool Core::idle() const {
  return live_ctas_ == 0 && inflight_total_ == 0 && stores_total_ == 0 && outq_.empty() && resp_.empty() &&
         (!icache_ || !icache_->any_pending()) && (!ccache_ || !ccache_->any_pending()) &&
         (!ldst_ || !ldst_->outstanding());  // LoSCache count queries in flight
}

void Core::on_response(std::unique_ptr<LineRequest> r) {
  resp_.push_back(std::move(r));
  next_wake_ = 0;
}

uint64_t Core::next_active_cycle(uint64_t now) const {
  if (!resp_.empty()) return now + 1;
  return next_wake_ <= now ? now + 1 : next_wake_;
}

void Core::cycle(uint64_t now) {
  uint64_t skipped = started_ && now > last_cycle_ + 1 ? now - last_cycle_ - 1 : 0;
  bool was_busy = !idle();
  const unsigned resident = max_warps_ - free_warps_;  // CTAs added since the last cycle included
  if (skipped && was_busy) {
    st_.cycles += skipped;
    st_.stall[last_stall_] += skipped * nsched_;
    st_.resident_warp_cycles += skipped * last_resident_;
  }
  if (skipped) publish(skipped);
  if (sink_ && started_) report_skipped(now);  // the global smoother (core_smoothing.cpp)
  started_ = true;
  last_cycle_ = now;
  now_ = now;
  act_.cycle = now;
  std::memset(act_.issued, 0, sizeof act_.issued);
  std::fill(act_.rf_reads.begin(), act_.rf_reads.end(), 0);
  std::fill(act_.rf_writes.begin(), act_.rf_writes.end(), 0);
  act_.rf_bank_conflicts = act_.oc_allocated = act_.l1_accesses = act_.l1_misses = 0;
  act_.shared_accesses = act_.mem_requests = act_.const_accesses = act_.icache_accesses = 0;
  busy_ = false;
  next_wake_ = UINT64_MAX;
  for (unsigned ws : rows_starting_) warps_[ws].wake = rows_.start(regs_.row_base(ws), now);  // sm/argo.h
  rows_starting_.clear();
  if (sp_upsets_) sp_strikes();  // core_rise.cpp

  responses();
  if (rf_hook_) rf_hook_->arbitrate();
  writeback();
  ldst();
  dispatch();
  if (gate_) gate_issue();  // picks, then the issue gate (core_smoothing.cpp)
  if (limit_.rf_reads) operand_read();
  issue();
  fetch();
  send();

  act_.active_warps = active_warps_;
  last_resident_ = max_warps_ - free_warps_;
  if (was_busy || !idle()) {
    ++st_.cycles;
    st_.resident_warp_cycles += std::max(resident, last_resident_);  // warps that finished this cycle count
  }
  act_.oc_allocated = uint16_t(oc_total_ - oc_free_[0] - oc_free_[1] - oc_free_[2]);
  bool sending = !outq_.empty() && outq_.front()->not_before <= now + 1;
  if (busy_ || sending || !ldq_.empty() || act_.oc_allocated || (rf_hook_ && rf_hook_->wants_cycle())) next_wake_ = now + 1;
  st_.oc_busy += act_.oc_allocated;
  for (Inst* in : wb_) next_wake_ = std::min(next_wake_, std::max(in->ready, now + 1));
  publish(0);
  if (sink_ && now % report_period_ == 0) report_now();
  if (next_wake_ == UINT64_MAX && live_ctas_ && !inflight_total_ && !stores_total_ && outq_.empty() && resp_.empty() &&
      (!icache_ || !icache_->any_pending()) && (!ccache_ || !ccache_->any_pending()))
    report_deadlock();
}

// Nothing in flight and nothing can issue: the resident warps wait at
// barriers that cannot release (the functional engine reports the same).
void Core::report_deadlock() const {
  for (const CtaSlot& c : ctas_)
    if (c.live && !c.cta.all_done()) {
      const func::Cta& t = c.cta;
      throw KernelError("kernel '" + ctx_.kernel->name + "': barrier deadlock in CTA (" + std::to_string(t.ctaid[0]) +
                        "," + std::to_string(t.ctaid[1]) + "," + std::to_string(t.ctaid[2]) +
                        ") on SM " + std::to_string(id_) + ": " + ex_->describe_waits(t));
    }
}

void Core::publish(uint64_t skipped) {
  if (observers_.empty()) return;
  if (skipped) {
    // All zeros but the cycle, built once: no allocation per skipped span.
    if (idle_act_.rf_reads.size() != rf_.banks()) {
      idle_act_.sm = id_;
      idle_act_.rf_reads.assign(rf_.banks(), 0);
      idle_act_.rf_writes.assign(rf_.banks(), 0);
    }
    idle_act_.cycle = now_;
    for (auto* o : observers_) o->on_cycle(idle_act_, skipped);
    return;
  }
  for (auto* o : observers_) o->on_cycle(act_, 0);
}

Inst* Core::alloc_inst() {
  if (inst_free_.empty()) {
    inst_store_.push_back(std::make_unique<Inst>());
    inst_free_.push_back(inst_store_.back().get());
  }
  Inst* in = inst_free_.back();
  inst_free_.pop_back();
  return in;
}

void Core::free_inst(Inst* in) { inst_free_.push_back(in); }

config::json Core::stats() const {
  config::json j;
  double cyc = double(st_.cycles ? st_.cycles : 1);
  j["cycles"] = st_.cycles;
  j["warp_insn"] = st_.warp_insn;
  j["thread_insn"] = st_.thread_insn;
  j["ipc"] = double(st_.thread_insn) / cyc;
  j["warp_ipc"] = double(st_.warp_insn) / cyc;
  j["ctas"] = st_.ctas;
  j["max_resident_ctas"] = st_.max_resident_ctas;  // "max_": combines by maximum (gpu/stats.cpp)
  j["its_yields"] = ex_ ? ex_->its_yields() : 0;
  // GPGPU-Sim's gpu_occupancy: resident warps over warp slots, per busy cycle.
  j["resident_warp_cycles"] = st_.resident_warp_cycles;
  j["warp_slot_cycles"] = st_.cycles * max_warps_;
  j["occupancy"] = double(st_.resident_warp_cycles) / double(std::max<uint64_t>(st_.cycles * max_warps_, 1));
  static const char* const cls[] = {"INT", "FP", "SFU", "LDST"};
  for (size_t i = 0; i < size_t(IssueClass::count_); ++i) j["issued_by_class"][cls[i]] = st_.issued_cls[i];
  static const char* const sn[] = {"issued", "scoreboard", "structural", "memory", "barrier", "idle", "throttled", "held"};
  for (int i = 0; i < kStallCount; ++i) j["scheduler_cycles"][sn[i]] = st_.stall[i];
  j["rf"]["banks"] = rf_.banks();
  j["rf"]["reads"] = st_.rf_reads;
  j["rf"]["writes"] = st_.rf_writes;
  j["rf"]["bank_conflicts"] = st_.rf_conflicts;
  j["rf"]["write_conflicts"] = st_.rf_write_conflicts;
  j["rf"]["conflict_reads"] = st_.rf_conflict_reads;
  j["rf"]["outside_reads"] = st_.rf_outside_reads;
  j["rf"]["outside_writes"] = st_.rf_outside_writes;
  j["oc"]["collectors"] = oc_count_[0] + oc_count_[1] + oc_count_[2];
  j["oc"]["avg_occupied"] = double(st_.oc_busy) / cyc;
  j["l1d"]["accesses"] = st_.l1_access;
  j["l1d"]["hits"] = st_.l1_hit;
  j["l1d"]["misses"] = st_.l1_miss;
  j["l1d"]["mshr_merges"] = st_.l1_merge;
  j["l1d"]["mshr_full_stalls"] = st_.mshr_full;
  j["l1d"]["bypass"] = st_.l1_bypass;
  j["icache"]["accesses"] = st_.icache_access;
  j["icache"]["misses"] = st_.icache_miss;
  j["ccache"]["accesses"] = st_.ccache_access;
  j["ccache"]["misses"] = st_.ccache_miss;
  j["smem"]["accesses"] = st_.smem_access;
  j["smem"]["bank_conflicts"] = st_.smem_conflicts;
  j["local_accesses"] = st_.local_access;
  j["const_param_accesses"] = st_.const_access;
  j["mem_requests"]["read"] = st_.req_read;
  j["mem_requests"]["write"] = st_.req_write;
  j["mem_requests"]["atomic"] = st_.req_atomic;
  // ---- RF faults: counters only, so that SMs and launches add up;
  // gpu/stats.cpp derives vdd = vdd_sum / maps and the rates.
  {
    const reliability::RfFaults& f = chip_->rf_faults(id_);
    config::json& r = j["rf_faults"];
    r["maps"] = 1;
    r["vdd_sum"] = f.vdd();
    r["rf_fmax_mhz_sum"] = rf_energy_->fmax_mhz();
    r["cells"] = f.cells();
    r["faulty_cells"] = f.faulty_cells();
    r["entries"] = f.entries();
    r["faulty_entries"] = f.faulty_entries();
    r["corrected_writes"] = regs_.fault_counts().corrected;
    r["corrupting_writes"] = regs_.fault_counts().corrupting;
  }
  // ---- end RF faults ----
  // RF energy (always, so that runs with and without GR-Guard compare) and
  // GR-Guard, which counts the entries its redirected accesses touch.
  power::RfActivity a;
  if (gr_) {
    gr_->add_activity(a);
  } else {
    for (uint64_t n : st_.rf_reads) a.read_entries += n;
    for (uint64_t n : st_.rf_writes) a.write_entries += n;
  }
  j["energy"] = rf_energy_->stats(a, gr_ != nullptr);
  if (gr_) j["grguard"] = gr_->stats();
  if (dead_) j["dead_time"] = dead_->stats();
  if (ldst_) j[ldst_->stats_key()] = ldst_->stats();  // sm/ldst_hook.h
  if (inst_) j[inst_->stats_key()] = inst_->stats();  // sm/inst_hook.h
  if (bot_) j["bot"] = bot_->stats();
  if (less_) j["less"] = less_->stats();
  if (rise_) j["rise"] = rise_->stats(sp_units_);
  if (sp_upsets_) j["sp_upsets"] = sp_upsets_->stats();
  if (upsets_) j["upsets"] = upsets_->stats();
  if (gate_) j[gate_->stats_key()] = gate_->stats();  // sm/issue_gate.h
  if (sink_) j["held_cycles"] = held_cycles_;  // the global smoother's hold
  if (config::json a = rows_.stats(); !a.is_null()) j["argo"] = std::move(a);  // sm/argo.h
  return j;
}

std::unique_ptr<SmCore> make_sm(unsigned sm_id, const config::Config& cfg, MemPort& port) {
  auto c = std::make_unique<Core>(sm_id, cfg, port);
  if (cfg.get(mem::kLoscacheEnable)) c->attach_ldst_hook(std::make_unique<LoscacheUnit>(sm_id, cfg));
  if (cfg.get(kUniformEnable)) c->attach_inst_hook(std::make_unique<UniformUnit>(cfg, c->regs()));
  return c;
}

}  // namespace relgpu::sm
