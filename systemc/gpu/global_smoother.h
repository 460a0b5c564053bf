// The global voltage smoother in the CTA scheduler (Leng thesis §4.5,
// spec 004 §5.2): second-order (chip-wide, ~1 MHz) droops come from many SMs
// surging together after a common stall (kernel start, CTA batch relaunch,
// I$/D$ misses released at once). Every SM reports its active warps (sm::
// Core::smoother_active_warps: resident, not finished, not waiting on an
// instruction fetch or a memory result) every report_period of its cycles
// over the CTA-done channel. A "riser" is an SM whose count goes from 0 to
// >= 1 between two reports.
//
// Detect: more than `threshold` distinct SMs rise within `window` cycles.
// Act (the thesis says "delay each SM's execution by 50 cycles", which
// would not misalign anything; we implement the spec's proposal (a)): the
// riser that crosses the threshold and every later riser until `window`
// cycles after it hold issue for `delay` cycles (Core::hold_issue_until);
// the earlier risers proceed. No new trigger for `cooldown` cycles after a
// trigger (risers then still count toward the next one). Cycles are of
// gpu.sm_clock_mhz (reports carry SM cycles, converted through each SM's
// clock to time). Every launch starts with every SM at 0 warps.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "common/config.h"
#include "gpu/keys.h"
#include "sm/sm_core.h"

namespace relgpu::gpu {

namespace smoothing_keys {
using I = config::Key<int64_t>;
inline const config::Key<bool> kEnable{"smoothing.global.enable", false, "",
                                       "global smoother in the CTA scheduler (gpu/global_smoother.h)"};
inline const I kPeriod{"smoothing.global.report_period", 10, "SM cycles",
                       "each SM reports its active warps every this many of its cycles (thesis: 10)", 1, 1 << 20};
inline const I kWindow{"smoothing.global.window", 30, "cycles",
                       "risers counted within this window (thesis: 30, from its Fig. 4.9b)", 1, 1 << 20};
inline const I kThreshold{"smoothing.global.threshold", 9, "SMs",
                          "trigger when MORE than this many SMs rise within the window (thesis: 9)", 0, 1024};
inline const I kDelay{"smoothing.global.delay", 50, "cycles",
                      "issue hold of each later riser (thesis: 50, ~1/10 of the second-order period)", 1, 1 << 20};
inline const I kCooldown{"smoothing.global.cooldown", 50, "cycles",
                         "no new trigger this long after one (spec proposal (a): 50)", 0, 1 << 20};
}  // namespace smoothing_keys

class GlobalSmoother final : public sm::ActiveWarpSink {
 public:
  // clocks: each SM's clock; ref: the clock the window and cooldown count.
  GlobalSmoother(const config::Config& cfg, std::vector<Clock> clocks, Clock ref);
  unsigned period() const { return period_; }
  void begin_launch();
  unsigned report(unsigned sm, uint64_t cycle, unsigned active_warps) override;
  config::json stats() const;

 private:
  std::vector<Clock> clocks_;
  unsigned period_, threshold_, delay_;
  uint64_t window_ps_, cooldown_ps_;
  std::vector<uint8_t> zero_;                       // per SM: its last report was 0
  std::vector<std::pair<uint64_t, unsigned>> rises_;  // (time ps, SM) within the window
  uint64_t episode_end_ = 0, armed_at_ = 0;          // ps
  bool episode_ = false;
  struct Stats {
    uint64_t reports = 0, rises = 0, triggers = 0, held_sms = 0, held_sm_cycles = 0;
  } st_;
};

}  // namespace relgpu::gpu
