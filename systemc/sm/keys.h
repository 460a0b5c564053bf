// Configuration keys of the SM. Defaults are the GTX480 baseline of the
// GR-Guard chapter (Table 6.1); values the papers do not give come from the
// public GPGPU-Sim 3.x GTX480 configuration (marked "GPGPU-Sim GTX480") or
// from the LoSCache chapter's Table 7.1 (marked "Table 7.1").
#pragma once
#include <string>

#include "common/config.h"

namespace relgpu::sm {

using config::Key;

// ---- occupancy -----------------------------------------------------------
inline const Key<int64_t> kMaxThreads{"sm.max_threads", 1536, "threads",
                                      "resident threads per SM (48 warps of 32)", 32, 4096};
inline const Key<int64_t> kMaxCtas{"sm.max_ctas", 8, "CTAs", "resident CTAs per SM", 1, 64};
inline const Key<int64_t> kSharedBytes{"sm.shared_bytes", 49152, "bytes", "shared memory per SM", 0, 1 << 20};

// ---- memory model --------------------------------------------------------
inline const Key<bool> kReleaseWaits{
    "sm.release_waits", true, "",
    "a .release at .gpu/.sys scope waits until the warp's earlier stores are acknowledged (PTX memory "
    "model); false breaks message passing between SMs and exists to show that in a test"};

// ---- front end -----------------------------------------------------------
inline const Key<int64_t> kSchedulers{"sm.schedulers", 2, "schedulers",
                                      "warp schedulers per SM; scheduler s owns warp slots w with w % n == s "
                                      "(Fermi: odd/even warps)", 1, 8};
inline const Key<std::string> kScheduler{"sm.scheduler", "gto", "",
                                         "warp scheduling policy: loose round robin, greedy-then-oldest, "
                                         "two-level (active pool, LRR inside, demote on a long-latency wait; "
                                         "Gebhart et al., ISCA 2011) or fetch groups (Narasiman et al., MICRO 2011)",
                                         std::vector<std::string>{"lrr", "gto", "two_level", "fetch_group"}};
inline const Key<int64_t> kTwoLevelActive{"sm.two_level_active", 6, "warps",
                                          "two_level: warps in each scheduler's active pool (GPGPU-Sim "
                                          "two_level_active:6)", 1, 64};
inline const Key<int64_t> kFetchGroupWarps{"sm.fetch_group_warps", 8, "warps",
                                           "fetch_group: warps per fetch group of the SM (warp slot / n); LRR "
                                           "inside the group with priority, which passes to the next group once "
                                           "each of its warps waits on memory or a barrier or has exited "
                                           "(the PV paper's group of 8)", 1, 64};
inline const Key<int64_t> kIbufferEntries{"sm.ibuffer_entries", 2, "instructions",
                                          "instruction buffer entries per warp, refilled by one fetch "
                                          "(GPGPU-Sim GTX480)", 1, 16};
inline const Key<int64_t> kFetchLatency{"sm.fetch_latency", 1, "cycles",
                                        "fetch to instruction-buffer latency (instruction cache always hits; "
                                        "no I-cache model)", 1, 1000};

// ---- operand collectors and register file ----------------------------------
inline const Key<int64_t> kOcSp{"sm.oc_sp", 6, "collectors", "operand collectors for SP/DP instructions "
                                "(GPGPU-Sim GTX480)", 1, 64};
inline const Key<int64_t> kOcSfu{"sm.oc_sfu", 8, "collectors", "operand collectors for SFU instructions "
                                 "(GPGPU-Sim GTX480)", 1, 64};
inline const Key<int64_t> kOcMem{"sm.oc_mem", 2, "collectors", "operand collectors for LD/ST instructions "
                                 "(GPGPU-Sim GTX480)", 1, 64};
inline const Key<int64_t> kRfBanks{"rf.num_banks", 32, "banks", "register-file banks per SM (Table 6.1)", 1, 256};
inline const Key<int64_t> kRfEntries{"rf.entries_per_bank", 256, "entries", "entries (rows) per bank (Table 6.1)",
                                     1, 1 << 16};
inline const Key<int64_t> kRfEntryBits{"rf.entry_bits", 128, "bits",
                                       "bits per entry; a warp register (32 x 32 bit) spans 1024/entry_bits "
                                       "consecutive banks (128: GR-Guard's 8-bank WRG; 1024: one bank)",
                                       32, 1024};
inline const Key<bool> kRfSharedPort{
    "rf.shared_port", false, "",
    "one access per bank per cycle, writes first, as GPGPU-Sim's operand collector arbitrates (a bank written "
    "this cycle reads nothing); false: one read and one write port per bank (spec 002: 1R + 1W)"};

// ---- functional units ------------------------------------------------------
inline const Key<int64_t> kSpUnits{"sm.sp_units", 2, "units", "SP pipelines (GPGPU-Sim GTX480)", 1, 8};
inline const Key<int64_t> kSfuUnits{"sm.sfu_units", 1, "units", "SFU pipelines (GPGPU-Sim GTX480)", 1, 8};
inline const Key<int64_t> kSpLatency{"sm.sp_latency", 4, "cycles",
                                     "INT/FP32 ALU result latency (GPGPU-Sim GTX480 add/mul)", 1, 1000};
inline const Key<int64_t> kSpIi{"sm.sp_ii", 1, "cycles", "SP initiation interval (GPGPU-Sim GTX480)", 1, 1000};
inline const Key<int64_t> kMadLatency{"sm.mad_latency", 5, "cycles", "mad/fma latency (GPGPU-Sim GTX480)", 1, 1000};
inline const Key<int64_t> kDivLatency{"sm.div_latency", 145, "cycles", "integer div/rem latency (GPGPU-Sim GTX480)",
                                      1, 10000};
inline const Key<int64_t> kDivIi{"sm.div_ii", 8, "cycles", "integer div/rem initiation interval (GPGPU-Sim GTX480)",
                                 1, 10000};
inline const Key<int64_t> kFdivLatency{"sm.fdiv_latency", 39, "cycles", "FP32 div latency (GPGPU-Sim GTX480)", 1,
                                       10000};
inline const Key<int64_t> kFdivIi{"sm.fdiv_ii", 4, "cycles", "FP32 div initiation interval (GPGPU-Sim GTX480)", 1,
                                  10000};
inline const Key<int64_t> kDpLatency{"sm.dp_latency", 8, "cycles", "FP64 latency (GPGPU-Sim GTX480)", 1, 10000};
inline const Key<int64_t> kDpIi{"sm.dp_ii", 8, "cycles", "FP64 initiation interval (GPGPU-Sim GTX480)", 1, 10000};
inline const Key<std::string> kOpLatency{
    "sm.op_latency", "class", "",
    "ALU latencies: class = relgpu's per-class keys (sm.sp_latency, sm.mad_latency, ...); gpgpusim = "
    "GPGPU-Sim 4.0's per-opcode table under its GTX480 config (sm/op_timing.h: add/mul 4, min/max 13, mad 5, "
    "SFU 8, and 1 for the opcodes its table leaves in ALU_OP, fma among them); gpgpusim3 = GPGPU-Sim 3.x's "
    "(the seeds' simulator): the same, but integer mul and mad run on the SFU and shfl takes 1",
    std::vector<std::string>{"class", "gpgpusim", "gpgpusim3"}};
inline const Key<int64_t> kResultDelay{"sm.result_delay", 0, "cycles",
                                       "cycles an SP/SFU/DP result waits before writeback, on top of the "
                                       "unit's latency (GPGPU-Sim's pipeline issues a dependent instruction "
                                       "latency + 6 cycles after its producer, relgpu's latency + 2: 4)",
                                       0, 1000};
inline const Key<int64_t> kSfuLatency{"sm.sfu_latency", 14, "cycles",
                                      "SFU latency (sin/cos/ex2/lg2/rsqrt/approx rcp,sqrt); not in the papers. "
                                      "Calibrated on GPGPU-Sim 4.0 SM2_GTX480 (regress/validation alu sfu_lat: "
                                      "a dependent SFU op every 16.6 cycles; its config says 8 but the measured "
                                      "chain needs about 14 in our pipeline)", 1, 10000};
inline const Key<int64_t> kSfuIi{"sm.sfu_ii", 8, "cycles",
                                 "SFU initiation interval: a Fermi SM has 4 SFU lanes, so a 32-thread warp "
                                 "takes 8 cycles", 1, 10000};

// ---- LD/ST unit, shared memory, L1D -----------------------------------------
inline const Key<int64_t> kSmemBanks{"smem.banks", 32, "banks", "shared-memory banks, 4 bytes wide (Table 7.1)", 1,
                                     64};
inline const Key<int64_t> kSmemLatency{"smem.latency", 26, "cycles",
                                       "shared-memory access latency (GPGPU-Sim 4.0 SM2_GTX480 "
                                       "-gpgpu_smem_latency 26; Table 7.1 and GPGPU-Sim 3.x: 3)", 1, 1000};
inline const Key<int64_t> kL1Sets{"l1d.sets", 32, "sets", "L1D sets (16 KB = 32 sets x 4 ways x 128 B)", 1, 1 << 16};
inline const Key<int64_t> kL1Ways{"l1d.ways", 4, "ways", "L1D associativity (Table 6.1)", 1, 64};
inline const Key<bool> kL1GlobalLoads{"l1d.cache_global", true, "",
                                      "cache global loads in the L1D; false: every global load bypasses it, as "
                                      "ld.cg (GPGPU-Sim -gpgpu_gmem_skip_L1D; Tan Fig. 7.16's 'no L1')"};
inline const Key<int64_t> kL1Mshrs{"l1d.mshrs", 64, "entries",
                                   "L1D miss-status holding registers (GPGPU-Sim 4.0 SM2_GTX480 dl1 S:64:8; "
                                   "3.x and Table 7.1: 32)", 1, 1024};
inline const Key<int64_t> kL1MshrMerge{"l1d.mshr_merge", 8, "requests",
                                       "accesses one MSHR can merge (GPGPU-Sim GTX480 dl1 S:64:8)", 1, 1024};
inline const Key<int64_t> kL1HitLatency{"l1d.hit_latency", 35, "cycles",
                                        "L1D access latency: a hit's data, and a miss or store leaving for the "
                                        "interconnect, this many cycles after the access (GPGPU-Sim 4.0 "
                                        "SM2_GTX480 -gpgpu_l1_latency 35; Table 7.1 and GPGPU-Sim 3.x: 1)", 1, 1000};
inline const Key<int64_t> kConstLatency{"sm.const_latency", 8, "cycles",
                                        "ld.const / ld.param latency: constant cache assumed to hit; one "
                                        "distinct address per cycle (our choice)", 1, 1000};
inline const Key<int64_t> kMissQueue{"sm.miss_queue", 8, "requests",
                                     "line requests waiting for the interconnect before the LD/ST unit stalls "
                                     "(GPGPU-Sim GTX480 dl1 miss queue 8)", 1, 1024};
inline const Key<int64_t> kLdstQueue{"sm.ldst_queue", 4, "instructions",
                                     "memory instructions waiting for the LD/ST unit after operand collection", 1,
                                     64};

}  // namespace relgpu::sm
