// L2 line lifetimes, the characterisation behind LoSCache (Tan Ch7 §7.1) and
// its Ideal-Gating bound; stats only, off unless l2.life_stats.
//
// A line generation runs from the first access that finds no open one for
// its address until its tag is evicted or the kernel ends (as in
// mem/loscache.h). Per kernel and slice:
//   live_line_cycles  sum over generations of (last access - first access):
//                     the time a line must hold data; dead time is every
//                     other line-cycle of the slice (dead% = 1 - live /
//                     line_cycles, the paper's sum DeadTime / (ExecTime x #lines));
//   rereference       generations by accesses after the first: 0, 1, 2+;
//   chunks            128-B lines touched in the kernel, and how many were
//                     touched by more than one CTA (inter-CTA), counted by
//                     launch-wide CTA id;
//   ideal_gating      the slice's L2 energy if every line were powered exactly
//                     while live (an oracle: gated right after its last access,
//                     woken at its first, no mispredictions), from the same
//                     energy model as the run's own (power/l2_energy.h).
#pragma once
#include <cstdint>
#include <unordered_map>

#include "common/config.h"

namespace relgpu::mem {

inline const config::Key<bool> kL2LifeStats{
    "l2.life_stats", false, "",
    "record L2 line lifetimes: dead time, re-reference counts, intra/inter-CTA chunks and the Ideal-Gating "
    "energy bound (LoSCache characterisation, Tan Ch7 §7.1); costs a hash lookup per L2 access"};

class L2Life {
 public:
  void access(uint64_t line, uint64_t cycle, uint32_t cta);
  void evict(uint64_t line);
  void reset();
  // Counters up to `now` (open generations end there); `ideal` is the
  // oracle's energy section, computed by the caller from live_fraction().
  config::json stats(uint64_t line_cycles) const;
  uint64_t live_line_cycles() const;

 private:
  struct Gen { uint64_t first = 0, last = 0; uint32_t accesses = 0; };
  struct Chunk { uint32_t cta = 0; bool inter = false; };
  void close(const Gen& g);

  std::unordered_map<uint64_t, Gen> open_;
  std::unordered_map<uint64_t, Chunk> chunks_;
  uint64_t live_ = 0, gens_ = 0, reref_[3] = {};
};

}  // namespace relgpu::mem
