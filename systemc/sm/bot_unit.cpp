#include "sm/bot_unit.h"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "common/error.h"

namespace relgpu::sm {

namespace {
uint64_t field(uint64_t v, unsigned i, unsigned w) { return (v >> (i * w)) & blocks::mask(w); }

std::vector<bool> parse_sbs(const std::string& text, unsigned nsbs) {
  std::vector<bool> slow(nsbs, false);
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) continue;
    size_t used = 0;
    unsigned long v = 0;
    try {
      v = std::stoul(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || v >= nsbs)
      throw InputError(kBotSlowSbs.name + ": '" + item + "' is not a sub-bank id 0.." + std::to_string(nsbs - 1));
    slow[v] = true;
  }
  return slow;
}
}  // namespace

bool BotUnit::needs_pv(const config::Config& cfg) { return cfg.get(kBotSlowSbs) == "pv" || cfg.get(kBotVlRf); }

BotUnit::BotUnit(unsigned sm_id, const config::Config& cfg, unsigned banks, unsigned max_warps,
                 const reliability::SbDelays* pv)
    : sm_(sm_id), banks_(banks), p_(blocks::BankOrgTableParams::from(cfg)) {
  if (p_.num_vbs != banks)
    throw InputError("bot.enable: blocks.bank_org_table.num_vbs (" + std::to_string(p_.num_vbs) +
                     ") must equal rf.num_banks (" + std::to_string(banks) + ")");
  ports_ = p_.num_lookups;
  slots_ = p_.num_slots;
  if (needs_pv(cfg) && (!pv || pv->sb.size() != p_.num_sbs()))
    throw std::logic_error("bot: bot.slow_sbs=pv or bot.vl_rf without this SM's RF delays");
  if (cfg.get(kBotVlRf)) {
    if (cfg.get(kBotSlowSbs) != "" || cfg.get(kBotPairing) != "identity")
      throw InputError("bot.vl_rf is the register-level comparison scheme: it needs bot.slow_sbs empty and "
                       "bot.pairing=identity");
    reg_slow_ = pv->reg_slow;
    rows_ = unsigned(pv->half.size() / pv->sb.size());
  }
  if (cfg.get(kBotSlowSbs) == "pv") {
    slow_ = pv->slow;
    delay_ = pv->sb;
  } else {
    slow_ = parse_sbs(cfg.get(kBotSlowSbs), p_.num_sbs());
  }
  hybrid_ = cfg.get(kBotHybrid);
  compaction_ = hybrid_ && cfg.get(kBotCompaction);
  const std::string ns = cfg.get(kBotHybridRegs);
  hybrid_regs_ = ns == "launch"         ? &ptx::Function::lane_regs
                 : ns == "programmatic" ? &ptx::Function::programmatic_regs
                                        : &ptx::Function::tainted_regs;
  if (hybrid_ && (cfg.get(kBotRenaming) || cfg.get(kBotFbaRm)))
    throw InputError("bot.hybrid excludes bot.renaming and bot.fba_rm (each sets its own register-to-bank map)");
  if (cfg.get(kBotReorg) || hybrid_) {
    if (delay_.empty())
      throw InputError(std::string(hybrid_ ? "bot.hybrid" : "bot.reorg") +
                       " reads the sub-bank sensors: it needs bot.slow_sbs=pv");
    reorg_ = true;  // hybrid: the swaps run in the block's launch-time sorter
    // Code = delay in steps of 4 / (2^w - 1) of the no-PV delay, saturating.
    const unsigned w = p_.code_width, top = (1u << w) - 1;
    std::vector<uint32_t> code(delay_.size());
    for (size_t s = 0; s < delay_.size(); ++s)
      code[s] = uint32_t(std::min<double>(top, std::llround(delay_[s] * top / 4.0)));
    codes_.assign((delay_.size() * w + 31) / 32, 0);
    for (size_t s = 0; s < code.size(); ++s)
      for (unsigned b = 0; b < w; ++b) blocks::set_wide_bit(codes_, unsigned(s * w + b), (code[s] >> b) & 1);
    std::vector<uint32_t> sorted = code;
    std::sort(sorted.begin(), sorted.end());
    const unsigned nfast = reliability::RfDelay::fast_count(code.size());
    thr_ = sorted[nfast - 1];
    by_rank_ = cfg.get(kBotFastRule) == "rank";
    nf_ = by_rank_ ? nfast : unsigned(std::count_if(code.begin(), code.end(), [&](uint32_t c) { return c <= thr_; }));
  }
  rf_bro_ = cfg.get(kBotPairing) == "rf_bro";
  renaming_ = cfg.get(kBotRenaming);
  fwas_ = cfg.get(kBotFwas);
  bot_ = blocks::make<blocks::BankOrgTableBlock>(p_, blocks::Site{sm_id, &cfg, &now_});
  tr_.assign(size_t(slots_) * banks_, Tr{});
  ws_slot_.assign(max_warps, 0);
  st_.sb_access.assign(p_.num_sbs(), 0);
  in_.lk_act_i.assign(ports_, 0);
}

// The power-on ROM: entry v = {sbA, sbB, spdA, spdB} packed as wdata_i.
std::vector<uint32_t> BotUnit::rom() const {
  std::vector<unsigned> order(p_.num_sbs());
  std::iota(order.begin(), order.end(), 0u);
  // RF-BRO: fastest first (by delay with pv, else fast before slow; ties
  // by id), consecutive pairs.
  if (rf_bro_)
    std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
      if (slow_[a] != slow_[b]) return !slow_[a];
      return !delay_.empty() && delay_[a] < delay_[b];
    });
  std::vector<uint32_t> words;
  for (unsigned v = 0; v < banks_; ++v) {
    blocks::BankOrgTableModel::Entry e{order[2 * v], order[2 * v + 1], bool(slow_[order[2 * v]]),
                                       bool(slow_[order[2 * v + 1]])};
    words.push_back(blocks::BankOrgTableModel::pack(e, p_.sb_w()));
  }
  return words;
}

void BotUnit::probe_all() {
  for (unsigned s = 0; s < slots_; ++s)
    for (unsigned b = 0; b < banks_; ++b) probes_.push_back({s, b});
}

void BotUnit::begin_launch() {
  st_ = Stats{};
  st_.sb_access.assign(p_.num_sbs(), 0);
  if (reorg_) {  // after the ROM copy on the first launch; probes once it is seen
    reorg_pending_ = true;
    probes_.clear();
    for (Tr& t : tr_) t.known = false;
  }
  if (powered_) return;
  powered_ = true;
  for (uint32_t w : rom()) writes_.push_back(w);
  next_write_ = 0;
  for (Tr& t : tr_) t.known = false;
  if (!reorg_) probe_all();
}

void BotUnit::cta_added(unsigned slot, const std::vector<unsigned>& warps, const uint32_t ctaid[3], SmRegs& regs) {
  if (slot >= slots_)
    throw std::logic_error("bot: CTA slot " + std::to_string(slot) + " beyond the renaming table's rows");
  for (unsigned ws : warps) ws_slot_.at(ws) = uint8_t(slot);
  if (compaction_ && !half_ && lanes_.branches()) {
    const std::vector<LanePerm> perms = lanes_.plan(ctaid);
    for (size_t i = 0; i < warps.size(); ++i) regs.set_lanes(warps[i], perms.at(i).data());
  }
  if (!renaming_ || warps.empty()) return;
  fills_.push_back({slot, warps.back()});
  for (unsigned b = 0; b < banks_; ++b) {
    tr_[slot * banks_ + b].known = false;
    probes_.push_back({slot, b});
  }
}

bool BotUnit::vl_rf_slow(unsigned vb, unsigned row, uint32_t act) {
  const size_t base = (size_t(vb) * rows_ + row) * 32;
  for (uint32_t m = act; m; m &= m - 1)
    if (reg_slow_[base + unsigned(__builtin_ctz(m))]) {
      vl_next_ |= uint64_t(1) << vb;
      ++st_.vl_rf_slow;
      return true;
    }
  return false;
}

void BotUnit::start(uint64_t now) {
  // Skipped SM cycles clocked nothing: a slow access's hold has expired.
  if (now != last_ + 1) held_ = 0;
  vl_held_ = now == last_ + 1 ? vl_next_ : 0;
  vl_next_ = 0;
  grants_.clear();
}

unsigned BotUnit::grant(unsigned slot, unsigned bank, uint32_t act) {
  grants_.push_back({slot, bank, act});
  return unsigned(grants_.size() - 1);
}

void BotUnit::cycle(uint64_t now) {
  // A cycle with no input and nothing held leaves the block as it is (its
  // stall register is already 0): not clocking it is exact, and cheaper.
  if (grants_.empty() && held_ == 0 && !wants_cycle()) {
    busy_ = 0;
    return;
  }
  now_ = now;
  const bool reorg_done = reorg_left_ && --reorg_left_ == 0;
  blocks::BankOrgTableIn& in = in_;  // reused: no allocation per cycle
  in.we_i = in.disp_i = in.reorg_i = false;
  in.widx_i = in.wdata_i = in.disp_slot_i = in.disp_warp_i = in.lk_valid_i = 0;
  in.lk_slot_i = in.lk_bank_i = 0;
  bool control = false;
  if (!writes_.empty()) {
    in.we_i = true;
    in.widx_i = next_write_++;
    in.wdata_i = writes_.front();
    writes_.pop_front();
    control = true;
  } else if (reorg_pending_) {
    in.reorg_i = true;
    in.sensors_i = codes_;
    in.slow_thr_i = thr_;
    in.nslow_min_i = by_rank_ ? p_.num_sbs() - nf_ : 0;
    in.nhyb_i = hybrid_ ? nhyb_ : 0;
    reorg_pending_ = false;
    reorg_left_ = p_.reorg_latency();
    ++st_.reorgs;
    control = true;
  } else if (reorg_left_) {
    control = true;  // the sorter owns the table: no fill, no probe
  } else if (!fills_.empty()) {
    in.disp_i = true;
    in.disp_slot_i = fills_.front().first;
    in.disp_warp_i = fills_.front().second % banks_;
    fills_.pop_front();
    control = true;
  }
  // Lookups: this cycle's grants, then probes in the spare ports once every
  // write and fill before them has landed (a probe sees the table after its
  // writers' clock edge).
  std::vector<Lookup>& look = grants_;
  const size_t ngrant = look.size();
  if (!control && writes_.empty() && fills_.empty())
    while (look.size() < ports_ && !probes_.empty()) {
      look.push_back({probes_.front().first, probes_.front().second, 0});
      probes_.pop_front();
    }
  const unsigned VW = p_.vb_w(), SW = p_.sb_w(), LW = p_.slot_w();
  std::fill(in.lk_act_i.begin(), in.lk_act_i.end(), 0u);
  for (size_t i = 0; i < look.size(); ++i) {
    if (i < ngrant) in.lk_valid_i |= 1u << i;
    in.lk_slot_i |= uint64_t(look[i].slot) << (i * LW);
    in.lk_bank_i |= uint64_t(look[i].bank) << (i * VW);
    in.lk_act_i[i] = look[i].act;
  }
  const blocks::BankOrgTableOut out = bot_->cycle(in);
  ++st_.block_cycles;
  if (reorg_done) {
    if (out.reorg_busy_o)
      throw std::logic_error("bot: SM " + std::to_string(sm_) + ": the block still sorts " +
                             std::to_string(p_.reorg_latency()) + " cycles after reorg_i");
    probe_all();
  }
  st_.rom_writes += in.we_i;
  st_.fills += in.disp_i;
  if (now == last_ + 1 && out.stall_o != held_)
    throw std::logic_error("bot: SM " + std::to_string(sm_) + " holds vbs " + std::to_string(held_) +
                           " but the block stalls " + std::to_string(out.stall_o));
  uint64_t held = 0;
  busy_ = 0;
  for (size_t i = 0; i < look.size(); ++i) {
    Tr t;
    t.vb = uint8_t(field(out.lk_vb_o, unsigned(i), VW));
    t.sba = uint8_t(field(out.lk_sba_o, unsigned(i), SW));
    t.sbb = uint8_t(field(out.lk_sbb_o, unsigned(i), SW));
    t.spda = (out.lk_spd_o >> (2 * i)) & 1;
    t.spdb = (out.lk_spd_o >> (2 * i + 1)) & 1;
    t.known = true;
    Tr& have = tr_[look[i].slot * banks_ + look[i].bank];
    if (i >= ngrant) {
      if (hybrid_ && (t.spda != t.spdb) != bool(hyb_vbs_ >> t.vb & 1))
        throw std::logic_error("bot: SM " + std::to_string(sm_) + ": vb " + std::to_string(t.vb) +
                               (t.spda != t.spdb ? " is" : " is not") + " hybrid, against the layout");
      have = t;
      ++st_.probes;
      continue;
    }
    if (!have.known || have.vb != t.vb || have.sba != t.sba || have.sbb != t.sbb || have.spda != t.spda ||
        have.spdb != t.spdb)
      throw std::logic_error("bot: SM " + std::to_string(sm_) + " translated (slot " +
                             std::to_string(look[i].slot) + ", bank " + std::to_string(look[i].bank) +
                             ") to vb " + std::to_string(have.vb) + " but the block says vb " +
                             std::to_string(t.vb));
    ++st_.lookups;
    if (look[i].act & 0xFFFFu) ++st_.sb_access[t.sba];
    if (look[i].act >> 16) ++st_.sb_access[t.sbb];
    if (t.spda != t.spdb) {
      ++st_.hybrid_lookups;
      st_.hybrid_slow += (out.lk_busy_o >> i) & 1;
      // Slow with at most 16 slots: what a compaction that followed every branch would make fast.
      st_.hybrid_compactable += ((out.lk_busy_o >> i) & 1) && __builtin_popcount(look[i].act) <= 16;
    }
    if ((out.lk_busy_o >> i) & 1) {
      busy_ |= uint64_t(1) << i;
      held |= uint64_t(1) << t.vb;
      ++st_.busy;
    }
  }
  held_ = held;
  last_ = now;
  grants_.clear();
}

// The driver side (spec 002 §5): N_hyb = floor(16 x hybrid / all registers),
// or 16 for blocks of at most 16 threads (lanes 0-15 only: every slow
// sub-bank paired with a fast one, Eq. 3 over every vb). The block's kSwap
// (blocks/bank_org_table) then pairs the nf_ fast sub-banks into f = nf_ / 2
// fast vbs and makes n = min(N_hyb / 2, f, vbs - c) swaps (c = nf_ - f):
// vbs [f - n, f) and [c, c + n) become hybrid; an odd nf_ leaves pair f
// hybrid too. The probes check that prediction against the block.
void BotUnit::plan_launch(const func::LaunchCtx& ctx, SmRegs& regs) {
  if (!hybrid_) return;
  std::vector<uint8_t> hyb = regs.hybrid_phys(ctx.kernel, ctx.kernel->*hybrid_regs_);
  const bool half = ctx.block.x * ctx.block.y * ctx.block.z <= func::kWarpSize / 2;  // lanes 0-15 only
  half_ = half;
  if (compaction_) lanes_.begin_launch(ctx);
  regs_ = unsigned(hyb.size());
  hyb_regs_ = half ? regs_ : unsigned(std::count(hyb.begin(), hyb.end(), 1));
  nhyb_ = regs_ ? banks_ * hyb_regs_ / regs_ : 0;
  const unsigned f = nf_ / 2, c = nf_ - f, n = std::min(nhyb_ / 2, std::min(f, banks_ - std::min(banks_, c)));
  hyb_vbs_ = 0;
  std::vector<unsigned> pure, hv;
  for (unsigned v = 0; v < banks_; ++v) {
    const bool h = (v >= f - n && v < f) || (v >= c && v < c + n) || (nf_ % 2 && v == f);
    hyb_vbs_ |= uint64_t(h) << v;
    (h ? hv : pure).push_back(v);
  }
  if (half) regs.set_layout({}, {}, {});
  else regs.set_layout(std::move(hyb), std::move(pure), std::move(hv));
}

void BotUnit::halves(unsigned ws, unsigned group, unsigned& a, unsigned& b) const {
  const Tr& t = tr(ws_slot_[ws], group);
  if (!t.known)
    throw std::logic_error("bot: SM " + std::to_string(sm_) + " accessed bank " + std::to_string(group) +
                           " of warp slot " + std::to_string(ws) + " without a translation");
  a = t.sba;
  b = t.sbb;
}

config::json BotUnit::stats() const {
  config::json j;
  j["block_cycles"] = st_.block_cycles;
  j["rom_writes"] = st_.rom_writes;
  j["rt_fills"] = st_.fills;
  j["probes"] = st_.probes;
  j["lookups"] = st_.lookups;
  j["slow_accesses"] = st_.busy;
  j["port_waits"] = st_.port_waits;
  j["translation_waits"] = st_.translation_waits;
  j["fwas_fast_issues"] = st_.fast_issues;
  if (vl_rf()) j["vl_rf_slow_accesses"] = st_.vl_rf_slow;
  if (reorg_) {
    j["reorgs"] = st_.reorgs;
    // Sub-banks the sorter counts fast: 22 by rank; by threshold more where
    // codes tie at the 22nd-fastest.
    j["max_fast_sbs"] = nf_;
  }
  if (hybrid_) {
    j["hybrid"]["regs"] = hyb_regs_;
    j["hybrid"]["of_regs"] = regs_;
    j["hybrid"]["max_nhyb"] = nhyb_;  // "max_": the maximum over SMs and launches (gpu/stats.cpp)
    j["hybrid"]["max_vbs"] = __builtin_popcountll(hyb_vbs_);
    j["hybrid"]["lookups"] = st_.hybrid_lookups;
    j["hybrid"]["slow"] = st_.hybrid_slow;
    j["hybrid"]["slow_compactable"] = st_.hybrid_compactable;
    if (compaction_) {
      j["hybrid"]["max_lane_branches"] = lanes_.branches();
      j["hybrid"]["planned_warps"] = lanes_.planned_warps();
      j["hybrid"]["permuted_warps"] = lanes_.permuted_warps();
    }
  }
  j["sb_accesses"] = st_.sb_access;
  return j;
}

}  // namespace relgpu::sm
