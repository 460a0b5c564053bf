// Particle strikes on the register file: single-bit upsets at random cells
// and times, for soft-error injection (LESS, sm/less_unit.h: STT-RAM cells
// are immune). One per SM, an activity observer: it counts the SM's cycles
// and, at each drawn arrival, flips one uniformly drawn bit of the RF
// (SmRegs::upset). Whether a flip reaches the output is the workload's own
// check against its CPU reference.
#pragma once
#include <cstdint>
#include <random>

#include "common/config.h"
#include "sm/activity.h"

namespace relgpu::sm {

class RegisterFile;
class SmRegs;

inline const config::Key<double> kUpsetRate{
    "rf.upset_rate", 0.0, "per SM per million cycles",
    "expected single-bit upsets of RF cells per SM per million SM cycles (exponential arrivals, uniform "
    "cell); 0 = none. An injection campaign's knob, far above any real soft-error rate",
    0.0, 1e6};
inline const config::Key<int64_t> kUpsetSeed{
    "rf.upset_seed", 1, "", "seed of the upset draws (with the SM id: each SM its own stream)", 0, 1e18};

class Upsets final : public ActivityObserver {
 public:
  Upsets(unsigned sm, const config::Config& cfg, RegisterFile& rf, SmRegs& regs);
  void begin_launch() { st_ = Stats{}; }
  void on_cycle(const Activity& a, uint64_t skipped) override;
  config::json stats() const;

 private:
  uint64_t gap();  // cycles to the next strike (at least 1)
  RegisterFile& rf_;
  SmRegs& regs_;
  double mean_;
  std::mt19937_64 rng_;
  uint64_t cycle_ = 0, next_ = 0;
  struct Stats { uint64_t flipped = 0, immune = 0, unowned = 0; } st_;
};

}  // namespace relgpu::sm
