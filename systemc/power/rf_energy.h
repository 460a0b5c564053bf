// Energy of one SM's register file and of GR-Guard's patching unit, the
// first components of the per-component energy model (power/energy.h).
//
// Figures: Tan dissertation Table 4.1 (spec 000 §2c), CACTI for a 128 KB SRAM
// register file at 40 nm, 0.9 V: read 0.131 nJ, write 0.123 nJ, leakage
// 130 mW. How we apply them (the table gives no access width):
// - one Table 4.1 access = one warp-register access = 1024 bits, i.e. the
//   span = 1024 / rf.entry_bits entries of a WRG (8 banks x 128 bits). The
//   model counts bank-entry accesses, so one entry costs
//   E x entry_bits / 1024;
// - the figures are taken as the energies at Vnom = 1.0 V, the GR-Guard PV
//   model's nominal supply (its worst cell is normalised to 1 V); the RF runs
//   at rf.vdd (or the Vdd rf.cell_failure_rate picks for the chip).
//   Dynamic energy scales with (Vdd/Vnom)^2; leakage power with Vdd/Vnom
//   times the DIBL factor of power/vf.h (subthreshold current falls with
//   the supply). Only ratios between runs are meaningful (28 nm vs 40 nm,
//   1.0 V vs 0.9 V);
// - the patching unit (2.629 KB of maps, §6.3.2) is priced as an SRAM of
//   that size: Table 4.1's 128 KB figures scaled by 2.629 / 128. Each valid
//   port of a cycle is one lookup (a map read), each patch selection one
//   update (a map write). It stays at nominal Vdd: it must not fail itself;
//   its logic (4x the storage area, §6.3.5) is not priced separately;
// - an L1D spill access is priced with Table 4.1's SRAM 32 KB read (the
//   closest size to the 16 KB L1D), at nominal Vdd (only the RF is
//   undervolted).
// Leakage is integrated over a launch's simulated time by the GPU
// (integrate_leakage below): every SM's RF leaks for the whole launch.
#pragma once
#include <cstdint>

#include "common/config.h"
#include "power/energy.h"

namespace relgpu::power {

namespace rf_keys {
using D = config::Key<double>;
inline const D kRead{"power.rf.read_nj", 0.131, "nJ",
                     "RF read of one warp register (1024 bits) at Vnom = 1.0 V (Table 4.1, SRAM 128 KB)", 0, 1e3};
inline const D kWrite{"power.rf.write_nj", 0.123, "nJ",
                      "RF write of one warp register (1024 bits) at Vnom = 1.0 V (Table 4.1, SRAM 128 KB)", 0, 1e3};
inline const D kLeak{"power.rf.leakage_mw", 130.0, "mW",
                     "RF leakage of one SM at Vnom = 1.0 V (Table 4.1, SRAM 128 KB)", 0, 1e6};
inline const D kPuRead{"power.patching_unit.lookup_nj", 0.131 * 2.629 / 128, "nJ",
                       "patching-unit map lookup per valid port (Table 4.1 read x 2.629 KB / 128 KB), nominal Vdd",
                       0, 1e3};
inline const D kPuWrite{"power.patching_unit.update_nj", 0.123 * 2.629 / 128, "nJ",
                        "patching-unit map update per patch selection (Table 4.1 write x 2.629 KB / 128 KB), "
                        "nominal Vdd", 0, 1e3};
inline const D kPuLeak{"power.patching_unit.leakage_mw", 130.0 * 2.629 / 128, "mW",
                       "patching-unit leakage (Table 4.1 leakage x 2.629 KB / 128 KB), nominal Vdd", 0, 1e6};
inline const D kL1Spill{"power.l1d.access_nj", 0.049, "nJ",
                        "one L1D line access (Table 4.1 SRAM 32 KB read, the closest size to the 16 KB L1D); "
                        "priced for GR-Guard spill accesses", 0, 1e3};
}  // namespace rf_keys

// Vnom of the register file and the patching unit (see above).
inline constexpr double kRfVnom = 1.0;

// Activity of one SM over one launch, in bank-entry accesses.
struct RfActivity {
  uint64_t read_entries = 0, write_entries = 0;
  // GR-Guard: entries read / written in a patch WRG instead of their own
  // (not in the counts above; an entry spilled to the L1D is in neither).
  uint64_t patch_read_entries = 0, patch_write_entries = 0;
  uint64_t pu_lookups = 0, pu_updates = 0, l1d_spill_accesses = 0;
};

class RfEnergyModel {
 public:
  // entry_bits: rf.entry_bits; vdd: the RF supply (normalised, Vnom = 1.0).
  RfEnergyModel(const config::Config& cfg, unsigned entry_bits, double vdd);
  // {"rf": account, "patching_unit": account (with_unit only)}; each account
  // as EnergyAccount::stats() plus "leakage_mw" (at its Vdd) for
  // integrate_leakage. Leakage is not yet in "leakage_nj" / "total_nj".
  config::json stats(const RfActivity& a, bool with_unit) const;
  // The RF's highest clock at its supply (power/vf.h).
  double fmax_mhz() const { return fmax_mhz_; }

 private:
  double entry_scale_, vdd_, leak_scale_, fmax_mhz_;
  double read_, write_, leak_, pu_read_, pu_write_, pu_leak_, l1_;
};

// For every component object in `energy` that carries "leakage_mw": adds
// leakage_mw x seconds to "leakage_nj" and "total_nj" and drops
// "leakage_mw" and "vdd", which must not add up over SMs and launches (the
// supply is in the config, or chosen per chip by the reliability model).
void integrate_leakage(config::json& energy, double seconds);

}  // namespace relgpu::power
