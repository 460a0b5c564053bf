// Cross-lane warp operations: vote, shfl, activemask, match, redux.
// The participating lanes are the executing lanes (SIMT mask AND guard); the
// membermask operand is not checked (PTX leaves a mismatch undefined).
#include "common/error.h"
#include "func/exec.h"

namespace relgpu::func {

using ptx::AtomOp;

void Executor::exec_cross_lane(Cta& cta, Warp& w, InFlight& f) {
  const DInstr& d = *f.d;
  uint32_t m = f.exec;
  f.ndst = 1;
  switch (d.xk) {
    case XK::activemask:
      for (unsigned l = 0; l < kWarpSize; ++l) f.dbuf[0][l] = m;
      return;
    case XK::vote: {
      const uint64_t* a = f.src[0];
      uint32_t pm = 0;
      for (unsigned l = 0; l < kWarpSize; ++l) pm |= uint32_t((a[l] & 1) ^ (d.src[0].neg ? 1 : 0)) << l;
      pm &= m;
      uint64_t r = 0;
      switch (d.in->m.vote) {
        case ptx::VoteMode::all: r = pm == m; break;
        case ptx::VoteMode::any: r = pm != 0; break;
        case ptx::VoteMode::uni: r = pm == 0 || pm == m; break;
        case ptx::VoteMode::ballot: r = pm; break;
        default: break;
      }
      for (unsigned l = 0; l < kWarpSize; ++l) f.dbuf[0][l] = r;
      return;
    }
    case XK::shfl: {
      // PTX ISA shfl.sync: c packs the clamp value (bits 0-4) and the
      // segment mask (bits 8-12). A lane whose source is out of range reads
      // its own value and gets p = 0. An inactive source lane's register is
      // read as it is (PTX: undefined).
      const uint64_t *a = f.src[0], *b = f.src[1], *c = f.src[2];
      if (!a || !b || !c) fail(cta, w, f.pc, -1, "shfl needs a, b and c operands");
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!(m >> l & 1)) continue;
        int bval = int(b[l] & 31), cval = int(c[l] & 31), seg = int((c[l] >> 8) & 31);
        int maxl = (int(l) & seg) | (cval & ~seg), minl = int(l) & seg;
        int j = int(l);
        bool p = false;
        switch (d.in->m.shfl) {
          case ptx::ShflMode::up: j = int(l) - bval; p = j >= maxl; break;
          case ptx::ShflMode::down: j = int(l) + bval; p = j <= maxl; break;
          case ptx::ShflMode::bfly: j = int(l) ^ bval; p = j <= maxl; break;
          case ptx::ShflMode::idx: j = minl | (bval & ~seg); p = j <= maxl; break;
          default: break;
        }
        if (!p || j < 0 || j > 31) j = int(l);
        f.dbuf[0][l] = a[j] & 0xffffffffu;
        f.d2buf[l] = p;
      }
      return;
    }
    case XK::match: {
      const uint64_t* a = f.src[0];
      uint64_t wm = ptx::type_bits(d.in->m.type) == 64 ? ~uint64_t(0) : 0xffffffffu;
      if (d.in->m.vote == ptx::VoteMode::all || d.in->m.bop == ptx::BoolOp::and_ || d.dst2 >= 0) {
        // match.all: d = mask if all lanes hold the same value, else 0.
        bool eq = true;
        unsigned l0 = m ? __builtin_ctz(m) : 0;
        for (unsigned l = 0; l < kWarpSize; ++l)
          if ((m >> l & 1) && (a[l] & wm) != (a[l0] & wm)) eq = false;
        for (unsigned l = 0; l < kWarpSize; ++l) {
          f.dbuf[0][l] = eq ? m : 0;
          f.d2buf[l] = eq;
        }
        return;
      }
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!(m >> l & 1)) continue;
        uint32_t r = 0;
        for (unsigned k = 0; k < kWarpSize; ++k)
          if ((m >> k & 1) && (a[k] & wm) == (a[l] & wm)) r |= 1u << k;
        f.dbuf[0][l] = r;
      }
      return;
    }
    case XK::redux: {
      const uint64_t* a = f.src[0];
      bool sgn = ptx::type_is_signed(d.in->m.type);
      AtomOp op = d.in->m.atom;
      uint32_t r = op == AtomOp::and_ ? 0xffffffffu : 0;
      bool first = true;
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!(m >> l & 1)) continue;
        uint32_t v = uint32_t(a[l]);
        switch (op) {
          case AtomOp::add: r += v; break;
          case AtomOp::and_: r &= v; break;
          case AtomOp::or_: r |= v; break;
          case AtomOp::xor_: r ^= v; break;
          case AtomOp::min:
            if (first || (sgn ? int32_t(v) < int32_t(r) : v < r)) r = v;
            break;
          case AtomOp::max:
            if (first || (sgn ? int32_t(v) > int32_t(r) : v > r)) r = v;
            break;
          default: break;
        }
        first = false;
      }
      for (unsigned l = 0; l < kWarpSize; ++l) f.dbuf[0][l] = r;
      return;
    }
    default: return;
  }
}

}  // namespace relgpu::func
