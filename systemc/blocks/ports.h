// Generic operations on a block's port structs (blocks/block.h), through the
// X-macro visitors: compare two output sets, print ports for reports. Used by
// the --rtl-check instance (blocks/instance.h) and the Verilator lockstep
// harness (verilator_tb/common/lockstep.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <string>

#include "blocks/block.h"

namespace relgpu::blocks {

template <class V> bool same(const V& a, const V& b) { return a == b; }
inline bool same(const Wide& a, const Wide& b) {  // missing words read as 0
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i)
    if ((i < a.size() ? a[i] : 0) != (i < b.size() ? b[i] : 0)) return false;
  return true;
}

template <class V> std::string show(const V& v) {
  std::ostringstream s;
  s << "0x" << std::hex << uint64_t(v) << std::dec << " (" << uint64_t(v) << ")";
  return s.str();
}
inline std::string show(const Wide& v) {
  std::ostringstream s;
  s << "0x" << std::hex << std::setfill('0');
  if (v.empty()) s << "0";
  for (std::size_t i = v.size(); i-- > 0;) s << std::setw(8) << v[i] << (i ? "_" : "");
  return s.str();
}

// One line per port: "    name = value".
template <class S> std::string show_all(const S& s) {
  std::ostringstream o;
  S::visit(s, [&](const char* name, const auto& v) { o << "    " << name << " = " << show(v) << "\n"; });
  return o.str();
}

// True when every port of a equals the same port of b. No allocation: this
// runs every cycle under --rtl-check.
template <class S> bool same_ports(const S& a, const S& b) {
  bool eq = true;
  S::visit2(a, b, [&](const char*, const auto& x, const auto& y) { eq = eq && same(x, y); });
  return eq;
}

// Side by side, one line per port, differing ports marked:
//   "    name: <a_label>=... <b_label>=...   <-- differs"
template <class S>
std::string diff_ports(const S& a, const S& b, const char* a_label, const char* b_label) {
  std::ostringstream o;
  S::visit2(a, b, [&](const char* name, const auto& x, const auto& y) {
    o << "    " << name << ": " << a_label << "=" << show(x) << " " << b_label << "=" << show(y)
      << (same(x, y) ? "" : "   <-- differs") << "\n";
  });
  return o.str();
}

}  // namespace relgpu::blocks
