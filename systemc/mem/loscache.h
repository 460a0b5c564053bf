// LoSCache, the L2 side (Tan dissertation Ch7; spec 000 §5 and §7b). The
// LD/ST side (prediction table, predictor CTA, count queries) is
// sm/loscache_unit.h; the Partition applies the rules below to every request
// (partition_loscache.cpp).
//
// Per L2 line: an access count (blocks.loscache_table.cnt_width bits,
// saturating) and a gated state that keeps the tag powered but not the data.
// Every line starts gated (powered off, tag invalid). Requests carry the
// requesting SM's prediction (MemExt::los_*):
//   prediction phase    count only: never gate, never bypass;
//   hit, line powered   count+1; if pred != 0 and count >= pred: serve, then
//                       gate (a dirty line is written back to DRAM first);
//   hit, line gated     under-prediction: count+1, wake the line, refetch from
//                       DRAM like a miss, respond with los_mispredict = 1;
//   miss, pred == 1     bypass: served from DRAM, nothing allocated;
//   other misses        wake the victim way, fill, count = 1;
//   eviction            count = 0 (the line is retagged);
//   count query         returns the line's count (0 if the tag is absent).
// Wake-up latency is hidden by the DRAM fetch (spec choice 8): no cycles added.
//
// Choices where the dissertation is silent (spec "Unspecified" list taken):
//  - increment-then-compare: the access that makes count >= pred is the last;
//  - a line woken by an under-prediction stays powered until it is evicted
//    or the kernel ends (loscache.woken_line=stay: it proved live). The
//    literal rule, count >= pred gates after the access, would gate it
//    again after every later access and refetch it each time ("regate", or
//    "next": from the access after the waking one); ablations;
//  - MSHR merges into a line being fetched gate it after the fill if their
//    count reaches their pred (not a woken line under "stay");
//  - a request merged into a line being fetched counts; if it reaches its
//    pred the line is gated right after the fill has served every merged
//    request;
//  - atomics are never bypassed (they need the L2's atomic unit): a pred of 1
//    on an atomic miss allocates like pred 0;
//  - a bypassed read snapshots the DRAM contents at its lookup (no tag means
//    DRAM holds the newest bytes) and answers when the DRAM read completes; a
//    bypassed write merges its bytes into DRAM and costs a DRAM write;
//  - gated lines are replaced before powered ones (they hold no data);
//  - at each kernel launch every count returns to 0 and gated lines drop
//    their tags: counts and predictions are per kernel (the table restarts at
//    launch too), and a stale gated tag would report an under-prediction of
//    the previous kernel.
//
// Accuracy (stats only, no hardware): a line *generation* is the accesses to
// one line address from the first access of a kernel that finds no open
// generation until its tag is evicted or the kernel ends. A bypassed line has
// no tag, so its generation runs until it is allocated and evicted, or until
// the kernel ends. The generation is attributed to the first request of it
// that carried a prediction (its PC's table entry): exact when that
// prediction equals the generation's accesses. Adaptive = cnt + thr (what the
// hardware used), naive = cnt (the same entry without its threshold).
// exact_pc_mode bounds both: per (SM, PC) of the predicting request, the
// count most of its generations have. An entry's cnt is fixed for the kernel,
// so no naive prediction is exact more often; the threshold only rises.
#pragma once
#include <cstdint>
#include <unordered_map>

#include "common/config.h"

namespace relgpu::mem {

inline const config::Key<bool> kLoscacheEnable{
    "loscache.enable", false, "",
    "LoSCache L2 power gating (Tan Ch7): per-SM prediction tables, per-line access counts, gating after the "
    "predicted last access"};

inline const config::Key<bool> kLoscacheLaunchGating{
    "loscache.launch_gating", false, "",
    "at each kernel launch, power off every clean L2 line still powered (its data is in DRAM; the kernel's "
    "first access refetches it); dirty lines stay on. An ablation: the dissertation says lines start powered "
    "off and does not say what happens between kernels (off: lines stay as the last kernel left them)"};

inline const config::Key<std::string> kLoscacheWokenLine{
    "loscache.woken_line", "stay", "",
    "what a line woken by an under-prediction does (the dissertation says only 'woken, data refetched'): "
    "regate = gated again once the refetch has served the waking access (its rule count >= pred read literally); "
    "next = the waking access does not gate, the next access that reaches its prediction does (each later access "
    "then refetches it from DRAM); stay = it stays powered until evicted or the kernel ends (the line proved live; "
    "the default: docs/results/loscache.md measures the three)",
    std::vector<std::string>{"regate", "next", "stay"}};

inline const config::Key<bool> kLoscacheBypass{
    "loscache.bypass", true, "",
    "a request predicted to be its line's only access (pred 1) that finds no tag is served from DRAM without "
    "allocating (the dissertation's bypass). false = an ablation: it allocates and gates after the fill like any "
    "predicted last access, so a later access hits the gated tag and raises the PC's threshold (a bypassed line "
    "leaves no tag to report an under-prediction)"};

// The L2 side's counters, one set per partition.
struct LoscacheL2Stats {
  uint64_t counted = 0;        // accesses seen during some SM's prediction phase
  uint64_t predicted = 0;      // accesses carrying a prediction (pred != 0)
  uint64_t gatings = 0, gate_writebacks = 0, gated_hits = 0, mispredicts = 0;
  uint64_t bypass_reads = 0, bypass_writes = 0, wakeups = 0, queries = 0;
  uint64_t generations = 0, gen_predicted = 0, exact_adaptive = 0, exact_naive = 0, under = 0, over = 0;
  uint64_t exact_pc_mode = 0;  // set by the stats: see PcCounts
  uint64_t under_bypassed = 0;  // under-predicted generations served by a bypass (no tag to report it)
};

// One open line generation (stats only).
struct LineGen {
  uint32_t accesses = 0;
  uint8_t pred = 0, naive = 0;  // pred == 0: no prediction seen yet
  bool phase = false;           // accessed during a prediction phase (counted, never gated)
  bool read = false;            // read (or atomic) by some access, not only written
  uint64_t who = 0;             // (SM << 32) | PC of the request that carried pred
  bool bypassed = false;        // some access was served by a bypass
};

// Closed predicted generations by who predicted them, then by their accesses.
using PcCounts = std::unordered_map<uint64_t, std::unordered_map<uint32_t, uint64_t>>;

// Sum over predictors of the count most of their generations had.
uint64_t pc_mode_hits(const PcCounts& c);

// Tallies a closed generation.
inline void close_gen(const LineGen& g, LoscacheL2Stats& s, PcCounts& pcs) {
  ++s.generations;
  if (!g.pred) return;
  ++pcs[g.who][g.accesses];
  ++s.gen_predicted;
  s.exact_adaptive += g.accesses == g.pred;
  s.exact_naive += g.accesses == g.naive;
  s.under += g.accesses > g.pred;
  s.under_bypassed += g.accesses > g.pred && g.bypassed;
  s.over += g.accesses < g.pred;
}

// Powered line-cycles of a slice, split by what each powered line was doing
// (stats only; the parts sum to powered_line_cycles). A line's time after
// the last access of its generation is charged to why it was still powered.
struct PoweredTime {
  uint64_t live = 0;       // between the first and the last access of its generation
  uint64_t gating = 0;     // after the predicted last access, until the gate took effect (fill, DRAM room)
  uint64_t phase = 0;      // after the last access of an unpredicted generation a prediction phase touched
  uint64_t uncovered = 0;  // ... of one no phase touched: every access missed the table; read
  uint64_t uncovered_write = 0;  // ... the same, only written
  uint64_t over = 0;       // ... of a generation with fewer accesses than predicted
  uint64_t under = 0;      // ... with more: woken by the under-prediction, not gated again
  uint64_t exact = 0;      // ... with exactly the predicted accesses, yet not gated
  uint64_t idle = 0;       // not accessed in this kernel (resident from an earlier kernel or a memcpy)
  // The part a line's tail goes to: fresh = not accessed in this kernel,
  // g = its open generation (null if none).
  uint64_t& tail(bool fresh, const LineGen* g);
};

config::json loscache_l2_json(const LoscacheL2Stats& s, uint64_t line_cycles, uint64_t powered_line_cycles,
                              const PoweredTime& t);

// Ratios of a "loscache" stats section (per kernel or summed over a run):
// accuracy_adaptive / accuracy_naive / accuracy_pc_mode, icnt_traffic_increase,
// powered_fraction.
void derive_loscache(config::json& los);

}  // namespace relgpu::mem
