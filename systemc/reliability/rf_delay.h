// Register-file access time under process variation, and the SM clock each
// variable-latency scheme allows (Tan et al., TPDS 2016, Sec. 3.1-3.2.1;
// spec 002 §1, §7).
//
// Cell: the alpha-power law (Sakurai-Newton), from the cell's own Vth and
// Leff (variation.h: Vth sigma/mu 12% of 0.35 V, Leff 6%, the same
// systematic field as the Vmin model, random parts of the read stack):
//   t = (Leff / Leff0) x ((Vdd - Vth0) / (Vdd - Vth0 - dVth))^alpha,
// so a cell without variation has t = 1. alpha = 1.3, Vth0 = 0.35 V
// (Variation::kVthNom). Temperature is uniform, so mu(T) cancels. Vdd is the
// ONE fitted constant (kVdd, rf_delay.cpp). One delay per cell: the paper
// finds slow reads and slow writes in the same cells.
//
// Aggregation, per SM (an entry is a bank row; a register is 32 bits of it):
//   register = slowest of its 32 cells; entry = slowest of its bits;
//   sub-bank (sb) 2b / 2b+1 = the low / high half of bank b's bits (lanes
//   0-15 / 16-31 of a 1,024-bit entry), its delay the slowest half-row;
//   array (VL-RV) = entries / n_sb consecutive entries of one bank (32 RVs).
// Clock period T (relative to no PV), n_fast = round(0.7 n) of n units:
//   baseline: T = d_max (the SM's slowest cell);
//   VL-RF / VL-RV / VL-SB: T = max(d of the n_fast-th fastest register /
//   array / sb, d_max / 2), so that the slow ones fit in 2 cycles.
// SM frequency = 1/T; chip frequency = the mean over the SMs.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/config.h"
#include "reliability/variation.h"

namespace relgpu::reliability {

enum class Scheme { kBaseline, kVlRf, kVlRv, kVlSb };
// Parses "baseline" / "vl_rf" / "vl_rv" / "vl_sb"; else an InputError naming `key`.
Scheme parse_scheme(const std::string& text, const std::string& key);

// The paper's RF: 15 SMs x 16 banks x 64 entries x 1,024 bits.
RfGeometry paper_rf_geometry();

// A cell's read-path variation (variation.h).
struct CellPv {
  float dvth, dleff;
};

struct SbDelays {
  std::vector<double> sb;       // delay per sb (2 per bank), no PV = 1
  std::vector<bool> slow;       // VL-SB: the sb is one of the slowest n - round(0.7 n)
  std::vector<double> half;     // delay of each half-row, index sb * rows + row
  // 70% VL-RF: the register is one of the slowest 30% of the SM's 32-bit
  // registers; index (bank * rows + row) * (entry_bits / 32) + lane.
  std::vector<bool> reg_slow;
  double f_base = 1, f_vlrf = 1, f_vlrv = 1, f_vlsb = 1;  // clock relative to no PV
  double reg_min = 1, reg_max = 1;  // fastest / slowest 32-bit register (paths)
  // Only with keep_fronts: per sb, the cells no other cell of the sb beats
  // in both dVth and dLeff (the Pareto front). A cell's delay rises with
  // both, under any aging that keeps the order of dVth (nbti.h), so the
  // sb's slowest cell is always one of these: aging needs only them.
  std::vector<std::vector<CellPv>> front;
  double f(Scheme s) const;
  // Banks with a slow sub-bank (sbs 2b and 2b+1 are bank b's halves): under
  // VL-SB's identity pairing each is a 2-cycle bank; RF-BRO pairs the slow
  // sbs with each other, leaving ceil(slow / 2). The paper's Fig. 4 counts
  // banks this way (10 slow sbs in 10 banks: 62.5% -> 31.25%).
  unsigned slow_banks() const;
};

class RfDelay {
 public:
  // pv.chip_seed, pv.sigma_ratio, pv.floorplan; g: the RF of every SM.
  RfDelay(const config::Config& cfg, const RfGeometry& g);
  // The RfDelay of this config and geometry, shared by everyone who asks
  // while one is alive (the SMs of one GPU), so it is built once.
  static std::shared_ptr<const RfDelay> shared(const config::Config& cfg, const RfGeometry& g);
  RfDelay(uint64_t seed, SigmaSplit split, const RfGeometry& g, Floorplan fp = Floorplan::kRfBlock,
          double vdd = kVdd, bool keep_fronts = false);

  const RfGeometry& geometry() const { return g_; }
  unsigned sms() const { return unsigned(sm_.size()); }
  const SbDelays& sm(unsigned s) const { return sm_.at(s); }
  double chip_f(Scheme s) const;  // mean over the SMs

  // Delay of one cell (no PV: 1); dleff is dLeff / Leff.
  static double cell_delay(double dvth, double dleff, double vdd = kVdd);
  static const double kVdd;  // the fitted constant (rf_delay.cpp)
  static constexpr double kFastShare = 0.7;
  // VL-SB's fast class of n sub-banks: the fastest round(0.7 n), 22 of 32.
  static unsigned fast_count(size_t n) { return unsigned(std::llround(kFastShare * double(n))); }

 private:
  RfGeometry g_;
  std::vector<SbDelays> sm_;
};

}  // namespace relgpu::reliability
