// Liveness (dead bits), reaching definitions (def-use chains) and register
// allocation by interference colouring.
#include <algorithm>

#include "ptx/analysis.h"

namespace relgpu::ptx {

namespace {

struct Bits {
  std::vector<uint64_t> w;
  explicit Bits(size_t n = 0) : w((n + 63) / 64, 0) {}
  bool get(size_t i) const { return (w[i >> 6] >> (i & 63)) & 1; }
  void set(size_t i) { w[i >> 6] |= uint64_t(1) << (i & 63); }
  void clr(size_t i) { w[i >> 6] &= ~(uint64_t(1) << (i & 63)); }
  bool or_in(const Bits& o) {
    bool ch = false;
    for (size_t k = 0; k < w.size(); ++k) {
      uint64_t v = w[k] | o.w[k];
      ch |= v != w[k];
      w[k] = v;
    }
    return ch;
  }
  template <class F> void each(F fn) const {
    for (size_t k = 0; k < w.size(); ++k)
      for (uint64_t v = w[k]; v; v &= v - 1) fn(k * 64 + size_t(__builtin_ctzll(v)));
  }
};

// live_out per instruction (backward, iterated over blocks to a fixed point).
std::vector<Bits> live_out_per_instr(const Function& f) {
  const size_t nr = f.regs.size(), n = f.instrs.size(), nb = f.blocks.size();
  std::vector<Bits> in_b(nb, Bits(nr)), out(n, Bits(nr));
  std::vector<int32_t> uses, defs;
  auto transfer = [&](int32_t i, Bits& live) {  // live: out -> in
    const Instr& x = f.instrs[i];
    instr_defs(x, defs);
    if (x.guard < 0)  // a guarded write may not happen: it kills nothing
      for (int32_t d : defs) live.clr(size_t(d));
    instr_uses(x, uses);
    for (int32_t u : uses) live.set(size_t(u));
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = nb; b-- > 0;) {
      Bits live(nr);
      for (int32_t s : f.blocks[b].succ)
        if (size_t(s) < nb) live.or_in(in_b[s]);
      for (int32_t i = f.blocks[b].last; i >= f.blocks[b].first; --i) {
        out[i] = live;
        transfer(i, live);
      }
      changed |= in_b[b].or_in(live);
    }
  }
  return out;
}

}  // namespace

void analyse_liveness(Function& f) {
  const size_t n = f.instrs.size();
  f.def_uses.assign(n, {});
  if (n == 0) return;
  std::vector<Bits> out = live_out_per_instr(f);
  std::vector<int32_t> uses, defs;
  for (size_t i = 0; i < n; ++i) {
    Instr& x = f.instrs[i];
    instr_uses(x, uses);
    instr_defs(x, defs);
    x.info.dead_mask = 0;
    for (size_t k = 0; k < uses.size() && k < 32; ++k) {
      int32_t r = uses[k];
      bool rewritten_here = x.guard < 0 && std::find(defs.begin(), defs.end(), r) != defs.end();
      if (rewritten_here || !out[i].get(size_t(r))) x.info.dead_mask |= 1u << k;
    }
    x.info.dead[0] = x.info.dead_mask & 1;
    x.info.dead[1] = (x.info.dead_mask >> 1) & 1;
  }
  // Reaching definitions: each (instruction, register written) is a def.
  struct Def { int32_t instr, reg; };
  std::vector<Def> all;
  std::vector<std::vector<int32_t>> defs_of(f.regs.size());
  for (size_t i = 0; i < n; ++i) {
    instr_defs(f.instrs[i], defs);
    for (int32_t r : defs) {
      defs_of[r].push_back(int32_t(all.size()));
      all.push_back({int32_t(i), r});
    }
  }
  const size_t nd = all.size(), nb = f.blocks.size();
  auto step = [&](int32_t i, Bits& reach) {
    instr_defs(f.instrs[i], defs);
    bool guarded = f.instrs[i].guard >= 0;
    for (int32_t r : defs) {
      if (!guarded)
        for (int32_t d : defs_of[r]) reach.clr(size_t(d));
      for (int32_t d : defs_of[r])
        if (all[d].instr == i) reach.set(size_t(d));
    }
  };
  std::vector<Bits> out_b(nb, Bits(nd)), in_b(nb, Bits(nd));
  std::vector<std::vector<int32_t>> preds(nb);
  for (size_t b = 0; b < nb; ++b)
    for (int32_t s : f.blocks[b].succ)
      if (size_t(s) < nb) preds[s].push_back(int32_t(b));
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < nb; ++b) {
      Bits reach(nd);
      for (int32_t p : preds[b]) reach.or_in(out_b[p]);
      in_b[b] = reach;
      for (int32_t i = f.blocks[b].first; i <= f.blocks[b].last; ++i) step(i, reach);
      changed |= out_b[b].or_in(reach);
    }
  }
  for (size_t b = 0; b < nb; ++b) {
    Bits reach = in_b[b];
    for (int32_t i = f.blocks[b].first; i <= f.blocks[b].last; ++i) {
      instr_uses(f.instrs[i], uses);
      for (int32_t r : uses)
        for (int32_t d : defs_of[r])
          if (reach.get(size_t(d))) f.def_uses[all[d].instr].push_back(i);
      step(i, reach);
    }
  }
  for (auto& v : f.def_uses) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
}

// Greedy colouring of the interference graph (a def interferes with what is
// live after it). Each 32-bit slot is one register; a 64-bit value takes an
// aligned pair, a 128-bit value an aligned quad; 8/16-bit values take a whole
// slot (ptxas may pack two 16-bit values; we do not). Predicates have their
// own file and are not counted.
//
// Against `ptxas -arch=sm_75 -v` (nvcc 13.0) on the tests/data/ptx kernels:
//   k_math 27 vs 28, k_atom 18 vs 22, k_half 17 vs 24, k_t<float> 4 vs 8,
//   red 14 vs 22, k2 29 vs 34, k3 9 vs 11, k1 (double math) 45 vs 34.
// ptxas never reports fewer than 8 (allocation granularity), reserves
// registers around calls and for its own temporaries, and schedules and
// rematerialises (which can also shorten live ranges, as in k1). Treat the
// number as an estimate for occupancy studies, not ptxas's exact figure.
int32_t allocate_registers(Function& f, const std::vector<uint8_t>* cls) {
  const size_t nr = f.regs.size(), n = f.instrs.size();
  f.phys_reg.assign(nr, -1);
  f.regs_allocator = 0;
  int32_t cls1 = -1;
  if (n == 0) return cls1;
  std::vector<Bits> out = live_out_per_instr(f);
  std::vector<std::vector<int32_t>> adj(nr);
  std::vector<char> used(nr, 0);
  std::vector<int32_t> uses, defs;
  auto counts = [&](int32_t r) { return f.regs[r].type != Type::pred; };
  for (size_t i = 0; i < n; ++i) {
    instr_defs(f.instrs[i], defs);
    instr_uses(f.instrs[i], uses);
    for (int32_t r : uses) used[r] = 1;
    for (int32_t d : defs) {
      used[d] = 1;
      if (!counts(d)) continue;
      out[i].each([&](size_t r) {
        if (int32_t(r) != d && counts(int32_t(r))) {
          adj[d].push_back(int32_t(r));
          adj[r].push_back(d);
        }
      });
      for (int32_t d2 : defs)  // two results of one instruction (ld.v4) must differ
        if (d2 != d && counts(d2)) adj[d].push_back(d2);
    }
  }
  // Values live on entry (read before written) overlap each other.
  if (!f.blocks.empty()) {
    Bits entry = out[0];
    instr_defs(f.instrs[0], defs);
    if (f.instrs[0].guard < 0) for (int32_t d : defs) entry.clr(size_t(d));
    instr_uses(f.instrs[0], uses);
    for (int32_t u : uses) entry.set(size_t(u));
    std::vector<int32_t> live;
    entry.each([&](size_t r) { if (counts(int32_t(r))) live.push_back(int32_t(r)); });
    for (int32_t a : live)
      for (int32_t b : live)
        if (a != b) adj[a].push_back(b);
  }
  // Colour wide values first (they need aligned slots), then in register
  // order; with classes, class 0 first, then class 1 above it (aligned).
  auto width = [&](int32_t r) { return reg_words(f.regs[r].type); };
  std::vector<char> busy;
  uint32_t top = 0;
  for (uint8_t c = 0; c < (cls ? 2 : 1); ++c) {
    std::vector<int32_t> order;
    for (size_t r = 0; r < nr; ++r)
      if (used[r] && counts(int32_t(r)) && (!cls || (*cls)[r] == c)) order.push_back(int32_t(r));
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return width(a) > width(b); });
    if (c == 1) {
      cls1 = int32_t(top);
      if (!order.empty()) top = (top + width(order[0]) - 1) / width(order[0]) * width(order[0]);
    }
    const uint32_t base = top;
    for (int32_t r : order) {
      busy.assign(top + 4, 0);
      for (int32_t o : adj[r]) {
        int32_t p = f.phys_reg[o];
        if (p < 0) continue;
        for (unsigned k = 0; k < width(o); ++k) busy[p + k] = 1;
      }
      unsigned w = width(r);
      int32_t slot = int32_t(base);
      for (;; slot += int32_t(w)) {
        bool ok = true;
        for (unsigned k = 0; k < w; ++k)
          if (size_t(slot + k) < busy.size() && busy[slot + k]) ok = false;
        if (ok) break;
      }
      f.phys_reg[r] = slot;
      top = std::max(top, uint32_t(slot) + w);
    }
  }
  f.regs_allocator = top;
  return cls1;
}

}  // namespace relgpu::ptx
