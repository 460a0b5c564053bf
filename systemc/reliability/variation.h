// VARIUS-style within-die process variation and per-cell SRAM Vmin for the
// register files of one chip (GR-Guard §6.1.1, Table 6.1; VARIUS: Sarangi et
// al., IEEE TSM 2008; VARIUS-NTV: Karpuzcu et al., DSN 2012).
//
// Variation (Eq. 6.1-6.2): dVth = dVth_rand + dVth_sys, dLeff = dLeff_rand +
// dLeff_sys. Total sigma/mu: Vth 12% of VthNOM = 0.35 V, Leff 6%.
// pv.sigma_ratio "a:b" is a ratio of standard deviations (the notation
// sigma_rand:sigma_sys), with the total fixed: sigma_rand = sigma a/sqrt(a^2+b^2),
// sigma_sys = sigma b/sqrt(a^2+b^2). At 1:1, the default, the variances are
// equal too, as the Ch5 text says.
//
// Systematic part: a zero-mean, unit-variance Gaussian field over the die
// with VARIUS's spherical correlation rho(r) = 1 - 1.5 r/phi + 0.5 (r/phi)^3
// (r <= phi, else 0), phi = 0.5 of the die width (Table 6.1). It is sampled
// exactly (the Cholesky factor of the covariance of a lattice) on a kLattice
// x kLattice lattice over each SM's register file and interpolated bilinearly between
// lattice points (VARIUS also uses a grid). One field drives both Vth_sys and
// Leff_sys (our choice: lithography sets Leff and Vth follows Leff).
//
// Floorplan (pv.floorplan; our choice, the paper gives none). Two layouts:
//  rf_block (default): the register files of all SMs, each a square array,
//    sit side by side in one compact square block, SM s's RF at block tile
//    (s % side, s / side), side = ceil(sqrt(sms)), the RF filling its tile.
//    The block is kBlockSide = 0.1 of the die width: the area of the RF cell
//    arrays alone, packed together. 15 x 32 x 256 x 128 = 15.7 M 8T cells x
//    ~0.17 um^2 (28 nm 8T cell, ~1.3x the 0.127 um^2 of a 28 nm HD 6T cell)
//    = 2.7 mm^2, a 1.6 mm square, on a 15-SM Fermi-class die at 28 nm of
//    ~16 mm side (GF100's 529 mm^2 at 40 nm x (28/40)^2 = 260 mm^2). So the
//    field (phi = 0.5 die width = 5 block widths) varies little across the
//    block (far corners correlate at 0.59), though not nothing.
//  sm_tiles: the die is a square of side x side SM tiles, SM s at tile
//    (s % side, s / side) (15 SMs: a 4x4 die with one tile unused, as
//    GF100); each SM's RF is a square of kRfSide = 1/4 of the tile's side
//    (1/16 of the SM's area: our estimate for 128 KB of 8T SRAM in a
//    Fermi-class SM) at the tile's centre, so RFs are a tile width apart.
//  rf_point (an ablation): every RF cell at one point of the field, so the
//    systematic part is one offset per chip, the same for all SMs: what the
//    paper's R model gives if it sampled one RF array with the field nearly
//    flat over it (pv_calibration.md). No spatial variation between or
//    within SMs remains, so it cannot serve the PV register-file chapter
//    (its 1.3x between SMs).
// Why rf_block is the default: of the two it is the closer to the paper's
// calibration points (Fig. 6.2/6.3; 100-chip table and the reasons for what
// still differs: docs/results/pv_calibration.md). With sm_tiles, SMs far
// apart see independent systematic offsets, so at 1:4 the failing cells
// crowd into the chip's worst SMs: 84 mV drop (paper 62), 6.9% faulty
// entries (paper 31-39%); rf_block: 78 mV, 14.2%; at 1:1 20% vs 31%. The
// paper's numbers are what a systematic part nearly constant over all RF
// cells gives (1% of cells failing independently makes 36.7% of 128-bit
// entries faulty at any ratio), which suggests its R model sampled the field
// over the RF array alone. A smaller block comes closer still (0.03 of the
// die: 1:4 69 mV, 22%), but 0.1 is the physical size, not a fit.
// Within an RF, banks sit in a grid of bank columns (cols = the power of two
// making the array closest to square: 32 banks of 256 x 128 cells -> 8 x 4
// banks, 1024 x 1024 cells), cell (bank, row, bit) at column
// (bank % cols) * bits + bit, row (bank / cols) * rows + row.
//
// Cell Vmin (8T cell: no read failures; VARIUS-NTV's hold and write
// stability), first-order (linear) sensitivities, the standard way VARIUS
// linearises a variation around its nominal point:
//   write:  Vw = Vw0 + dVth_w + cL dLeff_w / Leff
//   hold:   Vh = Vh0 + dVth_h + cL dLeff_h / Leff
//   Vmin    = max(Vw, Vh)
// dVth_m, dLeff_m: the random parts are independent per cell and per mode
// (write is limited by the pass gate against the pull-up, hold by the
// cross-coupled inverters: different transistors); the systematic part is
// shared. Hold depends on the mismatch of two inverters, so its random part
// has sqrt(2) the sigma. Vmin tracks dVth one to one: the cell needs a fixed
// overdrive (Vdd - Vth) to write within the cycle / to keep its state.
// cL converts a relative Leff change into the Vth change with the same
// drive current under VARIUS's alpha-power law I ~ (Vdd - Vth)^alpha / Leff:
// cL = (Vw0 - VthNOM) / alpha, alpha = 1.3.
// Constants: Vw0 = VthNOM + kWriteMargin, where kWriteMargin is the ONE fitted
// constant of the model (fitted to the paper's 4:1 drop of 188 mV, Fig. 6.2;
// see variation.cpp). Vh0 = 0.20 V (nominal data-retention voltage, our choice:
// hold is far below write, so few cells are hold-limited).
// Volts here are absolute; chip.h normalises by the chip's worst cell.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace relgpu::reliability {

// Register-file geometry of every SM of the chip.
struct RfGeometry {
  unsigned sms = 15, banks = 32, rows = 256, entry_bits = 128;
  uint64_t cells_per_sm() const { return uint64_t(banks) * rows * entry_bits; }
  uint64_t cells() const { return cells_per_sm() * sms; }
};

enum class Floorplan { kRfBlock, kSmTiles, kRfPoint };
// Parses "rf_block" / "sm_tiles" / "rf_point"; anything else is an InputError naming `key`.
Floorplan parse_floorplan(const std::string& text, const std::string& key = "pv.floorplan");
const char* floorplan_name(Floorplan fp);

// Parses "1:4" / "1:1" / "4:1"; anything else is an InputError naming `key`.
struct SigmaSplit { double rand = 0, sys = 0; };  // fractions of the total sigma
SigmaSplit parse_sigma_ratio(const std::string& text, const std::string& key = "pv.sigma_ratio");

// Cell Vmin quantised to kStep volts, rounded up: code c means
// Vmin in ((c-1) kStep, c kStep]. Lets a chip keep a whole RF in 2 bytes a
// cell while it is built, and makes thresholds exact integer compares.
inline constexpr double kStep = 25e-6;
using Code = uint16_t;

class Variation {
 public:
  Variation(uint64_t seed, SigmaSplit split, const RfGeometry& g, Floorplan fp = Floorplan::kRfBlock);

  const RfGeometry& geometry() const { return g_; }
  // Vmin codes of every cell of SM `sm`, index (bank * rows + row) * bits + bit.
  void vmin_codes(unsigned sm, Code* out) const;
  // Read-path variation of every cell of SM `sm` (index as vmin_codes):
  // dVth in volts and dLeff / Leff. The systematic part is the field that
  // drives Vmin; the random parts are drawn apart from write and hold (the
  // 8T read stack is its own pair of transistors). rf_delay.h uses them.
  void read_vth_leff(unsigned sm, float* dvth, float* dleff) const;
  // The value a failing cell is stuck at (fixed per cell, independent of Vdd).
  bool stuck_value(unsigned sm, uint64_t cell) const;
  // Systematic field (unit variance) at lattice point i of SM sm (tests).
  double field(unsigned sm, unsigned i) const { return field_[size_t(sm) * kLattice * kLattice + i]; }

  static constexpr unsigned kLattice = 8;       // lattice points per RF side
  static constexpr double kRfSide = 0.25;        // sm_tiles: RF side / SM tile side
  static constexpr double kBlockSide = 0.1;      // rf_block: block side / die width
  static constexpr double kPhi = 0.5;            // correlation range / die width
  static constexpr double kVthNom = 0.35, kVthSigma = 0.12, kLeffSigma = 0.06, kAlpha = 1.3;
  static const double kWriteMargin;              // the fitted constant (variation.cpp)
  static constexpr double kHold0 = 0.20;

 private:
  uint64_t key(unsigned sm, unsigned mode) const;
  template <class F>
  void each_cell(unsigned sm, F&& f) const;
  RfGeometry g_;
  uint64_t seed_;
  SigmaSplit split_;
  unsigned bank_cols_;
  std::vector<double> field_;   // per SM, kLattice^2 values
};

// Lattice point coordinates (die widths) of every SM's RF, row-major per SM.
std::vector<double> lattice_points(const RfGeometry& g, Floorplan fp = Floorplan::kRfBlock);
// Spherical correlation at distance r (die widths).
double spherical_rho(double r, double phi);

}  // namespace relgpu::reliability
