// One chip: its process variation (variation.h), the RF operating point and
// the fault map of every SM's register file at that point.
//
// Normalisation (§6.1.2, Fig. 6.2): the chip's worst RF cell (the highest
// Vmin over every SM) is 1.0 V; rf.vdd is in those units. A cell fails when
// Vdd < its Vmin; at rf.vdd >= 1.0 nothing fails and no map is built.
// rf.cell_failure_rate f instead picks, per chip, the Vdd at which the
// number of failing cells is closest to f x (all RF cells of the chip).
//
//   auto chip = reliability::Chip::shared(cfg, geometry);   // cores of one GPU share it
//   const reliability::RfFaults& f = chip->rf_faults(sm_id);
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "common/config.h"
#include "reliability/rf_faults.h"
#include "reliability/variation.h"

namespace relgpu::reliability {

struct OperatingPoint {
  bool by_rate = false;  // true: `rate` sets it; false: `vdd`
  double vdd = 1.0, rate = 0.0;
};
// rf.vdd / rf.cell_failure_rate from the config (cfg.is_set tells which the
// user gave). Both set, or a value out of range: InputError naming the key(s).
OperatingPoint operating_point(const config::Config& cfg);

class Chip {
 public:
  Chip(const config::Config& cfg, const RfGeometry& g);
  Chip(uint64_t seed, const std::string& sigma_ratio, const RfGeometry& g, OperatingPoint op,
       Floorplan fp = Floorplan::kRfBlock);

  // The chip of this config, shared by everyone who asks while one is alive
  // (the SMs of one GPU), so the maps are built once.
  static std::shared_ptr<const Chip> shared(const config::Config& cfg, const RfGeometry& g);

  const RfGeometry& geometry() const { return g_; }
  double vdd() const { return vdd_; }                 // normalised
  bool faults() const { return faulty_cells_ != 0; }
  const RfFaults& rf_faults(unsigned sm) const { return maps_.at(sm); }
  uint64_t cells() const { return g_.cells(); }
  uint64_t faulty_cells() const { return faulty_cells_; }
  uint64_t faulty_entries() const { return faulty_entries_; }
  double cell_failure_rate() const { return double(faulty_cells_) / double(cells()); }
  double faulty_entry_rate() const { return double(faulty_entries_) / double(uint64_t(g_.sms) * g_.banks * g_.rows); }
  // Absolute Vmin (V) of the chip's worst cell, before normalisation.
  double vmax_abs() const { return max_code_ * kStep; }

 private:
  void build(uint64_t seed, SigmaSplit split, Floorplan fp, OperatingPoint op);

  RfGeometry g_;
  unsigned code_bits_ = 0;  // rf.secded_bits
  double vdd_ = 1.0;
  unsigned max_code_ = 0;
  uint64_t faulty_cells_ = 0, faulty_entries_ = 0;
  std::vector<RfFaults> maps_;
};

}  // namespace relgpu::reliability
