#include "power/rf_energy.h"

#include "power/vf.h"

namespace relgpu::power {

RfEnergyModel::RfEnergyModel(const config::Config& cfg, unsigned entry_bits, double vdd)
    : entry_scale_(double(entry_bits) / 1024.0), vdd_(vdd), leak_scale_(VfModel(cfg).leakage_scale(vdd)),
      fmax_mhz_(VfModel(cfg).fmax_mhz(vdd)) {
  using namespace rf_keys;
  read_ = cfg.get(kRead);
  write_ = cfg.get(kWrite);
  leak_ = cfg.get(kLeak);
  pu_read_ = cfg.get(kPuRead);
  pu_write_ = cfg.get(kPuWrite);
  pu_leak_ = cfg.get(kPuLeak);
  l1_ = cfg.get(kL1Spill);
}

config::json RfEnergyModel::stats(const RfActivity& a, bool with_unit) const {
  EnergyAccount rf("rf", kRfVnom, vdd_);
  rf.count(rf.event("read_entry", read_ * entry_scale_), a.read_entries);
  rf.count(rf.event("write_entry", write_ * entry_scale_), a.write_entries);
  rf.count(rf.event("patch_read_entry", read_ * entry_scale_), a.patch_read_entries);
  rf.count(rf.event("patch_write_entry", write_ * entry_scale_), a.patch_write_entries);
  rf.set_leakage_mw(leak_);
  config::json j = config::json::object();
  j["rf"] = rf.stats();
  j["rf"]["leakage_mw"] = leak_ * leak_scale_;
  if (with_unit) {
    EnergyAccount pu("patching_unit", kRfVnom, kRfVnom);
    pu.count(pu.event("lookup", pu_read_), a.pu_lookups);
    pu.count(pu.event("update", pu_write_), a.pu_updates);
    pu.count(pu.event("l1d_spill_access", l1_), a.l1d_spill_accesses);
    j["patching_unit"] = pu.stats();
    j["patching_unit"]["leakage_mw"] = pu_leak_;
  }
  return j;
}

void integrate_leakage(config::json& energy, double seconds) {
  if (!energy.is_object()) return;
  for (auto it = energy.begin(); it != energy.end(); ++it) {
    config::json& c = *it;
    if (!c.is_object() || !c.contains("leakage_mw")) continue;
    double nj = c["leakage_mw"].get<double>() * seconds * 1e6;
    c["leakage_nj"] = c.value("leakage_nj", 0.0) + nj;
    c["total_nj"] = c.value("total_nj", 0.0) + nj;
    c.erase("leakage_mw");
    c.erase("vdd");
  }
}

}  // namespace relgpu::power
