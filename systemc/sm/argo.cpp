#include "sm/argo.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "reliability/nbti_argo.h"

namespace relgpu::sm {

using config::json;

RowAllocator::RowAllocator(const config::Config& cfg, RegisterFile& rf)
    : rf_(rf),
      rotating_(cfg.get(kRfAllocPolicy) == "rotating"),
      gating_(cfg.get(kRfPowerGating)),
      wakeup_(unsigned(cfg.get(kRfWakeupCycles))),
      gate_rows_(unsigned(cfg.get(kRfGateRows))),
      rows_(rf.entries()) {
  report_ = cfg.get(kRfRowStats) || rotating_ || gating_;
  if (rows_ % gate_rows_ != 0)
    throw InputError("rf.gate_rows (" + std::to_string(gate_rows_) + ") must divide rf.entries_per_bank (" +
                     std::to_string(rows_) + ")");
  on_rows_.assign(rows_ / gate_rows_, 0);
  dom_since_.assign(on_rows_.size(), 0);
  row_since_.assign(rows_, 0);
}

void RowAllocator::begin_launch(unsigned rows_per_slot, uint64_t /*now*/) {
  rps_ = rows_per_slot;
  slot_free_.assign(rows_ / rps_, 1);
  free_ = unsigned(slot_free_.size());
  std::fill(on_rows_.begin(), on_rows_.end(), 0);  // nothing allocated: every domain gated
  alloc_cycles_.assign(report_ ? rows_ : 0, 0);
  powered_cycles_.assign(report_ && gating_ ? on_rows_.size() : 0, 0);
  wakeups_ = collisions_ = allocations_ = 0;
}

unsigned RowAllocator::take() {
  const unsigned n = unsigned(slot_free_.size());
  unsigned s = 0;
  if (rotating_) {
    unsigned c = (cursor_ + rps_ - 1) / rps_ % n;  // the candidate, aligned up to a slot
    s = c;
    while (!slot_free_[s]) s = (s + 1) % n;
    if (s != c) ++collisions_;
    cursor_ = (s + 1) % n * rps_;
  } else {
    while (!slot_free_[s]) ++s;
  }
  slot_free_[s] = 0;
  --free_;
  ++allocations_;
  return s * rps_;
}

uint64_t RowAllocator::start(unsigned row_base, uint64_t now) {
  uint64_t ready = now;
  for (unsigned r = row_base; r < row_base + rps_; ++r) open(r, now, ready);
  return ready;
}

void RowAllocator::give(unsigned row_base, uint64_t now) {
  slot_free_[row_base / rps_] = 1;
  ++free_;
  for (unsigned r = row_base; r < row_base + rps_; ++r) close(r, now);
}

void RowAllocator::open(unsigned row, uint64_t now, uint64_t& ready) {
  if (report_) row_since_[row] = now;
  unsigned d = row / gate_rows_;
  if (on_rows_[d]++ == 0 && gating_) {  // a gated domain wakes
    ++wakeups_;
    ready = std::max(ready, now + wakeup_);
    if (report_) dom_since_[d] = now;
  }
}

void RowAllocator::close(unsigned row, uint64_t now) {
  if (report_) alloc_cycles_[row] += now - row_since_[row];
  unsigned d = row / gate_rows_;
  if (--on_rows_[d] == 0 && gating_) {  // gated: its rows lose their contents
    if (report_) powered_cycles_[d] += now - dom_since_[d];
    for (unsigned r = d * gate_rows_; r < (d + 1) * gate_rows_; ++r)
      for (unsigned g = 0; g < rf_.groups(); ++g) std::memset(rf_.wreg(g, r), 0, 32 * sizeof(uint32_t));
  }
}

json RowAllocator::stats() const {
  json j;
  if (!report_) return j;
  j["launches"] = 1;
  j["gated_launches"] = gating_ ? 1 : 0;
  j["allocations"] = allocations_;
  j["collisions"] = collisions_;
  j["wakeups"] = wakeups_;
  j["alloc_row_cycles"] = alloc_cycles_;
  if (gating_) {
    std::vector<uint64_t> p(rows_);
    for (unsigned r = 0; r < rows_; ++r) p[r] = powered_cycles_[r / gate_rows_];
    j["powered_row_cycles"] = std::move(p);
  }
  return j;
}

// ---- derived: utilization, duty, leakage, aging ----
void derive_argo(json& d) {
  if (!d.contains("sms") || !d["sms"].is_array()) return;
  double cells = 0, busy_cells = 0, alloc = 0, powered = 0, max_duty = 0, max_alloc = 0;
  uint64_t wakeups = 0, collisions = 0, allocations = 0;
  bool any = false, gated = false;
  for (const json& s : d["sms"]) {
    if (!s.contains("argo") || !s["argo"].contains("alloc_row_cycles")) continue;
    const json& a = s["argo"];
    const double kc = double(s.value("kernel_cycles", uint64_t(0)));
    if (kc <= 0) continue;
    any = true;
    gated = a.value("gated_launches", 0) > 0;
    if (gated && a.value("gated_launches", 0) != a.value("launches", 0))
      throw std::logic_error("argo stats: power gating on in some launches only");
    const json& ar = a["alloc_row_cycles"];
    cells += kc * double(ar.size());
    busy_cells += double(s.value("cycles", uint64_t(0))) * double(ar.size());
    for (size_t r = 0; r < ar.size(); ++r) {
      double x = ar[r].get<double>();
      alloc += x;
      max_alloc = std::max(max_alloc, std::min(x / kc, 1.0));
      double p = gated ? a["powered_row_cycles"][r].get<double>() : kc;
      if (x > kc + 1 || p > kc + 1) throw std::logic_error("argo stats: a row held longer than its launch");
      powered += p;
      max_duty = std::max(max_duty, std::min(p / kc, 1.0));
    }
    wakeups += a.value("wakeups", uint64_t(0));
    collisions += a.value("collisions", uint64_t(0));
    allocations += a.value("allocations", uint64_t(0));
  }
  if (!any) return;
  json o;
  o["utilization"] = alloc / cells;
  o["utilization_busy"] = busy_cells > 0 ? alloc / busy_cells : 0.0;  // over the SMs' busy cycles only
  o["powered_fraction"] = powered / cells;
  o["leakage_reduction"] = 1 - powered / cells;  // SRAM leakage ~ powered size (ARGO [31])
  o["max_row_duty"] = max_duty;                   // the most stressed row's powered fraction
  o["min_recovery"] = 1 - max_duty;               // Table 3's worst-case recovery time
  o["max_row_alloc_duty"] = max_alloc;
  o["allocations"] = allocations;
  o["collisions"] = collisions;
  o["wakeups"] = wakeups;
  // Vth shift of the most stressed row against an always-powered row, 5 years.
  for (int node : {45, 65}) {
    const auto& t = reliability::nbti_tech(node);
    reliability::NbtiPoint hot, cold;
    cold.temp_c = 25;
    const double period = reliability::nbti_dc_matched_period(t, hot.temp_c);
    json& g = o["aging"][t.name];
    g["vth_reduction_dc_matched"] = 1 - reliability::nbti_ratio(max_duty, t, hot, period);
    g["vth_reduction_high_freq"] = 1 - reliability::nbti_ratio(max_duty, t, hot, 0);
    g["vth_reduction_25C"] = 1 - reliability::nbti_ratio(max_duty, t, cold, period);
  }
  d["argo"] = std::move(o);
}

}  // namespace relgpu::sm
