#include "power/energy.h"

#include <stdexcept>

namespace relgpu::power {

EnergyAccount::EnergyAccount(std::string name, double vnom, double vdd)
    : name_(std::move(name)), vnom_(vnom), vdd_(vdd) {
  if (!(vnom > 0) || !(vdd > 0)) throw std::invalid_argument("energy account " + name_ + ": supply must be > 0 V");
}

unsigned EnergyAccount::event(const std::string& name, double nj_at_vnom) {
  ev_.push_back({name, nj_at_vnom});
  return unsigned(ev_.size() - 1);
}

double EnergyAccount::dynamic_nj() const {
  double s = 0;
  for (const Ev& e : ev_) s += double(e.n) * e.nj;
  return s * scale_dyn();
}

config::json EnergyAccount::stats() const {
  config::json ev = config::json::object();
  for (const Ev& e : ev_) ev[e.name] = {{"count", e.n}, {"nj", double(e.n) * e.nj * scale_dyn()}};
  return {{"vdd", vdd_},
          {"dynamic_nj", dynamic_nj()},
          {"leakage_nj", leakage_nj()},
          {"total_nj", total_nj()},
          {"events", ev}};
}

void EnergyAccount::merge(const EnergyAccount& o) {
  if (o.ev_.size() != ev_.size()) throw std::logic_error("energy account " + name_ + ": merging different events");
  for (size_t i = 0; i < ev_.size(); ++i) ev_[i].n += o.ev_[i].n;
  leak_s_ += o.leak_s_ * (o.leak_mw_ * o.vdd_) / (leak_mw_ > 0 ? leak_mw_ * vdd_ : 1.0);
}

}  // namespace relgpu::power
