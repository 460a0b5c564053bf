// Per-component energy accounts: the first pieces of relgpu's power model.
// A component (the RF of one SM, one L2 slice, the patching unit...) counts
// its dynamic events, each with an energy per event at the nominal supply,
// and integrates its leakage power over time. Voltage scaling, the standard
// first-order CMOS rules (Rabaey, Digital Integrated Circuits, ch. 5):
//   dynamic energy per event  ~ C V^2      -> E(V) = E(Vnom) (V / Vnom)^2
//   leakage power             ~ I_leak V   -> P(V) = P(Vnom) (V / Vnom)
// (I_leak itself falls with V through DIBL; the undervolted RF adds that
// factor, power/vf.h, where it sets its leakage.)
// Power-gated parts leak a configurable fraction (the caller integrates
// leakage with the fraction of the component that is powered).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"

namespace relgpu::power {

class EnergyAccount {
 public:
  EnergyAccount(std::string name, double vnom, double vdd);

  // Declares an event kind with its energy per event at Vnom, in nJ.
  unsigned event(const std::string& name, double nj_at_vnom);
  void count(unsigned id, uint64_t n = 1) { ev_[id].n += n; }
  // Leakage power at Vnom, in mW, of the whole component when powered.
  void set_leakage_mw(double mw_at_vnom) { leak_mw_ = mw_at_vnom; }
  // Integrates leakage over `seconds` with `powered` (0..1) of it powered.
  void leak(double seconds, double powered = 1.0) { leak_s_ += seconds * powered; }

  const std::string& name() const { return name_; }
  double vdd() const { return vdd_; }
  uint64_t events(unsigned id) const { return ev_[id].n; }
  double dynamic_nj() const;
  double leakage_nj() const { return leak_mw_ * scale_leak() * leak_s_ * 1e6; }
  double total_nj() const { return dynamic_nj() + leakage_nj(); }
  // {"vdd", "dynamic_nj", "leakage_nj", "total_nj", "events": {name: {count, nj}}}
  config::json stats() const;
  // Adds another account's counts (same events, same order): chip totals.
  void merge(const EnergyAccount& o);

 private:
  double scale_dyn() const { return (vdd_ / vnom_) * (vdd_ / vnom_); }
  double scale_leak() const { return vdd_ / vnom_; }
  struct Ev { std::string name; double nj; uint64_t n = 0; };
  std::string name_;
  double vnom_, vdd_;
  double leak_mw_ = 0, leak_s_ = 0;
  std::vector<Ev> ev_;
};

}  // namespace relgpu::power
