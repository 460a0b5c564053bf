// Memory stage: address generation, bounds/alignment checks, loads, stores,
// atomics and reductions against global, shared, local, param and const space.
#include <cstring>

#include "common/error.h"
#include "func/exec.h"
#include "func/lane_bytes.h"
#include "func/memory_atomic.h"

namespace relgpu::func {

using ptx::AtomOp;
using ptx::Space;
using ptx::Type;

void Executor::compute_addresses(Cta& cta, Warp& w, InFlight& f) {
  const DInstr& d = *f.d;
  const uint64_t local = d.alocal ? w.frames.back().local_base : 0;
  f.bytes = uint32_t(d.bytes) * d.vec;
  bool generic = d.space == Space::generic;
  // [reg+off] is computed in the register's width: a 32-bit base wraps
  // modulo 2^32 (nvcc forms shared addresses as base - k, then adds k back).
  const bool wrap32 = d.abase >= 0 && f.code->reg_bits[size_t(d.abase)] <= 32;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!(f.exec >> l & 1)) continue;
    uint64_t a = (f.abase ? f.abase[l] : 0) + d.aoff;
    if (wrap32) a = uint32_t(a);
    a += local;
    Space sp = d.space;
    if (generic) {
      sp = generic_space(a);
      a -= window_base(sp);
    }
    f.lane_space[l] = sp;
    f.addr[l] = a;
  }
}

static const char* access_name(XK k) {
  switch (k) {
    case XK::ld: return "load";
    case XK::st: return "store";
    default: return "atomic";
  }
}

uint8_t* Executor::resolve(Cta& cta, Warp& w, int pc, int lane, Space sp, uint64_t a, uint64_t n, bool store,
                           const char* what) {
  auto where = [&] {
    std::string s = std::string(ptx::space_name(sp)) + " " + what + " of " + std::to_string(n) +
                    " bytes at " + (sp == Space::global || sp == Space::const_ ? "address " : std::string(ptx::space_name(sp)) + " address ") + hex(a);
    return s;
  };
  if (n > 1 && (n & (n - 1)) == 0 && (a & (n - 1)) != 0)
    fail(cta, w, pc, lane, "misaligned " + where() + " (must be " + std::to_string(n) + "-byte aligned)");
  switch (sp) {
    case Space::global: case Space::const_: {
      uint8_t* p = ctx_.gmem->translate(a, n);
      if (!p) fail(cta, w, pc, lane, "out-of-bounds " + where() + ": " + ctx_.gmem->describe(a, n));
      if (store) {
        const Allocation* al = ctx_.gmem->last_hit();
        if (al && al->kind == Allocation::Kind::const_var)
          fail(cta, w, pc, lane, where() + " writes __constant__ variable '" + al->label + "'");
      }
      return p;
    }
    case Space::shared:
      if (a > cta.shared.size() || n > cta.shared.size() - a)
        fail(cta, w, pc, lane, "out-of-bounds " + where() + " (the CTA has " + std::to_string(cta.shared.size()) +
                                   " bytes of shared memory)");
      return cta.shared.data() + a;
    case Space::local: {
      uint64_t top = w.frames.back().local_top;
      if (a > top || n > top - a)
        fail(cta, w, pc, lane, "out-of-bounds " + where() + " (the thread's stack holds " + std::to_string(top) +
                                   " bytes)");
      if (cta.local.empty()) cta.local.assign(cta.warps.size() * kWarpSize * cta.local_per_thread, 0);
      return cta.local.data() + (uint64_t(w.linear_tid0) + lane) * cta.local_per_thread + a;
    }
    case Space::param: {
      if (a < kFrameParamBase) {
        if (store) fail(cta, w, pc, lane, where() + ": kernel parameters are read-only");
        const std::vector<uint8_t>& pb = *ctx_.params;
        if (a > pb.size() || n > pb.size() - a)
          fail(cta, w, pc, lane, "out-of-bounds " + where() + " (the kernel has " + std::to_string(pb.size()) +
                                     " bytes of parameters)");
        return const_cast<uint8_t*>(pb.data()) + a;
      }
      Frame& fr = w.frames.back();
      uint64_t o = a - kFrameParamBase, sz = fr.code->param_area;
      if (o > sz || n > sz - o) fail(cta, w, pc, lane, "out-of-bounds " + where());
      return fr.param.data() + lane * sz + o;
    }
    default: fail(cta, w, pc, lane, std::string("access to unsupported space: ") + what);
  }
}

// Shared and global accesses that are in bounds and aligned take this path;
// anything else goes through resolve(), which also reports the error.
inline uint8_t* Executor::lane_ptr(Cta& cta, Warp& w, InFlight& f, unsigned l, bool store, const char* what) {
  uint64_t a = f.addr[l], n = f.bytes;
  if ((a & (n - 1)) == 0) {
    if (f.lane_space[l] == Space::shared) {
      if (a + n <= cta.shared.size()) return cta.shared.data() + a;
    } else if (f.lane_space[l] == Space::global) {
      uint8_t* p = ctx_.gmem->translate(a, n);
      if (p && (!store || ctx_.gmem->last_hit()->kind != Allocation::Kind::const_var)) return p;
    }
  }
  return resolve(cta, w, f.pc, int(l), f.lane_space[l], a, n, store, what);
}


void Executor::memory(Cta& cta, Warp& w, InFlight& f) {
  const DInstr& d = *f.d;
  const Code& c = *f.code;
  uint32_t m = f.exec;
  if (!m) return;
  const char* what = access_name(d.xk);
  unsigned eb = d.bytes;
  switch (d.xk) {
    case XK::ld: {
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!(m >> l & 1)) continue;
        lanes::load_lane(d, c, f, l, lane_ptr(cta, w, f, l, false, what));
        note_access(f, l, f.bytes, true, false);
      }
      f.ndst = d.dst.k == DOp::kVec ? d.dst.nv : 1;
      return;
    }
    case XK::st: {
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!(m >> l & 1)) continue;
        lanes::store_lane(d, f, l, lane_ptr(cta, w, f, l, true, what));
        note_access(f, l, f.bytes, false, true);
      }
      return;
    }
    case XK::atom: case XK::red: {
      // Lanes apply in lane order, each a read-modify-write.
      const uint64_t* b = f.src[0];
      const uint64_t* cc = d.nsrc > 1 ? f.src[1] : nullptr;
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!(m >> l & 1)) continue;
        Space sp = f.lane_space[l];
        if (sp != Space::global && sp != Space::shared)
          fail(cta, w, f.pc, int(l), std::string("atomic on ") + ptx::space_name(sp) + " address " + hex(f.addr[l]) +
                                         " (only global and shared memory support atomics)");
        uint8_t* p = resolve(cta, w, f.pc, int(l), sp, f.addr[l], eb, true, what);
        uint64_t old = lanes::load_bytes(p, eb);
        uint64_t nv = atom_apply(d.in->m.atom, d.in->m.type, eb, old, b[l], cc ? cc[l] : 0);
        std::memcpy(p, &nv, eb);
        note_access(f, l, eb, true, true);
        if (d.xk == XK::atom) f.dbuf[0][l] = old & c.reg_mask[d.dst.reg];
      }
      f.ndst = d.xk == XK::atom ? 1 : 0;
      return;
    }
    default: return;
  }
}

}  // namespace relgpu::func
