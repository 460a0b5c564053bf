#include "power/chip_power.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "power/chip_keys.h"
#include "power/rf_energy.h"
#include "power/vf.h"

namespace relgpu::power {

using config::json;

const char* const ChipPower::kEvName[kEvents] = {"int", "fp",     "sfu",    "ldst",     "rf_read", "rf_write", "oc",
                                                 "l1d", "shared", "const",  "icache",   "pipeline", "idle_sm"};

ChipPower::ChipPower(const config::Config& cfg, std::vector<SmSide> sides, unsigned channels)
    : channels_(channels), interval_(uint64_t(cfg.get(chip_keys::kTraceInterval))) {
  using namespace chip_keys;
  const VfModel vf(cfg);
  const double v = cfg.get(kVdd);
  v2_ = v * v;
  leak_scale_ = vf.leakage_scale(v);
  constant_w_ = cfg.get(kConstantW);
  flit_nj_ = cfg.get(kFlit) * v2_;
  mc_nj_ = cfg.get(kMc) * v2_;
  l2_access_nj_ = cfg.get(kL2Access) * v2_;
  mc_w_ = cfg.get(kMcW) * v2_;
  act_nj_ = cfg.get(kAct) * v2_;
  pre_nj_ = cfg.get(kPre) * v2_;
  rd_nj_ = cfg.get(kRd) * v2_;
  wr_nj_ = cfg.get(kWr) * v2_;
  ref_nj_ = cfg.get(kRef) * v2_;
  trefi_s_ = cfg.get(kTrefi) * 1e-9;
  leak_icnt_w_ = cfg.get(kLeakIcnt) * leak_scale_;
  leak_mc_w_ = cfg.get(kLeakMc) * leak_scale_;
  leak_sm_w_ = cfg.get(kLeakSm) * leak_scale_;
  const double base[kEvents] = {cfg.get(kInt),    cfg.get(kFp),     cfg.get(kSfu),    cfg.get(kLdst),
                                0,                0,                cfg.get(kOc),     cfg.get(rf_keys::kL1Spill),
                                cfg.get(kShared), cfg.get(kConst),  cfg.get(kIcache), cfg.get(kPipeline),
                                cfg.get(kIdleSm)};
  for (const SmSide& side : sides) {
    Sm s;
    s.side = side;
    for (unsigned e = 0; e < kEvents; ++e) s.e[e] = base[e] * v2_;
    // The RF at its own supply, per bank entry (power/rf_energy.h).
    const double rv2 = side.rf_vdd * side.rf_vdd / (kRfVnom * kRfVnom), span = side.rf_entry_bits / 1024.0;
    s.e[rf_read] = cfg.get(rf_keys::kRead) * span * rv2;
    s.e[rf_write] = cfg.get(rf_keys::kWrite) * span * rv2;
    s.leak_w = leak_sm_w_ + cfg.get(rf_keys::kLeak) * 1e-3 * vf.leakage_scale(side.rf_vdd);
    sms_.push_back(s);
  }
  const std::string path = cfg.get(kTrace);
  if (!path.empty()) {
    trace_ = std::make_unique<std::ofstream>(path, std::ios::trunc);
    if (!*trace_) throw InputError(path + ": cannot open the power trace file (power.trace / --power-trace)");
    *trace_ << "sm,first_cycle,cycles,start_ps,end_ps,dynamic_nj,leakage_nj,power_w";
    for (unsigned e = 0; e < kEvents; ++e)
      if (e != rf_write) *trace_ << "," << (e == rf_read ? "rf" : kEvName[e]) << "_nj";
    *trace_ << "\n";
  }
}

ChipPower::~ChipPower() = default;

// Sum of a per-bank count vector, eight bytes at a time: the byte loop was
// most of the model's per-cycle cost (callgrind, nbody small).
static unsigned sum_bytes(const std::vector<uint8_t>& v) {
  const uint8_t* p = v.data();
  const size_t n = v.size();
  unsigned s = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    w = (w & 0x00FF00FF00FF00FFull) + ((w >> 8) & 0x00FF00FF00FF00FFull);  // four 16-bit sums
    s += unsigned((w * 0x0001000100010001ull) >> 48);
  }
  for (; i < n; ++i) s += p[i];
  return s;
}

void ChipPower::on_cycle(const sm::Activity& a, uint64_t skipped) {
  Sm& s = sms_[a.sm];
  if (skipped) {
    span(s, a.cycle + 1, a.cycle + 1 + skipped);
    return;
  }
  if (a.cycle < s.next) return;  // accounted already (a launch's idle tail)
  if (a.cycle > s.next) span(s, s.next, a.cycle);
  if (a.cycle >= s.win_end) roll(s, a.cycle);
  std::fill(std::begin(s.last), std::end(s.last), 0);
  count(a, s.last);
  for (unsigned e = 0; e < kEvents; ++e) s.win[e] += s.last[e];
  s.last_cycle = a.cycle;
  s.resident = a.active_warps > 0;
  s.next = a.cycle + 1;
}

void ChipPower::count(const sm::Activity& a, uint64_t* w) {
  w[int_] += a.issued[0];
  w[fp] += a.issued[1];
  w[sfu] += a.issued[2];
  w[ldst] += a.issued[3];
  w[rf_read] += sum_bytes(a.rf_reads);
  w[rf_write] += sum_bytes(a.rf_writes);
  w[oc] += a.oc_allocated;
  w[l1d] += a.l1_accesses;
  w[shared] += a.shared_accesses;
  w[const_] += a.const_accesses;
  w[icache] += a.icache_accesses;
  ++w[a.active_warps > 0 ? active : idle];
}

double ChipPower::cycle_nj(const sm::Activity& a) const {
  const Sm& s = sms_[a.sm];
  if (s.last_cycle == a.cycle) return dynamic_nj(s, s.last);
  uint64_t n[kEvents] = {};
  count(a, n);
  return dynamic_nj(sms_[a.sm], n);
}

void ChipPower::span(Sm& s, uint64_t from, uint64_t to) {
  from = std::max(from, s.next);
  while (from < to) {
    if (from >= s.win_end) roll(s, from);
    uint64_t n = std::min(to, s.win_end) - from;
    s.win[s.resident ? active : idle] += n;
    from += n;
    s.next = from;  // a window's cycles end at s.next (write_row)
  }
}

void ChipPower::close(Sm& s) {
  if (trace_ && s.win[active] + s.win[idle]) write_row(s, unsigned(&s - sms_.data()));
  for (unsigned e = 0; e < kEvents; ++e) s.tot[e] += s.win[e], s.win[e] = 0;
}

void ChipPower::roll(Sm& s, uint64_t c) {
  close(s);
  s.win_start = c - c % interval_;
  s.win_end = s.win_start + interval_;
}

double ChipPower::dynamic_nj(const Sm& s, const uint64_t* n) const {
  double e = 0;
  for (unsigned i = 0; i < kEvents; ++i) e += double(n[i]) * s.e[i];
  return e;
}

void ChipPower::write_row(const Sm& s, unsigned id) {
  // A window's cycles are consecutive from the first accounted one.
  const uint64_t cycles = s.win[active] + s.win[idle], first = s.next - cycles;
  const uint64_t t0 = s.side.clock.edge_ps(first), t1 = s.side.clock.edge_ps(s.next);
  const double dyn = dynamic_nj(s, s.win), leak = s.leak_w * double(t1 - t0) * 1e-3;
  std::ofstream& o = *trace_;
  o << id << "," << first << "," << cycles << "," << t0 << "," << t1 << "," << dyn << "," << leak << ","
    << (t1 > t0 ? (dyn + leak) / double(t1 - t0) * 1e3 : 0.0);
  for (unsigned e = 0; e < kEvents; ++e) {
    if (e == rf_write) continue;
    double x = double(s.win[e]) * s.e[e];
    if (e == rf_read) x += double(s.win[rf_write]) * s.e[rf_write];
    o << "," << x;
  }
  o << "\n";
}

void ChipPower::begin_launch(uint64_t start_ps) {
  for (Sm& s : sms_) {
    s.next = std::max(s.next, s.side.clock.cycle_at_or_after(start_ps));
    s.first = s.next;
    std::fill(std::begin(s.win), std::end(s.win), 0);
    std::fill(std::begin(s.tot), std::end(s.tot), 0);
    s.win_start = s.win_end = s.next;  // the first accounted cycle opens a window
  }
}

static double num(const json& o, std::initializer_list<const char*> path) {
  const json* p = &o;
  for (const char* k : path) {
    if (!p->is_object() || !p->contains(k)) return 0;
    p = &(*p)[k];
  }
  return p->is_number() ? p->get<double>() : 0;
}

json ChipPower::launch_stats(const json& d, uint64_t start_ps, uint64_t end_ps) {
  const double secs = double(end_ps - start_ps) * 1e-12;
  json comp = json::object(), sms = json::array(), events = json::object();
  uint64_t ev[kEvents] = {};
  double ce[kEvents] = {}, sm_dyn = 0, sm_leak = 0;
  for (Sm& s : sms_) {
    span(s, s.next, s.side.clock.cycle_at_or_after(end_ps));
    close(s);
    s.win_start = s.win_end = s.next;
    // Leakage over the SM's accounted cycles, as its trace rows (W x ps = 1e-3 nJ).
    const double dyn = dynamic_nj(s, s.tot);
    const double leak = s.leak_w * double(s.side.clock.edge_ps(s.next) - s.side.clock.edge_ps(s.first)) * 1e-3;
    sm_dyn += dyn, sm_leak += leak;
    for (unsigned e = 0; e < kEvents; ++e) ev[e] += s.tot[e], ce[e] += double(s.tot[e]) * s.e[e];
    sms.push_back({{"dynamic_nj", dyn},
                   {"leakage_nj", leak},
                   {"active_cycles", s.tot[active]},
                   {"idle_cycles", s.tot[idle]}});
  }
  if (trace_) trace_->flush();
  for (unsigned e = 0; e < kEvents; ++e) {
    events[kEvName[e]] = ev[e];
    if (e != rf_read && e != rf_write) comp[kEvName[e]] = {{"dynamic_nj", ce[e]}, {"leakage_nj", 0.0}};
  }
  const double nsm = double(sms_.size());
  comp["sm_logic"] = {{"dynamic_nj", 0.0}, {"leakage_nj", leak_sm_w_ * nsm * secs * 1e9}};
  // The RF and GR-Guard's patching unit: their accounts (power/rf_energy.h).
  for (const char* k : {"rf", "patching_unit"})
    if (d.contains("energy") && d["energy"].contains(k))
      comp[k] = {{"dynamic_nj", num(d, {"energy", k, "dynamic_nj"})},
                 {"leakage_nj", num(d, {"energy", k, "leakage_nj"})}};
  comp["l2"] = {{"dynamic_nj", num(d, {"l2_energy", "dynamic_nj"}) + num(d, {"l2", "sectors"}) * l2_access_nj_},
                {"leakage_nj", num(d, {"l2_energy", "leakage_nj"})}};
  const double flits = num(d, {"icnt", "request", "flits"}) + num(d, {"icnt", "response", "flits"});
  comp["icnt"] = {{"dynamic_nj", flits * flit_nj_}, {"leakage_nj", leak_icnt_w_ * secs * 1e9}};
  const double reqs = num(d, {"dram", "reads"}) + num(d, {"dram", "writes"});
  comp["mc"] = {{"dynamic_nj", reqs * mc_nj_ + mc_w_ * channels_ * secs * 1e9},
                {"leakage_nj", leak_mc_w_ * channels_ * secs * 1e9}};
  const double acts = num(d, {"dram", "activates"}), pres = num(d, {"dram", "precharges"});
  const double rd = num(d, {"dram", "bytes_read"}) / 32, wr = num(d, {"dram", "bytes_written"}) / 32;
  const double refs = double(channels_) * secs / trefi_s_;
  comp["dram"] = {{"dynamic_nj", acts * act_nj_ + pres * pre_nj_ + rd * rd_nj_ + wr * wr_nj_ + refs * ref_nj_},
                  {"leakage_nj", 0.0},
                  {"activate_nj", acts * act_nj_},
                  {"precharge_nj", pres * pre_nj_},
                  {"read_nj", rd * rd_nj_},
                  {"write_nj", wr * wr_nj_},
                  {"refresh_nj", refs * ref_nj_}};
  events["icnt_flits"] = uint64_t(flits);
  events["dram_requests"] = uint64_t(reqs);
  double dyn = 0, leak = 0;
  for (auto& c : comp) dyn += c["dynamic_nj"].get<double>(), leak += c["leakage_nj"].get<double>();
  const double cst = constant_w_ * secs * 1e9;
  json p = {{"time_ps", end_ps - start_ps},
            {"dynamic_nj", dyn},
            {"leakage_nj", leak},
            {"constant_nj", cst},
            {"total_nj", dyn + leak + cst},
            // What the SM rows of the trace sum to (RF from the activity,
            // which equals the RF account's dynamic energy without GR-Guard).
            {"sm_dynamic_nj", sm_dyn},
            {"sm_leakage_nj", sm_leak},
            {"components", std::move(comp)},
            {"events", std::move(events)},
            {"sms", std::move(sms)}};
  derive_power(p);
  return p;
}

void derive_power(json& p) {
  if (!p.is_object() || !p.contains("time_ps") || !p["time_ps"].is_number()) return;
  const double t = p["time_ps"].get<double>();
  auto w = [&](const json& nj) { return t > 0 && nj.is_number() ? nj.get<double>() / t * 1e3 : 0.0; };
  for (const std::string k : {"dynamic", "leakage", "constant", "total"}) p[k + "_w"] = w(p[k + "_nj"]);
  if (p.contains("components"))
    for (auto& c : p["components"]) c["avg_w"] = w(c["dynamic_nj"]) + w(c["leakage_nj"]);
}

}  // namespace relgpu::power
