// Configuration keys of the process-variation / register-file fault model
// (GR-Guard chapter, §6.1 and Table 6.1). See variation.h for the model.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"

namespace relgpu::reliability {

inline const config::Key<int64_t> kChipSeed{
    "pv.chip_seed", 1, "", "process-variation chip: one chip (Vth/Leff maps, cell Vmin, stuck-at values) per seed",
    0, 9.2e18};
inline const config::Key<std::string> kSigmaRatio{
    "pv.sigma_ratio", "1:1", "",
    "sigma_rand:sigma_sys of Vth and Leff (a ratio of standard deviations; total sigma fixed)",
    std::vector<std::string>{"1:4", "1:1", "4:1"}};
inline const config::Key<std::string> kFloorplan{
    "pv.floorplan", "rf_block", "",
    "where the SMs' register files sit in the systematic-variation field (phi = 0.5 die width): 'rf_block' = all "
    "RFs side by side in one compact block 0.1 of the die wide, the area of their cell arrays at 28 nm (closest "
    "to the paper's Fig. 6.2 calibration); 'sm_tiles' = each RF at the centre of its SM's tile on a 4x4-tile die "
    "(RFs a quarter die apart); 'rf_point' = every RF cell at one point, so the systematic part is one offset per "
    "chip (an ablation: the paper's 31-39% faulty entries at every sigma ratio, docs/results/pv_calibration.md)",
    std::vector<std::string>{"rf_block", "sm_tiles", "rf_point"}};
inline const config::Key<std::string> kSmClock{
    "pv.sm_clock", "nominal", "",
    "per-SM clocks from this chip's register-file delay (reliability/rf_delay.h): each SM runs at "
    "gpu.sm_clock_mhz x its RF's frequency relative to no variation under the named scheme ('baseline': the "
    "slowest cell; 'vl_rf' / 'vl_rv' / 'vl_sb': the slowest of the fastest 70% of 32-bit registers / 32-entry "
    "arrays / sub-banks, at least half the slowest cell). Sets the clock only: the 2-cycle accesses of slow "
    "registers or sub-banks are not modelled by this key. 'nominal': every SM at gpu.sm_clock_mhz (or "
    "gpu.sm_clock_mhz_list). Excludes gpu.sm_clock_mhz_list",
    std::vector<std::string>{"nominal", "baseline", "vl_rf", "vl_rv", "vl_sb"}};
// Allowed range of rf.vdd: 1.0 is the chip's worst cell (no faults); 0.5 is
// below every cell of the model at every sigma ratio (all cells fail), so
// lower values add nothing; up to 1.2 so that guardbanded supplies parse.
inline constexpr double kVddMin = 0.5, kVddMax = 1.2;
inline const config::Key<double> kRfVdd{
    "rf.vdd", 1.0, "V (normalised: the chip's worst RF cell = 1.0)",
    "register-file supply; cells whose Vmin is above it are stuck-at. Excludes rf.cell_failure_rate", kVddMin,
    kVddMax};
inline const config::Key<double> kRfCellFailureRate{
    "rf.cell_failure_rate", 0.0, "fraction",
    "operating point as a cell failure rate: rf.vdd is lowered, per chip, until this fraction of the chip's RF "
    "cells fail (GR-Guard: 0.01). Excludes rf.vdd",
    0.0, 1.0};
inline const config::Key<bool> kRfSecded{
    "rf.secded", true, "", "SEC-DED per register-file entry: a write that lands with one wrong bit is corrected"};
inline const config::Key<int64_t> kRfSecdedBits{
    "rf.secded_bits", 0, "bits",
    "SEC-DED code word: 0 = the whole RF entry (the paper, §6.1.2: an entry with 2+ bad cells is faulty); 32, "
    "64, ... = one code word per that many bits (a multiple of 32 dividing rf.entry_bits), so an entry is "
    "faulty only when one of its words has 2+ bad cells (an ablation; the spec leaves the granularity open)",
    0, 1024};

}  // namespace relgpu::reliability
