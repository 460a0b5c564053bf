// What one lane of ld/st does with the bytes at its address: used by the
// functional path (exec_mem.cpp, bytes in GlobalMemory or shared memory) and
// the timing path (exec_timing.cpp, bytes in a memory line), so the
// extension and masking rules exist once. Internal to func/.
#pragma once
#include <cstdint>
#include <cstring>

#include "func/exec.h"

namespace relgpu::func::lanes {

// Fixed-size copies so the compiler emits plain moves (hot path).
inline uint64_t load_bytes(const uint8_t* p, unsigned n) {
  switch (n) {
    case 1: return *p;
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    default: { uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}

inline void store_bytes(uint8_t* p, uint64_t v, unsigned n) {
  switch (n) {
    case 1: *p = uint8_t(v); return;
    case 2: { uint16_t x = uint16_t(v); std::memcpy(p, &x, 2); return; }
    case 4: { uint32_t x = uint32_t(v); std::memcpy(p, &x, 4); return; }
    default: std::memcpy(p, &v, 8); return;
  }
}

inline uint64_t extend(uint64_t v, unsigned bytes, bool sign) {
  if (bytes >= 8) return v;
  unsigned sh = 64 - 8 * bytes;
  return sign ? uint64_t(int64_t(v << sh) >> sh) : v & ((uint64_t(1) << (8 * bytes)) - 1);
}

// Lane l of a load: element(s) at p, extended and masked to the destination
// register(s), into f.dbuf.
inline void load_lane(const DInstr& d, const Code& c, InFlight& f, unsigned l, const uint8_t* p) {
  unsigned eb = d.bytes;
  if (d.dst.k == DOp::kVec) {
    for (unsigned k = 0; k < d.dst.nv; ++k) {
      int32_t r = d.dst.v[k];
      uint64_t v = extend(load_bytes(p + k * eb, eb), eb, d.sign);
      f.dbuf[k][l] = r >= 0 ? v & c.reg_mask[r] : v;
    }
  } else {
    f.dbuf[0][l] = extend(load_bytes(p, eb), eb, d.sign) & c.reg_mask[d.dst.reg];
  }
}

// Lane l of a store: its element(s) to p.
inline void store_lane(const DInstr& d, const InFlight& f, unsigned l, uint8_t* p) {
  unsigned eb = d.bytes;
  if (d.src[0].k == DOp::kVec) {
    for (unsigned k = 0; k < d.src[0].nv; ++k) store_bytes(p + k * eb, f.sbuf[k][l], eb);
  } else {
    store_bytes(p, f.src[0][l], eb);
  }
}

}  // namespace relgpu::func::lanes
