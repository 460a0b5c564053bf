// Commit stage: SIMT reconvergence stack, exit/ret, .func calls, barriers.
#include <cstring>
#include <sstream>

#include "common/error.h"
#include "func/exec.h"

namespace relgpu::func {

Event Executor::commit(Cta& cta, Warp& w, InFlight& f) {
  const DInstr& d = *f.d;
  Frame& fr = w.frames.back();
  SimtEntry& top = fr.stack.back();
  uint32_t m = f.exec;
  top.pc = f.pc + 1;
  const size_t depth = fr.stack.size();
  switch (d.xk) {
    case XK::bra: {
      // Divergence: the current entry becomes the reconvergence entry at the
      // immediate post-dominator; the not-taken and taken paths are pushed
      // on top (taken runs first).
      uint32_t t = f.taken, nt = f.active & ~t;
      if (!nt) {
        top.pc = d.target;
      } else if (t) {
        int32_t r = d.ipdom;
        top.pc = r;
        fr.stack.push_back({f.pc + 1, r, nt});
        fr.stack.push_back({d.target, r, t});
      }
      if (ctx_.its_yield) its_branch(w, f, depth);
      break;
    }
    case XK::wsync:
      warp_sync(cta, w, f);
      break;
    case XK::exit:
      if (m) {
        w.exited |= m;
        remove_threads(w, m, true);
      }
      break;
    case XK::ret:
      if (m) {
        if (w.frames.size() == 1) {  // ret from the kernel is exit
          w.exited |= m;
          remove_threads(w, m, true);
        } else {
          remove_threads(w, m, false);
        }
      }
      break;
    case XK::call:
      if (m) {
        if (d.builtin != DInstr::Builtin::none) builtin_call(cta, w, f);
        else do_call(cta, w, f);
      }
      break;
    case XK::bar:
      if (m && its_barrier(cta, w, f)) arrive(cta, w, f);
      break;
    case XK::trap:
      if (m) fail(cta, w, f.pc, __builtin_ctz(m), "trap instruction executed");
      break;
    case XK::brkpt:
      if (m) fail(cta, w, f.pc, __builtin_ctz(m), "brkpt instruction executed (breakpoints are not supported)");
      break;
    default: break;
  }
  normalize(cta, w);
  if (w.done) {
    warp_exited(cta);
    return Event::exit;
  }
  return w.at_barrier ? Event::barrier : Event::none;
}

void Executor::remove_threads(Warp& w, uint32_t m, bool all_frames) {
  size_t first = all_frames ? 0 : w.frames.size() - 1;
  for (size_t i = first; i < w.frames.size(); ++i) {
    for (auto& e : w.frames[i].stack) e.mask &= ~m;
    if (all_frames) w.frames[i].call_mask &= ~m;
  }
}

// Pops finished stack entries (empty, or reached their reconvergence pc) and
// finished call frames.
void Executor::normalize(Cta& cta, Warp& w) {
  for (;;) {
    auto& st = w.frames.back().stack;
    while (!st.empty() && (st.back().mask == 0 || st.back().pc == st.back().rpc)) st.pop_back(), w.spins = 0;
    if (!st.empty()) return;
    if (w.frames.size() == 1) {
      w.done = true;
      return;
    }
    do_return(cta, w);
  }
}

void Executor::do_call(Cta& cta, Warp& w, InFlight& f) {
  const DInstr& d = *f.d;
  const Code& cal = *d.callee;
  Frame& caller = w.frames.back();
  Frame nf;
  nf.code = &cal;
  nf.reg_base = caller.reg_base + uint32_t(caller.code->fn->regs.size());
  nf.local_base = (caller.local_top + 15) / 16 * 16;
  // Every frame takes at least 16 bytes of stack (the hardware's return
  // address and saved registers), so unbounded recursion overflows.
  nf.local_top = nf.local_base + std::max<uint64_t>(cal.local_bytes, 16);
  if (nf.local_top > cta.local_per_thread)
    fail(cta, w, f.pc, -1,
         "stack overflow calling '" + cal.fn->name + "': call depth " + std::to_string(w.frames.size()) +
             " needs " + std::to_string(nf.local_top) + " bytes of stack per thread, the launch has " +
             std::to_string(cta.local_per_thread) + " (func.stack_bytes; unbounded recursion?)");
  uint64_t ca = caller.code->param_area, na = cal.param_area;
  nf.param.assign(na * kWarpSize, 0);
  for (unsigned k = 0; k < d.nargs; ++k) {
    int32_t ps = cal.fn->params[k], as = d.arg_syms[k];
    uint64_t n = std::min(cal.fn->symbols[ps].size, caller.code->fn->symbols[as].size);
    uint64_t doff = cal.param_slot[ps], soff = caller.code->param_slot[as];
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (f.exec >> l & 1) std::memcpy(&nf.param[l * na + doff], &caller.param[l * ca + soff], n);
  }
  nf.stack.push_back({0, -1, f.exec});
  nf.call_pc = f.pc;
  nf.call_mask = f.exec;
  regs_.reserve(w.rf, nf.reg_base + uint32_t(cal.fn->regs.size()));
  w.frames.push_back(std::move(nf));
}

void Executor::do_return(Cta&, Warp& w) {
  Frame cal = std::move(w.frames.back());
  w.frames.pop_back();
  Frame& caller = w.frames.back();
  const DInstr& cd = caller.code->ins[cal.call_pc];
  const ptx::Function& cf = *cal.code->fn;
  if (cd.ret_sym >= 0 && !cf.rets.empty()) {
    int32_t rs = cf.rets[0];
    uint64_t n = std::min(cf.symbols[rs].size, caller.code->fn->symbols[cd.ret_sym].size);
    uint64_t soff = cal.code->param_slot[rs], doff = caller.code->param_slot[cd.ret_sym];
    uint64_t ca = caller.code->param_area, na = cal.code->param_area;
    uint32_t lanes = cal.call_mask & ~w.exited;
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (lanes >> l & 1) std::memcpy(&caller.param[l * ca + doff], &cal.param[l * na + soff], n);
  }
}

// ---- barriers ----------------------------------------------------------------

void Executor::arrive(Cta& cta, Warp& w, InFlight& f) {
  const DInstr& d = *f.d;
  uint32_t b = f.bar_id;
  if (b >= 16) fail(cta, w, f.pc, -1, "barrier id " + std::to_string(b) + " is out of range 0..15");
  BarrierState& B = cta.bars[b];
  uint64_t bit = uint64_t(1) << w.id;
  if (B.arrived & bit)
    fail(cta, w, f.pc, -1,
         "warp arrives at barrier " + std::to_string(b) + " twice before it completes (bar.arrive then bar.sync?)");
  if (f.bar_count) {
    if (B.arrived && B.count != f.bar_count)
      fail(cta, w, f.pc, -1,
           "barrier " + std::to_string(b) + " used with thread count " + std::to_string(f.bar_count) +
               " while other warps arrived with " + std::to_string(B.count));
    B.count = f.bar_count;
  }
  bool first = B.arrived == 0;
  B.arrived |= bit;
  B.threads += __builtin_popcount(w.valid & ~w.exited);
  ptx::BarMode mode = d.in->m.bar;
  if (mode == ptx::BarMode::red_popc || mode == ptx::BarMode::red_and || mode == ptx::BarMode::red_or) {
    uint8_t kind = mode == ptx::BarMode::red_popc ? 1 : mode == ptx::BarMode::red_and ? 2 : 3;
    if (first) {
      B.red_kind = kind;
      B.red = kind == 2 ? 1 : 0;
    }
    if (kind == 1) B.red += __builtin_popcount(f.pred_mask);
    else if (kind == 2) B.red &= f.pred_mask == f.exec;
    else B.red |= f.pred_mask != 0;
    if (d.dst.k == DOp::kReg)
      B.dst.push_back({w.id, w.frames.back().reg_base + uint32_t(d.dst.reg), f.exec, kind != 1});
  }
  if (mode != ptx::BarMode::arrive) {
    B.waiting |= bit;
    w.at_barrier = true;
    w.bar_pc = f.pc;
    w.bar_id = b;
  }
  if (barrier_ready(cta, b)) release(cta, b);
}

bool Executor::barrier_ready(const Cta& cta, unsigned b) const {
  const BarrierState& B = cta.bars[b];
  if (!B.arrived) return false;
  if (B.count) return B.threads >= B.count;
  for (const Warp& w : cta.warps)
    if (!w.done && !(B.arrived >> w.id & 1)) return false;
  return true;
}

void Executor::release(Cta& cta, unsigned b) {
  BarrierState& B = cta.bars[b];
  for (Warp& w : cta.warps)
    if (B.waiting >> w.id & 1) {
      w.at_barrier = false;
      cta.released.push_back(w.id);
    }
  uint64_t v[kWarpSize];
  for (auto& r : B.dst) {
    for (unsigned l = 0; l < kWarpSize; ++l) v[l] = B.red;
    regs_.write(cta.warps[r.warp].rf, r.slot, r.mask, v);
  }
  B = BarrierState{};
}

void Executor::warp_exited(Cta& cta) {
  for (unsigned b = 0; b < 16; ++b)
    if (cta.bars[b].arrived && barrier_ready(cta, b)) release(cta, b);
}

std::string Executor::describe_waits(const Cta& cta) const {
  std::ostringstream s;
  bool any = false;
  for (const Warp& w : cta.warps) {
    if (w.done) continue;
    s << (any ? "; " : "") << "warp " << w.id;
    any = true;
    if (w.at_barrier) {
      const BarrierState& B = cta.bars[w.bar_id];
      s << " waits at barrier " << w.bar_id << " (" << describe_pc(w, w.bar_pc) << "), "
        << __builtin_popcountll(B.arrived) << " warp(s) arrived"
        << (B.count ? ", expecting " + std::to_string(B.count) + " threads" : std::string());
    } else {
      s << " is at " << describe_pc(w, w.pc());
    }
  }
  return s.str();
}

}  // namespace relgpu::func
