// The tag and data arrays of one L2 slice (no timing): sets x ways of
// 128-byte lines that hold data, true LRU, write-back. Partition drives it
// and models the timing. Backing store: func::GlobalMemory (DRAM contents).
#pragma once
#include <cstdint>
#include <vector>

#include "common/config.h"
#include "func/memory.h"
#include "mem/address_map.h"

namespace relgpu::mem {

inline const config::Key<int64_t> kL2Sets{
    "l2.sets", 64, "sets",
    "L2 sets per slice (GTX480: 128 KB per channel = 2 slices x 64 sets x 8 ways x 128 B; GPGPU-Sim "
    "-gpgpu_cache:dl2 S:64:128:8 per sub-partition)", 1, 1 << 20};
inline const config::Key<int64_t> kL2Ways{
    "l2.ways", 8, "ways", "L2 associativity (GTX480 Table 6.1: 8-way)", 1, 64};
inline const config::Key<int64_t> kL2LineBytes{
    "l2.line_bytes", 128, "bytes", "L2 line size; fixed at 128 (the request line size), checked", 128, 128};

// Copies the DRAM contents of the line at addr into buf. Bytes outside any
// allocation (the tail of a line past an allocation's end) read as zero.
void load_line(func::GlobalMemory& g, uint64_t addr, uint8_t* buf);
// Writes buf back to the line at addr, skipping bytes outside allocations,
// bytes in [skip_lo, skip_hi) (global addresses) and, with a mask (bit i =
// byte i), bytes whose bit is clear.
void store_line(func::GlobalMemory& g, uint64_t addr, const uint8_t* buf, uint64_t skip_lo = 0,
                uint64_t skip_hi = 0, const uint64_t* mask = nullptr);

class L2Cache {
 public:
  // reserved: fetch in flight. gated (LoSCache only, mem/loscache.h): the
  // data array of the line is powered off, its tag (and count) kept.
  enum class State : uint8_t { invalid, valid, reserved, gated };
  struct Line {
    uint64_t addr = 0;   // global line address
    uint64_t lru = 0;    // last-use stamp
    State st = State::invalid;
    bool dirty = false;
    int32_t mshr = -1;   // while reserved
    uint8_t count = 0;   // LoSCache access count (0 after eviction)
    bool gate_pending = false;  // LoSCache: gate once the fill has served its requests
    bool woken = false;         // LoSCache: woken by an under-prediction since allocated
    // Allocated by a write miss without fetching (GPGPU-Sim's lazy fetch on
    // read): only the bytes in wmask are held; a read fetches the rest.
    bool partial = false;
    uint64_t wmask[2] = {0, 0};
  };
  // Whether a line's data array is powered under LoSCache (invalid and gated
  // lines are off; without LoSCache every line is powered).
  static bool powered(State s) { return s == State::valid || s == State::reserved; }

  L2Cache(const config::Config& cfg, const AddressMap& map, func::GlobalMemory& gmem);

  // Index of the line holding addr (valid or reserved), or -1.
  int lookup(uint64_t addr) const;
  // Way to replace for addr: an invalid way, else the LRU gated one, else the
  // LRU valid one; -1 if every way of the set is reserved.
  int victim(uint64_t addr) const;
  void touch(int i) { lines_[i].lru = ++stamp_; }
  Line& line(int i) { return lines_[i]; }
  const Line& line(int i) const { return lines_[i]; }
  uint8_t* data(int i) { return data_.data() + size_t(i) * kLineBytes; }

  // Evicts line i (writing it to DRAM contents if dirty; returns whether it
  // was) and retags it for addr in state st.
  bool replace(int i, uint64_t addr, State st);
  // Loads line i's data from DRAM contents (a partial line keeps its
  // written bytes and becomes whole).
  void fill(int i);
  // A write of the bytes in mask to partial line i; it becomes whole when
  // every byte has been written.
  void written(int i, const uint64_t mask[2]);
  // LoSCache: writes line i back if dirty (returns whether it was), then
  // powers its data off, keeping the tag and count.
  bool gate(int i);
  // LoSCache: a gated line i is powered again and refetched (state reserved).
  void wake(int i);
  // Lines whose data array is powered (valid or reserved).
  unsigned powered_lines() const { return powered_; }
  // LoSCache at a kernel launch: counts to 0, gated lines drop their tags;
  // with drop_clean, clean valid lines power off too (loscache.launch_gating).
  void new_kernel(bool drop_clean = false);
  // DRAM contents of a line, for requests served without allocating.
  void read_memory(uint64_t addr, uint8_t* buf) { load_line(gmem_, addr, buf); }
  void write_memory(uint64_t addr, const uint8_t* buf) { store_line(gmem_, addr, buf); }

  // Functional maintenance (untimed): write back dirty lines overlapping
  // [addr, addr+n) (all lines if n == 0), keeping them clean and resident.
  unsigned flush(uint64_t addr = 0, uint64_t n = 0);
  // The same copy to DRAM contents, but the lines stay dirty: the host reads
  // what the kernel wrote, and the timed write-back still happens later (at
  // eviction or the L2 flush), so DRAM stats count it.
  unsigned copy_out(uint64_t addr, uint64_t n);
  // The timed flush's step for one line: a valid dirty line i is written to
  // DRAM contents and becomes clean; returns whether it was dirty.
  bool clean(int i);
  // Drops valid (and gated) lines overlapping [addr, addr+n); a dirty one first
  // writes back its bytes outside the range (the host's newer bytes win inside it).
  unsigned invalidate(uint64_t addr, uint64_t n);

  unsigned sets() const { return sets_; }
  unsigned ways() const { return ways_; }

 private:
  unsigned write_dirty(uint64_t addr, uint64_t n, bool keep_dirty);
  unsigned set_of(uint64_t addr) const { return unsigned((map_.slice_local(addr) / kLineBytes) % sets_); }
  unsigned sets_, ways_;
  AddressMap map_;
  func::GlobalMemory& gmem_;
  std::vector<Line> lines_;       // set-major
  std::vector<uint8_t> data_;
  uint64_t stamp_ = 0;
  unsigned powered_ = 0;
};

}  // namespace relgpu::mem
