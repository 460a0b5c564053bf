// The read-only caches of one SM, the instruction cache and the constant
// cache: sets x ways of lines, LRU, and a few MSHRs whose waiters are opaque
// ids (a warp slot, an instruction). A miss is fetched through the memory
// system like data (interconnect, L2, DRAM), so a kernel's first
// instructions and its first parameter and constant reads cost a memory
// round trip on every SM, as in GPGPU-Sim (GTX480: -gpgpu_cache:il1
// N:4:128:4 = 2 KB and -gpgpu_const_cache:l1 N:64:64:2 = 8 KB, 2 MSHRs each).
//
// Code and constants live at addresses of their own, far above any data
// allocation and the same on every SM, so the L2 holds one copy: each
// function's code at kCodeBase + its offset (code_address), kInsnBytes per
// instruction; the constant and parameter spaces at kConstBase and
// kParamBase + their own addresses. Lines are never written.
#pragma once
#include <cstdint>
#include <vector>

#include "common/config.h"

namespace relgpu::ptx {
struct Function;
}

namespace relgpu::sm {

inline const config::Key<bool> kIcacheEnable{
    "icache.enable", true, "",
    "model the instruction cache (misses fetch code through the memory system); false: every fetch hits"};
inline const config::Key<int64_t> kIcacheSets{
    "icache.sets", 4, "sets", "instruction-cache sets (GPGPU-Sim GTX480 -gpgpu_cache:il1 N:4:128:4: 2 KB)", 1, 4096};
inline const config::Key<int64_t> kIcacheWays{
    "icache.ways", 4, "ways", "instruction-cache associativity (GPGPU-Sim GTX480 il1: 4)", 1, 64};
inline const config::Key<int64_t> kIcacheMshrs{
    "icache.mshrs", 2, "entries", "instruction-cache lines in flight (GPGPU-Sim GTX480 il1 MSHRs S:2:32)", 1, 64};
inline const config::Key<bool> kCcacheEnable{
    "ccache.enable", true, "",
    "model the constant cache for ld.const and ld.param (misses fetch through the memory system); false: "
    "every access hits (after sm.const_latency)"};
inline const config::Key<int64_t> kCcacheSets{
    "ccache.sets", 64, "sets", "constant-cache sets (GPGPU-Sim GTX480 -gpgpu_const_cache:l1 N:64:64:2: 8 KB)", 1,
    4096};
inline const config::Key<int64_t> kCcacheWays{
    "ccache.ways", 2, "ways", "constant-cache associativity (GPGPU-Sim GTX480 const l1: 2)", 1, 64};
inline const config::Key<int64_t> kCcacheLineBytes{
    "ccache.line_bytes", 64, "bytes", "constant-cache line (GPGPU-Sim GTX480 const l1: 64 B)", 8, 128};
inline const config::Key<int64_t> kCcacheMshrs{
    "ccache.mshrs", 2, "entries", "constant-cache lines in flight (GPGPU-Sim GTX480 const l1 MSHRs S:2:32)", 1, 64};

constexpr uint64_t kCodeBase = uint64_t(0xC0) << 40;
constexpr uint64_t kConstBase = uint64_t(0xD0) << 40;
constexpr uint64_t kParamBase = uint64_t(0xE0) << 40;
constexpr uint64_t kInsnBytes = 8;  // GPGPU-Sim's PTX instruction size
// Address of instruction pc of fn (process-wide, stable across launches).
uint64_t code_address(const ptx::Function* fn, uint32_t pc, size_t ninsn);

class ReadOnlyCache {
 public:
  ReadOnlyCache(unsigned sets, unsigned ways, unsigned line_bytes, unsigned mshrs);
  uint64_t line_of(uint64_t addr) const { return addr / line_ * line_; }
  unsigned line_bytes() const { return line_; }
  bool probe(uint64_t line);  // hit: true (and most recently used)
  void fill(uint64_t line);
  // MSHRs: the index of the one fetching line, or -1; allocate: -1 if none is free.
  int pending(uint64_t line) const;
  int allocate(uint64_t line);
  uint64_t release(int m);    // frees it, returns its line
  std::vector<uintptr_t>& waiters(int m) { return mshr_[size_t(m)].waiters; }
  bool any_pending() const { return busy_ != 0; }

 private:
  struct Line { uint64_t tag = 0, lru = 0; bool valid = false; };
  struct Mshr { uint64_t line = 0; bool busy = false; std::vector<uintptr_t> waiters; };
  unsigned sets_, ways_, line_, busy_ = 0;
  uint64_t tick_ = 0;
  std::vector<Line> lines_;
  std::vector<Mshr> mshr_;
};

}  // namespace relgpu::sm
