// Particle strikes on the SP lanes: single-bit upsets of the value an SP
// lane computes, for soft-error injection (RISE, sm/rise.h). One per SM: it
// draws arrivals (exponential, in SM cycles), each at a uniform SP unit,
// lane and bit; the SM (core_rise.cpp) flips that bit of whatever the lane
// held in that cycle (an original's result, a RISE copy's, or nothing).
// Whether a flip reaches the output is the workload's own check.
#pragma once
#include <cstdint>
#include <random>

#include "common/config.h"

namespace relgpu::sm {

inline const config::Key<double> kSpUpsetRate{
    "sp.upset_rate", 0.0, "per SM per million cycles",
    "expected single-bit upsets of SP lane results per SM per million SM cycles (exponential arrivals, "
    "uniform unit, lane and bit of the low 32); 0 = none. An injection campaign's knob",
    0.0, 1e6};
inline const config::Key<int64_t> kSpUpsetSeed{
    "sp.upset_seed", 1, "", "seed of the SP upset draws (with the SM id: each SM its own stream)", 0, 1e18};

class SpUpsets {
 public:
  struct Strike { uint64_t cycle; unsigned unit, lane, bit; };
  SpUpsets(unsigned sm, unsigned units, const config::Config& cfg);
  // The next strike, if it falls before `now`.
  bool next_before(uint64_t now, Strike& s);
  // What the struck lane held.
  // no_result: an original that computes no lane result (a branch), counted in original too.
  enum Hit : uint8_t { idle_unit, idle_lane, original, copy, no_result, count_ };
  void count(Hit h) { ++hits_[h]; }
  void count_unprotected() { ++unprotected_; }
  void begin_launch() { std::fill(std::begin(hits_), std::end(hits_), 0), unprotected_ = strikes_ = 0; }
  config::json stats() const;

 private:
  uint64_t gap();
  unsigned units_;
  double mean_;
  std::mt19937_64 rng_;
  uint64_t next_ = 0;
  uint64_t hits_[count_] = {}, unprotected_ = 0, strikes_ = 0;
};

}  // namespace relgpu::sm
