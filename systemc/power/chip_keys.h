// The chip power model's configuration (power/chip_power.h): per-event
// dynamic energies at Vnom = 1.0 V, per-component leakage, constant power.
//
// Calibration (docs/results/power.md, scripts/power_fit.py): the GTX 480 of
// the guardband thesis (Leng, Ch3): constant power 59 W measured (Eq. 3.7),
// of which 41.9 W is the modelled chip leakage (Table 3.4); the remaining
// 17.1 W (VRM, peripherals, GDDR5 leakage) is power.constant_w. The leakage
// is split so that the default GTX 480 (15 SMs, 12 L2 slices, 6 channels)
// sums to 41.9 W at Vnom: RF and L2 from their own accounts (Tan Table 4.1,
// l2_energy.*), then our split of the rest: interconnect 1.0 W, memory
// controllers 0.2 W each, SM logic the remainder, 2.46867 W per SM.
// The thesis prints no per-event energy (GPUWattch derives them inside
// McPAT/CACTI); every per-event value below is "[e x f x g]": our first
// estimate e, its origin stated, times f, its group's factor from the
// least-squares fit of scripts/power_fit.py against the thesis's published
// shares and kernel power range (docs/results/power.md), times g, its
// group's factor from the fit to GPUWattch's per-launch power on the
// validation microbenchmarks (scripts/power_correlate,
// docs/results/power_correlation.md; e x f are regress/power_shares.json's
// values, the defaults until 2026-11-29). The RF, L1D and L2 accounts
// (power.rf.*, power.l1d.access_nj, l2_energy.*) are the dissertation's or
// LoSCache's and are not refitted.
#pragma once
#include <string>

#include "common/config.h"

namespace relgpu::power::chip_keys {

using D = config::Key<double>;
inline const config::Key<bool> kEnable{
    "power.enable", false, "",
    "run the chip power model (power/chip_power.h): per-component energy and average power in the stats "
    "('power'), and the per-SM trace of power.trace"};
inline const D kVdd{"power.vdd", 1.0, "V (Vnom = 1)",
                    "supply of the SM logic and the memory side (dynamic ~ V^2, leakage ~ V with DIBL, power/vf.h); "
                    "the RF keeps its own supply (rf.vdd)", 0.3, 2.0};
inline const D kConstantW{"power.constant_w", 17.1, "W",
                          "constant power besides the modelled leakage: VRM, peripherals, GDDR5 leakage (thesis "
                          "GTX 480: P_const 59 W - modelled leakage 41.9 W)", 0, 1e4};
// ---- SM, per warp instruction issued (Activity::issued) ----
inline const D kInt{"power.int_nj", 3.3094, "nJ", "INT warp instruction: 32 ALU lanes + dispatch [0.9 x 5.16 x 0.71]", 0, 1e3};
inline const D kFp{"power.fp_nj", 5.8786, "nJ", "FP warp instruction: 32 FMA lanes + dispatch [1.6 x 5.16 x 0.71]", 0, 1e3};
inline const D kSfu{"power.sfu_nj", 11.0313, "nJ",
                    "SFU warp instruction (GPUWattch prices the SFU as a DP FMA) [3.0 x 5.16 x 0.71]", 0, 1e3};
inline const D kLdst{"power.ldst_nj", 4.7288, "nJ",
                     "LD/ST warp instruction: address generation, coalescer (PRT, thread mask) [0.8 x 1.24 x 4.90]", 0, 1e3};
// ---- SM, per event of the pipeline ----
inline const D kOc{"power.oc_nj", 0.0126, "nJ",
                   "one operand collector held one cycle: 1024-bit collector SRAM, crossbar port [0.02 x 1.84 x 0.95]", 0,
                   1e3};
inline const D kShared{"power.shared_nj", 0.403, "nJ",
                       "shared-memory warp access, 48 KB in 32 banks [0.063: Tan Table 4.1 SRAM 32 KB and 128 KB "
                       "reads interpolated to 48 KB, x 1.35 x 4.90]", 0, 1e3};
inline const D kConst{"power.const_nj", 0.1278, "nJ",
                      "constant-cache line access, 8 KB [0.02: Table 4.1 SRAM 32 KB read scaled down, x 1.35 x 4.90]", 0, 1e3};
inline const D kIcache{"power.icache_nj", 0.0001, "nJ", "instruction-cache fetch, 2 KB [0.01 x 1.24 x 0.01 (floor)]", 0, 1e3};
inline const D kPipeline{"power.pipeline_nj", 0.0124, "nJ",
                         "per SM cycle with resident warps: fetch, decode, schedulers, scoreboard, clock tree "
                         "(GPUWattch 'pipeline') [1.0 x 1.24 x 0.01 (floor)]", 0, 1e3};
inline const D kIdleSm{"power.idle_sm_nj", 2.0873, "nJ",
                       "per SM cycle without resident warps (GPUWattch P_idleSM) [0.3 x 3.83 x 1.86]", 0, 1e3};
// ---- memory side, from the launch's counters ----
inline const D kFlit{"power.icnt_flit_nj", 0.483, "nJ", "one 40-B crossbar flit, request or response [0.25 x 4.58 x 0.47]", 0,
                     1e3};
inline const D kMc{"power.mc_nj", 1.3885, "nJ", "memory-controller work per DRAM read or write request [0.5 x 2.56 x 1.07]", 0,
                   1e3};
// GPUWattch's L2 and memory controller draw far more than these accounts
// (docs/results/power_correlation.md); these two place that power on the
// memory side, at the values the fit to GPUWattch gives. 0 keeps the
// accounts alone (regress/power_shares.json).
inline const D kL2Access{"power.l2_access_nj", 5.063, "nJ",
                         "per L2 sector access, besides the arrays' own energy (l2_energy.*, LoSCache's account): "
                         "ports, queues and ROP pipeline, which GPUWattch's L2 power includes (fitted to GPUWattch)",
                         0, 1e3};
inline const D kMcW{"power.mc_w", 0.5139, "W",
                    "memory-controller power per channel whatever its traffic (front end, PHY clocking: GPUWattch "
                    "charges about 1.2 W for the six with no traffic; fitted to GPUWattch)",
                    0, 1e3};
inline const D kAct{"power.dram.activate_nj", 8.1833, "nJ", "GDDR5 row activate, both chips of a channel [2.0 x 3.84 x 1.09]",
                    0, 1e3};
inline const D kPre{"power.dram.precharge_nj", 2.0458, "nJ", "GDDR5 precharge [0.5 x 3.84 x 1.09]", 0, 1e3};
inline const D kRd{"power.dram.read_nj", 16.4092, "nJ", "32 B read from GDDR5, array and I/O [4.0 (16 pJ/bit) x 3.84 x 1.09]",
                   0, 1e3};
inline const D kWr{"power.dram.write_nj", 16.4092, "nJ", "32 B written to GDDR5 [4.0 x 3.84 x 1.09]", 0, 1e3};
inline const D kRef{"power.dram.refresh_nj", 1150.0, "nJ",
                    "one refresh of a channel every power.dram.trefi_ns (the timing model does not stall for it) "
                    "[300 x 3.84; not in the fit to GPUWattch, where it faces GPUWattch's constant]", 0, 1e6};
inline const D kTrefi{"power.dram.trefi_ns", 3900.0, "ns", "refresh interval (32 ms / 8192 rows, GDDR5)", 1, 1e9};
// ---- leakage at Vnom ----
inline const D kLeakSm{"power.leakage.sm_w", 2.46867, "W",
                       "leakage of one SM without its RF (so that the GTX 480 sums to the thesis's modelled 41.9 W)",
                       0, 1e4};
inline const D kLeakIcnt{"power.leakage.icnt_w", 1.0, "W", "interconnect leakage (our split of the 41.9 W)", 0, 1e4};
inline const D kLeakMc{"power.leakage.mc_w", 0.2, "W", "leakage of one memory controller (our split of the 41.9 W)", 0,
                       1e4};
// ---- trace ----
inline const config::Key<std::string> kTrace{
    "power.trace", "", "",
    "per-SM power trace CSV (relgpu run --power-trace FILE); one row per SM per power.trace_interval cycles of "
    "that SM, appended launch after launch; empty: none"};
inline const config::Key<int64_t> kTraceInterval{
    "power.trace_interval", 100, "SM cycles", "cycles per trace row (1: every cycle)", 1, int64_t(1) << 40};

}  // namespace relgpu::power::chip_keys
