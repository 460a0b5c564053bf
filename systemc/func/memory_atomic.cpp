// Moved from exec_mem.cpp unchanged, so the L2 can use it too.
#include "func/memory_atomic.h"

#include <cstring>

namespace relgpu::func {

using ptx::AtomOp;
using ptx::Type;

static uint64_t extend_signed(uint64_t v, unsigned bytes) {
  if (bytes >= 8) return v;
  unsigned sh = 64 - 8 * bytes;
  return uint64_t(int64_t(v << sh) >> sh);
}
static float as_f(uint64_t v) {
  float f;
  uint32_t u = uint32_t(v);
  std::memcpy(&f, &u, 4);
  return f;
}
static uint64_t f_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
static double as_d(uint64_t v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
static uint64_t d_bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

uint64_t atom_apply(AtomOp op, Type t, unsigned bytes, uint64_t old, uint64_t b, uint64_t c) {
  bool sgn = ptx::type_is_signed(t);
  uint64_t mask = bytes >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * bytes)) - 1;
  old &= mask, b &= mask, c &= mask;
  int64_t so = int64_t(extend_signed(old, bytes)), sb = int64_t(extend_signed(b, bytes));
  uint64_t r = old;
  switch (op) {
    case AtomOp::add:
      if (t == Type::f32) r = f_bits(as_f(old) + as_f(b));
      else if (t == Type::f64) r = d_bits(as_d(old) + as_d(b));
      else r = old + b;
      break;
    case AtomOp::min: r = sgn ? (sb < so ? b : old) : (b < old ? b : old); break;
    case AtomOp::max: r = sgn ? (sb > so ? b : old) : (b > old ? b : old); break;
    case AtomOp::inc: r = old >= b ? 0 : old + 1; break;
    case AtomOp::dec: r = (old == 0 || old > b) ? b : old - 1; break;
    case AtomOp::cas: r = old == b ? c : old; break;
    case AtomOp::exch: r = b; break;
    case AtomOp::and_: r = old & b; break;
    case AtomOp::or_: r = old | b; break;
    case AtomOp::xor_: r = old ^ b; break;
    default: break;
  }
  return r & mask;
}

uint64_t atom_apply_at(uint8_t* p, AtomOp op, Type t, unsigned bytes, uint64_t b, uint64_t c) {
  uint64_t old = 0;
  std::memcpy(&old, p, bytes);  // little-endian host, as the rest of func/
  uint64_t nv = atom_apply(op, t, bytes, old, b, c);
  std::memcpy(p, &nv, bytes);
  return old;
}

}  // namespace relgpu::func
