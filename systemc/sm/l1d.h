// L1 data cache of one SM: sets x ways of 128-B lines that hold their data,
// LRU replacement, and MSHRs that merge misses to the same line.
//
// Policies (GR-Guard / LoSCache chapters, GPGPU-Sim Fermi L1D):
// - loads allocate on fill (the line is installed when the response arrives);
// - stores are write-evict (a hit invalidates the line) and no-write-allocate;
// - a store to a line with a miss outstanding marks that MSHR stale: its fill
//   is not installed and later loads do not merge into it (they would read
//   the value from before the store);
// - .cg / volatile loads, gpu-scope relaxed/acquire loads and atomics bypass
//   L1 (the core sends them without an MSHR); the cache is invalidated at
//   kernel start and by a gpu-scope acquire (ld/atom .acquire, fence, membar).
#pragma once
#include <cstdint>
#include <vector>

#include "mem/request.h"

namespace relgpu::sm {

struct Inst;  // an in-flight warp instruction (core.h)

class L1D {
 public:
  L1D(unsigned sets, unsigned ways, unsigned mshrs, unsigned merge);

  void invalidate_all();
  // The line's data on a hit (and marks it most recently used), else nullptr.
  const uint8_t* probe(uint64_t line);
  void evict(uint64_t line);                          // write-evict
  void fill(uint64_t line, const uint8_t* data);      // install, evicting the LRU way

  // ---- MSHRs ----
  struct Mshr {
    uint64_t line = 0;
    bool busy = false, stale = false;
    std::vector<Inst*> waiters;
  };
  // An MSHR a load of `line` can merge into, or -1.
  int mergeable(uint64_t line) const;
  int allocate(uint64_t line);                        // -1 if all are busy
  Mshr& mshr(int i) { return mshrs_[size_t(i)]; }
  void release(int i);
  void store_seen(uint64_t line);                     // marks outstanding misses to line stale
  void all_stale();                                   // marks every outstanding miss stale (acquire)
  unsigned mshrs_busy() const { return busy_; }
  unsigned sets() const { return sets_; }
  unsigned ways() const { return ways_; }

  // GR-Guard's spill way (sm/grguard.h): while reserved, the last way of
  // every set (the last `n` ways with set_spill_ways(n), an ablation of
  // the spill capacity) holds spilled register entries, not cache lines.
  // Reserving invalidates their lines (write-evict and no-write-allocate:
  // every line is clean, so nothing is lost) and fills skip them until
  // they are released.
  void set_spill_ways(unsigned n) { spill_ways_ = n; }  // 1..ways(); before the first reserve
  unsigned spill_ways() const { return spill_ways_; }
  void reserve_last_way(bool reserved);
  bool last_way_reserved() const { return reserved_; }
  // The data of spill line `line` (< sets() x spill_ways()), 32 words: the
  // line of set line % sets() in the line / sets()-th way from the last.
  // Its cache use overwrites it (fill).
  uint32_t* spill_line(unsigned line) {
    return data_.data() + (size_t(line % sets_) * ways_ + ways_ - 1 - line / sets_) * kLineWords;
  }

 private:
  struct Line { uint64_t tag = 0; uint64_t lru = 0; bool valid = false; };
  Line* find(uint64_t line);
  unsigned sets_, ways_, merge_;
  uint64_t tick_ = 0;
  std::vector<Line> lines_;
  static constexpr unsigned kLineWords = mem::kLineBytes / 4;
  std::vector<uint32_t> data_;    // sets * ways lines of kLineWords
  std::vector<Mshr> mshrs_;
  // Per MSHR, the line a load may merge into (busy and not stale), else
  // kNoLine: mergeable() scans this instead of the MSHRs themselves.
  static constexpr uint64_t kNoLine = ~uint64_t(0);
  std::vector<uint64_t> open_;
  unsigned busy_ = 0;
  bool reserved_ = false;
  unsigned spill_ways_ = 1;
};

}  // namespace relgpu::sm
