// Register-file row allocation, power gating and utilization accounting
// (ARGO, Namaki-Shoushtari et al., DAC 2013, §5.3).
//
// A warp's registers occupy rows_per_warp consecutive RF rows (a row = one
// entry in every bank; sm/regfile.h), handed out in aligned slots of that
// many rows. The allocation policy picks the slot:
//  - first_fit: the lowest free slot (the aging-oblivious allocator, Fig. 5;
//    today's behaviour), so low rows are used far more than high ones;
//  - rotating: ARGO's round-robin allocator (Fig. 6): the slot at the
//    rotating candidate, which then moves past it; a busy candidate (warps
//    finish out of order) is skipped to the next free slot and counted as a
//    collision. The candidate persists across kernels, as the hardware
//    register would. Rows past the last whole slot are never allocated.
// With rf.power_gating, every power domain (rf.gate_rows rows) with no
// allocated row is gated; allocating a row of a gated domain wakes it, and
// the warp cannot fetch before rf.wakeup_cycles later. A gated row holds no
// data: a domain's rows are zeroed when it is gated.
//
// Accounting (per launch, in this SM's cycles): the cycles each row was
// allocated and each row was powered; gpu/stats.cpp divides by the launch's
// cycles of this SM (derive_argo) into utilization, stress duty per row,
// worst-case recovery, leakage (proportional to powered rows, ARGO [31])
// and aging (reliability/nbti_argo.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"
#include "sm/regfile.h"

namespace relgpu::sm {

inline const config::Key<std::string> kRfAllocPolicy{
    "rf.alloc_policy", "first_fit", "",
    "which free RF rows a warp gets: the lowest (first_fit, ARGO's aging-oblivious Fig. 5) or the next after the "
    "last allocation, round robin (rotating, ARGO Fig. 6)",
    std::vector<std::string>{"first_fit", "rotating"}};
inline const config::Key<bool> kRfPowerGating{
    "rf.power_gating", false, "",
    "gate RF power domains with no allocated row (ARGO §5.2; the baseline has no power gates)"};
inline const config::Key<int64_t> kRfWakeupCycles{
    "rf.wakeup_cycles", 10, "cycles",
    "rf.power_gating: cycles from waking a gated domain until its rows can be used (ARGO §5.4: < 10 cycles, up "
    "to 100 with rush-current control)", 0, 100000};
inline const config::Key<int64_t> kRfGateRows{
    "rf.gate_rows", 1, "rows",
    "rf.power_gating: RF rows per power domain (ARGO Table 3's bank size / row size; 1 = 1 KB banks on a 1 KB "
    "row)", 1, 65536};

inline const config::Key<bool> kRfRowStats{
    "rf.row_stats", false, "",
    "report per-row allocated and powered cycles (\"argo\" stats, derived into utilization, duty and aging); on "
    "by itself with rf.alloc_policy=rotating or rf.power_gating"};

class RowAllocator {
 public:
  RowAllocator(const config::Config& cfg, RegisterFile& rf);

  // A new launch: slots of `rows_per_slot` rows; resets the counters.
  void begin_launch(unsigned rows_per_slot, uint64_t now);
  unsigned free_slots() const { return free_; }
  unsigned slots() const { return unsigned(slot_free_.size()); }  // this launch's, free or not
  // Allocates a slot: returns its first row. The rows are held from
  // start(), called with the first cycle the warp can use them.
  unsigned take();
  // The slot at row_base is held from cycle `now`; returns the cycle from
  // which its rows are powered (now, or later after a wake-up).
  uint64_t start(unsigned row_base, uint64_t now);
  void give(unsigned row_base, uint64_t now);
  bool gated(unsigned row) const { return gating_ && on_rows_[row / gate_rows_] == 0; }
  config::json stats() const;

 private:
  void open(unsigned row, uint64_t now, uint64_t& ready);
  void close(unsigned row, uint64_t now);

  RegisterFile& rf_;
  bool rotating_, gating_, report_;
  unsigned wakeup_, gate_rows_, rows_;
  unsigned rps_ = 1, free_ = 0;
  unsigned cursor_ = 0;  // rotating: the candidate's first row (kept across launches)
  std::vector<uint8_t> slot_free_;
  std::vector<unsigned> on_rows_;     // per domain: allocated rows
  std::vector<uint64_t> row_since_, dom_since_;
  std::vector<uint64_t> alloc_cycles_, powered_cycles_;  // per row / per domain
  uint64_t wakeups_ = 0, collisions_ = 0, allocations_ = 0;
};

// gpu/stats.cpp: the launch's or run's ARGO summary ("argo" at the top) from
// every SM's "argo" counters and kernel_cycles.
void derive_argo(config::json& d);

}  // namespace relgpu::sm
