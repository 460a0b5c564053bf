#include "sm/droop_unit.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/error.h"
#include "power/chip_keys.h"
#include "power/rf_energy.h"

namespace relgpu::sm {

namespace {
// Per-event energies at Vnom in the block's input order (INT FP SFU LDST RD WR).
std::array<double, 6> energies(const config::Config& cfg) {
  using namespace power;
  return {cfg.get(chip_keys::kInt),  cfg.get(chip_keys::kFp),  cfg.get(chip_keys::kSfu),
          cfg.get(chip_keys::kLdst), cfg.get(rf_keys::kRead), cfg.get(rf_keys::kWrite)};
}

std::array<uint32_t, 6> parse_weights(const std::string& text) {
  std::array<uint32_t, 6> w{};
  std::stringstream ss(text);
  std::string item;
  unsigned n = 0;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    size_t used = 0;
    long v = -1;
    try {
      v = std::stol(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || v < 0 || n >= 6)
      throw InputError(kLocalWeights.name + ": '" + text + "' is not 'auto' or six non-negative integers");
    w[n++] = uint32_t(v);
  }
  if (n != 6) throw InputError(kLocalWeights.name + ": '" + text + "' is not 'auto' or six non-negative integers");
  return w;
}
}  // namespace

double DroopUnit::pmax_nj(const config::Config& cfg) {
  const blocks::DroopPredictorParams p = blocks::DroopPredictorParams::from(cfg);
  const std::array<double, 6> e = energies(cfg);
  const double cmax = double(blocks::mask(p.cnt_width)), rmax = double(blocks::mask(p.rf_cnt_width));
  return (e[0] + e[1] + e[2] + e[3]) * cmax + (e[4] + e[5]) * rmax;
}

DroopUnit::DroopUnit(unsigned sm_id, const config::Config& cfg)
    : sm_(sm_id),
      width_(unsigned(cfg.get(kLocalWidth))),
      p_(blocks::DroopPredictorParams::from(cfg)),
      ignore_(cfg.get(kLocalDebugIgnore)) {
  std::array<uint32_t, 6> w{};
  const std::string wt = cfg.get(kLocalWeights);
  if (wt == "auto") {
    const double lsb = pmax_nj(cfg) / 1024.0;
    const std::array<double, 6> e = energies(cfg);
    for (unsigned i = 0; i < 6; ++i) w[i] = uint32_t(std::llround(e[i] / lsb));
  } else {
    w = parse_weights(wt);
  }
  for (unsigned i = 0; i < 6; ++i)
    if (w[i] > blocks::mask(p_.weight_width))
      throw InputError(kLocalWeights.name + ": weight " + std::to_string(i) + " = " + std::to_string(w[i]) +
                       " does not fit blocks.droop_predictor.weight_width = " + std::to_string(p_.weight_width) +
                       " bits");
  const config::Key<int64_t>* thr[3] = {&kLocalThr2, &kLocalThr3, &kLocalThr4};
  for (unsigned k = 0; k < 3; ++k) {
    const int64_t t = cfg.get(*thr[k]);
    if (uint64_t(t) > blocks::mask(p_.power_width))
      throw InputError(thr[k]->name + " = " + std::to_string(t) + " does not fit blocks.droop_predictor.power_width = " +
                       std::to_string(p_.power_width) + " bits");
    csr_[6 + k] = uint32_t(t);
  }
  for (unsigned i = 0; i < 6; ++i) csr_[i] = w[i];
  const std::string th = cfg.get(kLocalThrottle);
  csr_[9] = th == "both" ? 3u : th == "dispatch" ? 1u : 2u;
  blk_ = blocks::make<blocks::DroopPredictorBlock>(p_, blocks::Site{sm_id, &cfg, &now_});
  if (const std::string t = cfg.get(kLocalTrace); !t.empty()) {
    const std::string path = t + ".sm" + std::to_string(sm_id) + ".csv";
    trace_ = std::make_unique<std::ofstream>(path);
    if (!*trace_) throw InputError(kLocalTrace.name + ": cannot write '" + path + "'");
    *trace_ << "cycle,power\n";
  }
}

blocks::DroopPredictorOut DroopUnit::clock(const blocks::DroopPredictorIn& in) {
  ++st_.block_cycles;
  return blk_->cycle(in);
}

void DroopUnit::begin_launch() {
  st_ = Stats{};
  if (programmed_) return;
  programmed_ = true;
  for (unsigned a = 0; a < csr_.size(); ++a) {
    blocks::DroopPredictorIn in;
    in.csr_we_i = true;
    in.csr_addr_i = a;
    in.csr_wdata_i = csr_[a];
    const blocks::DroopPredictorOut out = clock(in);
    if (out.droop_o || out.power_o)
      throw std::logic_error("droop: SM " + std::to_string(sm_) + ": the block predicts with zero counts");
  }
  st_.block_cycles = 0;  // start-up, not the launch's
}

IssueGate::Limit DroopUnit::cycle(uint64_t now, const Demand& d) {
  // Cycles the SM skipped had no events: zeros owed to the history.
  if (now > last_ + 1) owed_ += unsigned(std::min<uint64_t>(now - last_ - 1, 8));
  last_ = now;
  const uint32_t cm = uint32_t(blocks::mask(p_.cnt_width)), rm = uint32_t(blocks::mask(p_.rf_cnt_width));
  blocks::DroopPredictorIn in;
  in.n_int_i = std::min(d.issue[0], cm);
  in.n_fp_i = std::min(d.issue[1], cm);
  in.n_sfu_i = std::min(d.issue[2], cm);
  in.n_ldst_i = std::min(d.issue[3], cm);
  in.n_rf_rd_i = std::min(d.rf_reads, rm);
  in.n_rf_wr_i = std::min(d.rf_writes, rm);
  if (!(in.n_int_i | in.n_fp_i | in.n_sfu_i | in.n_ldst_i | in.n_rf_rd_i | in.n_rf_wr_i)) {
    owed_ = std::min(owed_ + 1, 8u);  // outputs are 0 (see the header)
    return {};
  }
  now_ = now;
  for (unsigned k = std::min(owed_, p_.hist_depth - 1); k > 0; --k) {
    const blocks::DroopPredictorOut z = clock(blocks::DroopPredictorIn{});
    if (z.droop_o || z.power_o)
      throw std::logic_error("droop: SM " + std::to_string(sm_) + ": the block predicts with zero counts");
  }
  owed_ = 0;
  const blocks::DroopPredictorOut out = clock(in);
  st_.predictions += out.droop_o;
  st_.throttled_dispatch += out.throttle_dispatch_o;
  st_.throttled_rf += out.throttle_rf_o;
  st_.power_sum += out.power_o;
  last_out_ = {now, out.throttle_dispatch_o, out.throttle_rf_o, out.power_o};
  if (trace_) *trace_ << now << ',' << out.power_o << '\n';
  Limit l;
  if (ignore_) return l;
  if (out.throttle_dispatch_o) l.width = width_;
  l.rf_reads = !out.throttle_rf_o;
  return l;
}

config::json DroopUnit::stats() const {
  if (trace_) trace_->flush();  // a launch's rows are complete when its stats are
  config::json j;
  j["block_cycles"] = st_.block_cycles;
  j["predictions"] = st_.predictions;
  j["throttled_dispatch_cycles"] = st_.throttled_dispatch;
  j["throttled_rf_cycles"] = st_.throttled_rf;
  j["deferred_issues"] = st_.deferred_issues;
  j["power_lsb_sum"] = st_.power_sum;
  return j;
}

}  // namespace relgpu::sm
