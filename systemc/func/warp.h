// Per-warp and per-CTA architectural state: register storage, the SIMT
// reconvergence stack, .func call frames, CTA shared/local memory, barriers.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "func/alu.h"

namespace relgpu::func {

struct Code;  // a decoded function (exec.h)

// Register values of all warps. A slot is one virtual register of one call
// frame: slot = Frame::reg_base + register index in Function::regs. Values
// follow alu.h's convention (low bits, zero-extended). The timing model
// implements this over its banked register file (and injects faults on
// read); functional mode uses FlatRegs.
class RegStorage {
 public:
  virtual ~RegStorage() = default;
  // Makes slots [0, nslots) of warp `warp` usable (grows on .func calls;
  // new slots read as 0).
  virtual void reserve(unsigned warp, unsigned nslots) = 0;
  virtual void read(unsigned warp, unsigned slot, uint64_t out[kWarpSize]) = 0;
  // Writes lanes in `mask` only.
  virtual void write(unsigned warp, unsigned slot, uint32_t mask, const uint64_t in[kWarpSize]) = 0;
};

// Struct-of-arrays storage: warp -> slot -> 32 lanes, contiguous.
class FlatRegs final : public RegStorage {
 public:
  void reserve(unsigned warp, unsigned nslots) override {
    if (warp >= w_.size()) w_.resize(warp + 1);
    if (w_[warp].size() < size_t(nslots) * kWarpSize) w_[warp].resize(size_t(nslots) * kWarpSize, 0);
  }
  void read(unsigned warp, unsigned slot, uint64_t out[kWarpSize]) override {
    const uint64_t* s = at(warp, slot);
    for (unsigned l = 0; l < kWarpSize; ++l) out[l] = s[l];
  }
  void write(unsigned warp, unsigned slot, uint32_t mask, const uint64_t in[kWarpSize]) override {
    uint64_t* d = at(warp, slot);
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (mask >> l & 1) d[l] = in[l];
  }
  uint64_t* at(unsigned warp, unsigned slot) { return w_[warp].data() + size_t(slot) * kWarpSize; }
  // Zeroes warp's slots (a new CTA reuses the storage).
  void clear(unsigned warp) { std::fill(w_[warp].begin(), w_[warp].end(), 0); }

 private:
  std::vector<std::vector<uint64_t>> w_;
};

// One SIMT stack entry: run `mask` from `pc` until pc == rpc, then pop.
struct SimtEntry {
  int32_t pc;
  int32_t rpc;      // reconvergence pc; -1 = never (bottom entry)
  uint32_t mask;
};

// A function activation. The kernel is frame 0; each .func call pushes one.
struct Frame {
  const Code* code = nullptr;
  uint32_t reg_base = 0;        // first register slot of this frame
  uint64_t local_base = 0;      // frame start in each thread's local stack
  uint64_t local_top = 0;       // local_base + frame size
  std::vector<uint8_t> param;   // per lane: Code::param_area bytes (lane-major)
  std::vector<SimtEntry> stack;
  int32_t call_pc = -1;         // caller's call instruction (for return values)
  uint32_t call_mask = 0;       // lanes that entered
};

struct Warp {
  unsigned id = 0;              // warp index in its CTA (%warpid in functional mode)
  unsigned rf = 0;              // index into RegStorage
  uint32_t valid = 0;           // lanes that hold a thread
  uint32_t exited = 0;
  uint32_t carry = 0;           // CC.CF per lane
  uint32_t tid[3][kWarpSize];   // %tid.x/y/z per lane
  uint32_t linear_tid0 = 0;     // CTA-linear thread index of lane 0
  uint32_t ctaid[3] = {0, 0, 0};
  std::vector<Frame> frames;
  // Barrier wait: set by commit when the warp reaches bar.sync.
  bool at_barrier = false;
  int32_t bar_pc = -1;          // the bar.sync it waits at, and which barrier
  uint32_t bar_id = 0;
  bool done = false;
  uint64_t insn = 0;            // warp instructions executed
  // Independent thread scheduling (exec_its.cpp): backward branches the top
  // path took since the stack last changed, the lanes waiting at a
  // bar.warp.sync for the rest of its member mask, and those released that
  // have not passed theirs yet.
  uint32_t spins = 0;
  uint32_t wsync = 0, wsync_go = 0;

  Frame& frame() { return frames.back(); }
  // Current pc and active mask (valid while !done).
  int32_t pc() const { return frames.back().stack.back().pc; }
  uint32_t active() const { return frames.back().stack.back().mask; }
};

// Named barriers of one CTA (bar.sync / barrier.sync / bar.arrive / bar.red).
// A warp arrives as a whole: its threads count as `popc(valid & ~exited)`,
// the GPGPU-Sim convention for a warp reaching the barrier. Barrier b with no
// thread count releases once every warp that has not exited has arrived;
// with a count, once that many threads arrived.
struct BarrierState {
  uint64_t waiting = 0;         // warps blocked on this barrier (bit per warp, <= 32 warps)
  uint64_t arrived = 0;         // warps counted (waiting + bar.arrive)
  uint32_t threads = 0;         // threads counted
  uint32_t count = 0;           // expected threads, 0 = all live warps
  uint32_t red = 0;             // bar.red accumulator: popc sum, and (1/0), or (1/0)
  uint8_t red_kind = 0;         // 0 none, 1 popc, 2 and, 3 or
  struct RedDst { unsigned warp; uint32_t slot; uint32_t mask; bool pred; };
  std::vector<RedDst> dst;      // registers that receive the bar.red result
};

}  // namespace relgpu::func
