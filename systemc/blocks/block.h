// The contract every hardware block model follows (rtl/<block>/ has the RTL).
//
// A block X is a pure cycle function with typed ports:
//   struct XIn    one field per RTL input port (clk_i and rst_ni excepted)
//   struct XOut   one field per RTL output port
//   struct XParams the RTL parameters, read from config keys blocks.X.*
//   class XModel  { explicit XModel(const XParams&); void reset(); XOut cycle(const XIn&); }
//
// What one cycle() means, relative to the RTL clock clk_i (rising edge):
//   1. the inputs `in` are applied while clk_i is low;
//   2. cycle() returns the outputs as they settle before the next rising
//      edge: a function of the current state (the *_q registers) and `in`
//      (Mealy outputs), exactly what the RTL shows at that moment;
//   3. the rising edge commits the next state computed from the same `in`.
// reset() is the state after rst_ni (asynchronous, active low) was asserted.
// The lockstep harness (verilator_tb/common), the SM's --rtl swap and
// --rtl-check all drive blocks through exactly this interface.
//
// Ports are declared once, as an X-macro list of (C++ type, name) pairs whose
// names are the Verilog port names; RELGPU_BLOCK_PORTS turns a list into the
// fields plus a visitor, and the harness uses the same list to copy fields to
// and from the Verilated model, so names cannot drift:
//
//   #define RELGPU_X_IN(P) P(uint32_t, a_i) P(bool, b_i)
//   struct XIn { RELGPU_BLOCK_PORTS(RELGPU_X_IN) };
//
// Port types: bool (1 bit), uint32_t (<= 32 bits), uint64_t (<= 64 bits) and
// Wide (any width; 32-bit words, least significant first, like Verilator's
// VlWide). Values must fit the RTL port width; the model masks its outputs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"

namespace relgpu::blocks {

// A port wider than 64 bits, as 32-bit words, least significant word first.
using Wide = std::vector<uint32_t>;

inline bool wide_bit(const Wide& w, unsigned i) { return i / 32 < w.size() && ((w[i / 32] >> (i % 32)) & 1u); }
inline void set_wide_bit(Wide& w, unsigned i, bool v) {
  if (w.size() <= i / 32) w.resize(i / 32 + 1, 0);
  if (v) w[i / 32] |= 1u << (i % 32);
  else w[i / 32] &= ~(1u << (i % 32));
}

// Low `bits` bits set; bits may be 0..64.
constexpr uint64_t mask(unsigned bits) { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }

constexpr bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

// Smallest w with 2^w >= n (w >= 1), as Verilog's $clog2 with a floor of 1.
constexpr unsigned clog2(uint64_t n) {
  unsigned w = 0;
  while ((uint64_t(1) << w) < n) ++w;
  return w == 0 ? 1 : w;
}

// Reads an integer config key as unsigned, for XParams::from(cfg).
template <class T = uint32_t>
T get_u(const config::Config& cfg, const config::Key<int64_t>& k) { return static_cast<T>(cfg.get(k)); }

}  // namespace relgpu::blocks

#define RELGPU_PORT_DECL(T, name) T name{};
#define RELGPU_PORT_VISIT(T, name) f(#name, s.name);
#define RELGPU_PORT_VISIT2(T, name) f(#name, a.name, b.name);
// Fields plus `visit(s, f)`, which calls f("name", s.name) per port in order,
// and `visit2(a, b, f)`, which calls f("name", a.name, b.name) (compare two).
#define RELGPU_BLOCK_PORTS(LIST)                   \
  LIST(RELGPU_PORT_DECL)                           \
  template <class S, class F>                      \
  static void visit(S& s, F&& f) { LIST(RELGPU_PORT_VISIT) } \
  template <class S1, class S2, class F>           \
  static void visit2(S1& a, S2& b, F&& f) { LIST(RELGPU_PORT_VISIT2) }
