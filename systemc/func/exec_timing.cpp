// Timing-model hooks of the executor: global-memory lanes of ld/st/atom/red
// take their data from (or put it into) 128-B memory lines that the timing
// model moves through L1 and the memory system, never GlobalMemory, so a
// fault or a power-gated line in the memory system is what the kernel sees.
// Per-lane extension and masking come from func/lane_bytes.h, as in exec_mem.cpp.
#include <cstring>

#include "common/error.h"
#include "func/exec.h"
#include "func/lane_bytes.h"
#include "func/memory_atomic.h"
#include "mem/request.h"

namespace relgpu::func {

using ptx::Space;

namespace {

constexpr uint64_t kLineMask = ~uint64_t(mem::kLineBytes - 1);

}  // namespace

void apply_atom(mem::AtomLane& a, uint8_t* line) {
  a.old = atom_apply_at(line + a.offset, a.op, a.type, a.bytes, a.b, a.c);
}

uint32_t Executor::global_lanes(Cta& cta, Warp& w, InFlight& f) {
  const DInstr& d = *f.d;
  bool atomic = d.xk == XK::atom || d.xk == XK::red;
  bool store = d.xk != XK::ld;
  const char* what = d.xk == XK::ld ? "load" : d.xk == XK::st ? "store" : "atomic";
  uint32_t g = 0;
  for (uint32_t m = f.exec; m; m &= m - 1) {
    unsigned l = unsigned(__builtin_ctz(m));
    if (f.lane_space[l] != Space::global) continue;
    // resolve() checks alignment, bounds and const stores, with memory()'s messages.
    const uint32_t n = atomic ? d.bytes : f.bytes;
    resolve(cta, w, f.pc, int(l), Space::global, f.addr[l], n, store, what);
    note_access(f, l, n, !store || atomic, store);
    g |= 1u << l;
  }
  return g;
}

void Executor::memory_non_global(Cta& cta, Warp& w, InFlight& f, uint32_t global) {
  const DInstr& d = *f.d;
  uint32_t saved = f.exec;
  f.exec = saved & ~global;
  if (f.exec) memory(cta, w, f);
  f.exec = saved;
  if (!saved) return;
  if (d.xk == XK::ld) f.ndst = d.dst.k == DOp::kVec ? d.dst.nv : 1;
  else if (d.xk == XK::atom) f.ndst = 1;
  else f.ndst = 0;
}

void Executor::load_from_line(InFlight& f, uint32_t global, uint64_t line, const uint8_t* data) const {
  const DInstr& d = *f.d;
  const Code& c = *f.code;
  for (uint32_t m = global; m; m &= m - 1) {
    unsigned l = unsigned(__builtin_ctz(m));
    if ((f.addr[l] & kLineMask) != line) continue;
    lanes::load_lane(d, c, f, l, data + (f.addr[l] - line));
  }
}

void Executor::store_to_line(InFlight& f, uint32_t global, uint64_t line, uint8_t* data,
                             uint8_t* byte_enable) const {
  const DInstr& d = *f.d;
  for (uint32_t m = global; m; m &= m - 1) {
    unsigned l = unsigned(__builtin_ctz(m));
    if ((f.addr[l] & kLineMask) != line) continue;
    uint64_t o = f.addr[l] - line;
    lanes::store_lane(d, f, l, data + o);
    std::memset(byte_enable + o, 0xFF, f.bytes);
  }
}

void Executor::atoms_for_line(InFlight& f, uint32_t global, uint64_t line, std::vector<mem::AtomLane>& out) const {
  const DInstr& d = *f.d;
  const uint64_t* b = f.src[0];
  const uint64_t* cc = d.nsrc > 1 ? f.src[1] : nullptr;
  for (uint32_t m = global; m; m &= m - 1) {
    unsigned l = unsigned(__builtin_ctz(m));
    if ((f.addr[l] & kLineMask) != line) continue;
    mem::AtomLane a;
    a.offset = uint16_t(f.addr[l] - line);
    a.bytes = d.bytes;
    a.lane = uint8_t(l);
    a.op = d.in->m.atom;
    a.type = d.in->m.type;
    a.b = b[l];
    a.c = cc ? cc[l] : 0;
    out.push_back(a);
  }
}

void Executor::atom_results(InFlight& f, const std::vector<mem::AtomLane>& lanes) const {
  const DInstr& d = *f.d;
  if (d.xk != XK::atom) return;
  uint64_t mask = f.code->reg_mask[d.dst.reg];
  for (const mem::AtomLane& a : lanes) f.dbuf[0][a.lane] = a.old & mask;
}

}  // namespace relgpu::func
