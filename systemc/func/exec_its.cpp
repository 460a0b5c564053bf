// Independent thread scheduling (func.reconvergence its; PTX ISA, sm_70+).
// The warp keeps the IPDOM stack's order, which is what Volta's compiler-placed
// convergence barriers give for structured code, and adds what the stack
// cannot do:
//   - forward progress: a path that takes func.its_yield backward branches
//     while threads of its warp wait elsewhere in the stack (a spin loop, an
//     intra-warp lock) lets the nearest waiting threads run ahead as their own
//     path, up to their reconvergence point;
//   - bar.warp.sync waits until every live thread of its member mask has
//     reached a bar.warp.sync, letting the missing threads run meanwhile;
//     bar.sync (no thread count) first gathers every live thread of the warp
//     the same way, since each thread arrives on its own.
// Scope: within one call frame; threads waiting in a caller's frame stay there.
#include "func/exec.h"

namespace relgpu::func {

void Executor::its_branch(Warp& w, const InFlight& f, size_t depth) {
  auto& st = w.frames.back().stack;
  if (st.size() != depth) {  // diverged
    w.spins = 0;
    return;
  }
  if (!f.taken || f.d->target > f.pc || st.size() < 2) return;
  if (++w.spins < ctx_.its_yield) return;
  w.spins = 0;
  its_yield(w);
}

// The threads of the highest stack entry below the top that holds threads
// not running and not parked at a bar.warp.sync get their own entry on top,
// from where they wait to where that entry reconverges. An entry that reached
// its reconvergence pc but is not on top (so not popped yet) is skipped: its
// threads wait in the entry below.
bool Executor::its_yield(Warp& w) {
  auto& st = w.frames.back().stack;
  const uint32_t busy = st.back().mask | w.wsync;
  for (size_t i = st.size() - 1; i-- > 0;) {
    const uint32_t l = st[i].mask & ~busy;
    if (!l || st[i].pc == st[i].rpc) continue;
    st[i].mask &= ~l;
    const SimtEntry run{st[i].pc, st[i].rpc, l};
    st.push_back(run);
    w.spins = 0;
    ++its_yields_;
    return true;
  }
  return false;
}

// Arrived threads park at their instruction (the pc stays) until the last
// thread of `need` arrives; the others, released, pass theirs when they run
// again. Returns whether this instruction takes effect (arrive), its threads
// pass a released one (pass), or wait.
Executor::Converge Executor::its_converge(Cta& cta, Warp& w, InFlight& f, uint32_t need) {
  const uint32_t m = f.exec;
  if ((m & ~w.wsync_go) == 0) {
    w.wsync_go &= ~m;
    return Converge::pass;
  }
  w.wsync_go &= ~m;
  w.wsync |= m;
  need &= w.valid & ~w.exited;
  if (need & ~w.wsync) {
    w.frames.back().stack.back().pc = f.pc;
    if (!its_yield(w))
      fail(cta, w, f.pc, -1,
           "threads of this warp wait here for others that cannot reach a bar.warp.sync or barrier (they wait "
           "at another one or in a caller's frame)");
    return Converge::wait;
  }
  w.wsync_go |= need & ~m;
  w.wsync &= ~need;
  return Converge::arrive;
}

// bar.warp.sync: waits for every live thread of its member mask.
void Executor::warp_sync(Cta& cta, Warp& w, InFlight& f) {
  if (f.exec) its_converge(cta, w, f, uint32_t(f.src[0][__builtin_ctz(f.exec)]));
}

// bar.sync / barrier.sync without a thread count: with independent thread
// scheduling each thread arrives on its own (PTX, sm_70+), so the warp's
// threads first gather, then the warp arrives once.
bool Executor::its_barrier(Cta& cta, Warp& w, InFlight& f) {
  const ptx::BarMode b = f.d->in->m.bar;
  if (!ctx_.its_yield || f.bar_count || (b != ptx::BarMode::sync && b != ptx::BarMode::none)) return true;
  return its_converge(cta, w, f, ~0u) == Converge::arrive;
}

}  // namespace relgpu::func
