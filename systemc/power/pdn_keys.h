// The PDN model's configuration (power/pdn.h, power/pdn_circuit.h).
//
// RLC values: Gupta et al., DATE'07 (Pentium 4 distributed PDN, via the
// thesis's GPUVolt, Leng Ch3 Fig 3.15a, whose values the text does not
// print), scaled 2x for the GTX 480's TDP as the thesis does (R/2, L/2,
// C x2: impedance halves, resonances stay). Gupta's values before scaling:
// PCB Rs 0.094 mOhm, Ls 21 pH, C 240 uF (ESR 0.1666 mOhm); package Rs
// 1 mOhm, Ls 120 pH, C 26 uF (ESR 0.5415 mOhm, ESL 5.61 pH); 100 C4 bumps of
// 40 mOhm / 72 pH; per grid node Cdie 2.2 nF, Rgrid 50 mOhm.
// Calibrated (docs/architecture.md "PDN"; impedances from
// PdnCircuit::impedance, a uniform current over the die): the 2x-scaled
// values give a first-order peak of ~10.9 mOhm at 115 MHz and no visible
// second-order peak (the package's 0.5 mOhm damps a 2.9 MHz resonance).
// Thesis Fig 3.17: the higher peak ~100 MHz, a lower one ~1 MHz, both within
// 0-4 mOhm. So: package L x4 (60 -> 240 pH) and C x2 (52 -> 104 uF) put
// the second-order peak at 0.95 MHz, 3.3 mOhm; an ESR of 110 mOhm per die
// capacitor (Gupta gives none) damps the first-order peak to 4.3 mOhm at
// 115 MHz (106 MHz in the time-domain solver: the trapezoidal rule at one
// step per 700 MHz cycle warps it down).
#pragma once
#include <string>

#include "common/config.h"

namespace relgpu::power::pdn_keys {

using D = config::Key<double>;
inline const config::Key<bool> kEnable{
    "pdn.enable", false, "",
    "run the power-delivery-network model (power/pdn.h): per-cycle SM currents from the power model into a "
    "PCB + package + 12x12 on-die grid; droop statistics in the stats ('pdn'). Needs power.enable"};
inline const D kStepMhz{"pdn.step_mhz", 700.0, "MHz",
                        "solver steps per microsecond: one step = one nominal core cycle (thesis Ch4: 700 MHz)", 1,
                        1e5};
inline const D kPcbR{"pdn.pcb.r_mohm", 0.047, "mOhm", "PCB series resistance (Gupta 0.094 / 2)", 1e-6, 1e3};
inline const D kPcbL{"pdn.pcb.l_ph", 10.5, "pH", "PCB series inductance (Gupta 21 / 2)", 0, 1e9};
inline const D kPcbC{"pdn.pcb.c_uf", 480.0, "uF", "PCB bulk capacitance (Gupta 240 x 2)", 1e-6, 1e9};
inline const D kPcbEsr{"pdn.pcb.esr_mohm", 0.0833, "mOhm", "ESR of the PCB capacitance (Gupta 0.1666 / 2)", 0, 1e3};
inline const D kPkgR{"pdn.pkg.r_mohm", 0.5, "mOhm", "package series resistance (Gupta 1 / 2)", 1e-6, 1e3};
inline const D kPkgL{"pdn.pkg.l_ph", 240.0, "pH",
                     "package series inductance (Gupta 120 / 2, x4 for a second-order peak at ~1 MHz)", 0, 1e9};
inline const D kPkgC{"pdn.pkg.c_uf", 104.0, "uF",
                     "package capacitance (Gupta 26 x 2, x2 for a second-order peak at ~1 MHz)", 1e-6, 1e9};
inline const D kPkgEsr{"pdn.pkg.esr_mohm", 0.27, "mOhm", "ESR of the package capacitance (Gupta 0.5415 / 2)", 0,
                       1e3};
inline const D kPkgEsl{"pdn.pkg.esl_ph", 2.8, "pH", "ESL of the package capacitance (Gupta 5.61 / 2)", 0, 1e9};
inline const D kBumpR{"pdn.bump.r_mohm", 20.0, "mOhm", "one C4 bump's resistance (Gupta 40 / 2)", 1e-6, 1e6};
inline const D kBumpL{"pdn.bump.l_ph", 36.0, "pH", "one C4 bump's inductance (Gupta 72 / 2)", 0, 1e9};
inline const config::Key<int64_t> kBumps{
    "pdn.bump.count", 100, "",
    "C4 power bumps (Gupta: 10x10); spread evenly over the 144 grid nodes (each node's bump path is "
    "count/144 bumps in parallel)", 1, 100000};
inline const D kGridC{"pdn.grid.c_nf", 4.4, "nF", "on-die decoupling per grid node (Gupta 2.2 x 2)", 1e-6, 1e6};
inline const D kGridEsr{"pdn.grid.esr_mohm", 110.0, "mOhm",
                        "ESR of each node's decoupling (not in Gupta; damps the first-order peak to ~4 mOhm)", 0, 1e6};
inline const D kGridR{"pdn.grid.r_mohm", 25.0, "mOhm", "grid resistance between neighbouring nodes (Gupta 50 / 2)",
                      1e-6, 1e6};
inline const D kUncoreA{"pdn.uncore_a", 0.0, "A",
                        "constant current of each L2/NoC/MC region; 0: the thesis puts the un-core on its own PDN "
                        "(§4.6), so by default these regions only add grid and decoupling",
                        0, 1e4};
inline const D kEmergencyPct{"pdn.emergency_pct", 8.0, "% of Vnom",
                             "an emergency is a step whose worst SM droop exceeds this (thesis: 8% separates the "
                             "worst-case from typical droops, §4.3.3, and is its smoothing target, §4.6)",
                             0.01, 100};
inline const D kSplitMhz{"pdn.split_cutoff_mhz", 10.0, "MHz",
                         "cutoff of the low-pass filter (2-pole Butterworth) splitting a droop into its second-order "
                         "(filtered) and first-order (residual) parts; 10 MHz sits between the ~1 MHz and ~100 MHz "
                         "peaks (thesis §4.3.2)", 0.001, 1e4};
inline const config::Key<bool> kAttribution{
    "pdn.attribution", false, "",
    "also solve each SM's current alone (superposition, thesis §4.2) for the local/global split: droop from the "
    "SM itself, its 2x2 cluster and all SMs; costs one extra solve per SM per step"};
inline const config::Key<std::string> kTrace{
    "pdn.trace", "", "",
    "voltage trace CSV (relgpu run --voltage-trace FILE): one row per pdn.trace_interval steps, each SM's "
    "lowest voltage in it; empty: none"};
inline const config::Key<int64_t> kTraceInterval{"pdn.trace_interval", 10, "steps", "steps per trace row", 1,
                                                 int64_t(1) << 40};
inline const config::Key<bool> kTraceNodes{
    "pdn.trace_nodes", false, "",
    "also write every grid node's lowest voltage in each trace row (columns n0..n143, node = row*12 + col, "
    "floorplan in power/pdn_circuit.h): the frames of a voltage map (scripts/report voltage-map)"};
inline const config::Key<int64_t> kCurrentWindow{
    "pdn.current_window", 1, "steps",
    "an ablation of how sharp each SM's current is: its dynamic current in a step is the mean over this many "
    "steps (1: each cycle's energy in its own cycle, as the power model gives it; 2 or more spreads it as a "
    "pipeline would over its stages); leakage stays DC",
    1, 1024};

}  // namespace relgpu::power::pdn_keys
