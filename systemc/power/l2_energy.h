// Energy of one L2 slice: dynamic energy per tag and data-array access, and
// leakage per line, where a power-gated line (LoSCache, mem/loscache.h)
// leaks only its tag part plus the gated data array's residual.
//
// Values (all config keys, our choice where marked): the dissertation uses
// CACTI 6.5 at 40 nm and GPUWattch but gives no per-access numbers, so the
// defaults below are our choice, of the order CACTI reports for a 128 KB,
// 8-way, 128-B-line SRAM bank at 40-45 nm; the ratios the LoSCache study
// reports (gated vs all powered) depend on them mainly through the leakage
// share. Gated leakage per line (fraction of a powered line's):
//   g = t + (1 - t) r,   t = tag_bits / (tag_bits + 1024 data bits)
// where the tag part (tag, valid, dirty, LRU, 6-bit count, gated bit) stays
// powered and r is the residual leakage of a gated-Vdd data array: Powell et
// al., "Gated-Vdd", ISLPED 2000, report a 97% leakage reduction, so r = 0.03.
// Waking a line charges its data array's virtual supply: wake_nj per wake-up.
// The nominal supply is used (the L2 is not voltage-scaled in this study).
#pragma once
#include <cstdint>

#include "common/config.h"
#include "power/energy.h"

namespace relgpu::power {

inline const config::Key<double> kL2TagNj{
    "l2_energy.tag_nj", 0.01, "nJ", "L2 tag-array access energy per lookup (our choice, CACTI-like 40 nm)", 0, 1e3};
inline const config::Key<double> kL2ReadNj{
    "l2_energy.data_read_nj", 0.1, "nJ", "L2 data-array read of one 128-B line (our choice, CACTI-like 40 nm)", 0,
    1e3};
inline const config::Key<double> kL2WriteNj{
    "l2_energy.data_write_nj", 0.1, "nJ", "L2 data-array write of one 128-B line (our choice, CACTI-like 40 nm)", 0,
    1e3};
inline const config::Key<double> kL2LeakMw{
    "l2_energy.leakage_mw", 60.0, "mW", "leakage of one L2 slice with every line powered (our choice, CACTI-like "
    "128 KB at 40 nm)", 0, 1e6};
inline const config::Key<int64_t> kL2TagBits{
    "l2_energy.tag_bits", 29, "bits",
    "bits per line that stay powered when gated: 18 tag (32-bit address, 128 sets, 128-B lines) + valid + dirty + "
    "3 LRU + 6-bit count + gated", 0, 1024};
inline const config::Key<double> kL2GatedResidual{
    "l2_energy.gated_residual", 0.03, "fraction",
    "leakage of a gated data array relative to powered (gated-Vdd, Powell et al. ISLPED 2000: -97%)", 0, 1};
inline const config::Key<double> kL2WakeNj{
    "l2_energy.wake_nj", 0.02, "nJ", "energy to power one line's data array back up (our choice)", 0, 1e3};

class L2Energy {
 public:
  enum Event : unsigned { tag, data_read, data_write, wake, kEvents };
  explicit L2Energy(const config::Config& cfg);
  void count(Event e, uint64_t n = 1) { acc_.count(e, n); }
  void reset();
  // Energy of `seconds` of operation with `on_fraction` of the line-time
  // powered (1 without gating): {dynamic_nj, leakage_nj, total_nj, and the
  // same run with every line powered: all_powered_leakage_nj,
  // all_powered_total_nj (no wake-ups), events {name: {count, nj}}}.
  config::json stats(double seconds, double on_fraction) const;
  // The same accesses with each line powered only `live_fraction` of the
  // time and woken `wakes` times more (the Ideal-Gating oracle, mem/l2_life.h).
  double ideal_total_nj(double seconds, double live_fraction, uint64_t wakes) const;
  // Fraction of a powered line's leakage that a gated line leaks.
  double gated_fraction() const { return gated_; }

 private:
  EnergyAccount acc_, fresh_;  // fresh_: no events counted yet
  double gated_ = 1;
};

// energy_ratio = total / all_powered_total of an "l2_energy" section.
void derive_l2_energy(config::json& e);

}  // namespace relgpu::power
