#include "power/l2_energy.h"

namespace relgpu::power {

namespace {
constexpr double kVnom = 1.0;  // volts; only ratios to it matter (energy.h)
constexpr double kDataBits = 1024;
const char* const kNames[L2Energy::kEvents] = {"tag", "data_read", "data_write", "wake"};
}  // namespace

static EnergyAccount make_account(const config::Config& cfg) {
  EnergyAccount a("l2", kVnom, kVnom);
  a.event(kNames[L2Energy::tag], cfg.get(kL2TagNj));
  a.event(kNames[L2Energy::data_read], cfg.get(kL2ReadNj));
  a.event(kNames[L2Energy::data_write], cfg.get(kL2WriteNj));
  a.event(kNames[L2Energy::wake], cfg.get(kL2WakeNj));
  a.set_leakage_mw(cfg.get(kL2LeakMw));
  return a;
}

L2Energy::L2Energy(const config::Config& cfg) : acc_(make_account(cfg)), fresh_(acc_) {
  double t = double(cfg.get(kL2TagBits)) / (double(cfg.get(kL2TagBits)) + kDataBits);
  gated_ = t + (1 - t) * cfg.get(kL2GatedResidual);
}

void L2Energy::reset() { acc_ = fresh_; }

config::json L2Energy::stats(double seconds, double on_fraction) const {
  EnergyAccount gated = acc_, all = acc_;
  gated.leak(seconds, on_fraction + (1 - on_fraction) * gated_);
  all.leak(seconds, 1.0);
  config::json ev = gated.stats()["events"];
  // With every line powered nothing is woken.
  double all_dyn = all.dynamic_nj() - ev["wake"]["nj"].get<double>();
  return {{"dynamic_nj", gated.dynamic_nj()},
          {"leakage_nj", gated.leakage_nj()},
          {"total_nj", gated.total_nj()},
          {"all_powered_leakage_nj", all.leakage_nj()},
          {"all_powered_total_nj", all_dyn + all.leakage_nj()},
          {"events", ev}};
}

double L2Energy::ideal_total_nj(double seconds, double live_fraction, uint64_t wakes) const {
  EnergyAccount a = acc_;
  a.count(wake, wakes);
  a.leak(seconds, live_fraction + (1 - live_fraction) * gated_);
  return a.total_nj();
}

void derive_l2_energy(config::json& e) {
  if (!e.is_object() || !e.contains("total_nj") || !e.contains("all_powered_total_nj")) return;
  double a = e["all_powered_total_nj"].get<double>();
  e["energy_ratio"] = a > 0 ? e["total_nj"].get<double>() / a : 0.0;
}

}  // namespace relgpu::power
