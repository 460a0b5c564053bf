// RISE's data path in the SM (sm/rise.h) and SP-lane strikes (sm/sp_upsets.h):
// a copy re-runs an SP instruction on the operands the original read, its
// results wait in the instruction (the output buffer), and the writeback
// compares them lane by lane.
#include <algorithm>

#include "sm/core.h"

namespace relgpu::sm {

void Core::rise_issue(Inst* in) {
  in->rise.lanes = in->rise.dup = 0;
  in->rise.why = Rise::Why::none;
  if (!rise_) return;
  WarpSlot& s = warps_[in->ws];
  const bool paired = s.pair_lanes && s.pair_pc == in->f.pc && s.pair_code == in->f.code && now_ <= s.pair_until;
  if (s.pair_lanes && !(paired && in->op->dup)) ++rise_->st.pairs_expired;
  if (in->op->dup) {
    const Rise::Why why = rise_->full_copy(s.cta_slot);
    if (why != Rise::Why::none) {  // a full copy checks every lane; a pairing is then moot
      if (paired) ++rise_->st.pairs_expired;
      in->rise.why = why;
      sched_[in->ws % nsched_].copy_at = now_ + 1;  // the copy issues in the next cycle
    } else if (paired) {
      in->rise.why = Rise::Why::pair;
      in->rise.lanes = s.pair_lanes;  // narrowed to the executed lanes at dispatch
      ++rise_->st.pairs_used;
    }
  }
  s.pair_lanes = 0;
}

void Core::rerun(const Inst* in, uint64_t out[5][32]) {
  WarpSlot& s = warps_[in->ws];
  const uint32_t carry = s.w->carry;
  scratch_f_ = in->f;
  s.w->carry = in->rise.carry_in;
  ex_->execute(*s.cta, *s.w, scratch_f_);
  s.w->carry = carry;
  std::copy(&scratch_f_.dbuf[0][0], &scratch_f_.dbuf[0][0] + 4 * func::kWarpSize, &out[0][0]);
  std::copy(scratch_f_.d2buf, scratch_f_.d2buf + func::kWarpSize, out[4]);
}

void Core::rise_dispatch(Inst* in, unsigned unit, uint32_t carry0) {
  const StaticOp& op = *in->op;
  RiseInst& r = in->rise;
  r.carry_in = carry0;
  const uint32_t exec = in->f.exec, live = live_lanes(in->ws);
  if (rise_ && op.dup && !r.copy()) {
    if (r.why == Rise::Why::pair) {
      r.lanes &= exec;
    } else if (rise_->partial() && exec && __builtin_popcount(live) <= 16) {
      // Intra-warp: the k-th executed lane's copy runs in the k-th idle lane.
      r.why = Rise::Why::intra;
      r.lanes = exec;
      uint32_t idle = ~exec;
      for (int k = __builtin_popcount(exec); k > 0; --k) {
        const uint32_t low = idle & (~idle + 1);
        r.dup |= low;
        idle &= ~low;
      }
    }
  }
  if (r.copy()) r.lanes = exec;
  if (r.lanes) rerun(in, r.buf);
  if (r.why == Rise::Why::pair)  // strikes on the lanes the pairing warp ran for this one
    for (uint32_t m = r.lanes; m; m &= m - 1) r.buf[0][__builtin_ctz(m)] ^= warps_[in->ws].pair_flip[__builtin_ctz(m)];
  if (sp_upsets_) sp_occ_[unit] = {in, now_, op.ii, r.copy(), r.dup, 0, 0};
  if (!rise_ || !op.dup) return;
  // SP AVF: executed lanes are ACE for the unit's initiation interval unless checked.
  Rise::Stats& st = rise_->st;
  const uint64_t n = uint64_t(__builtin_popcount(exec)), p = uint64_t(__builtin_popcount(r.lanes & exec));
  ++st.sp_insn;
  st.sp_lane_cycles += n * op.ii;
  st.protected_lane_cycles += p * op.ii;
  st.ace_lane_cycles += (n - p) * op.ii;
  st.busy_unit_cycles += op.ii * (r.copy() ? 2u : 1u);
  if (n < 32) st.partly_idle_unit_cycles += op.ii * (r.copy() ? 2u : 1u);
  if (r.lanes) {
    ++st.copies[size_t(r.why)];
    st.copy_lane_cycles += p * op.ii;
  }
  if (r.copy())  // the copy reads its operands again
    for (unsigned i = 0; i < in->nread; ++i)
      for (unsigned b = 0; b < rf_.span(); ++b) count_rf_access(false, in->read_group[i] * rf_.span() + b);
  if (rise_->partial() && !r.copy() && r.why != Rise::Why::intra && exec && (exec & live) != live)
    rise_pair(in, unit);
}

// A diverged warp's idle lanes run the lanes of a ready warp of its
// scheduler (rise.pair_scope=sm: of the SM) whose next instruction is the
// same one, where that warp is active.
void Core::rise_pair(const Inst* in, unsigned unit) {
  ++rise_->st.pair_searches;
  bool same_pc = false, any_pc = false;
  for (unsigned si = 0; si < nsched_; ++si) {
    if (!pair_sm_ && si != in->ws % nsched_) continue;  // rise.pair_scope
    for (unsigned j : sched_[si].order) {
      WarpSlot& t = warps_[j];
      if (j == in->ws || !t.w || t.w->done || t.pair_lanes || rise_->full_mode(t.cta_slot)) continue;
      if (t.w->frames.empty() || t.w->frames.back().code != in->f.code || t.w->pc() != in->f.pc) continue;
      if (!any_pc) ++rise_->st.pair_same_pc_any, any_pc = true;
      const StaticOp* op = nullptr;
      if (check(j, op) != kIssued) continue;
      if (!same_pc) ++rise_->st.pair_same_pc, same_pc = true;
      const uint32_t lanes = t.w->active() & ~in->f.exec & live_lanes(j);
      if (!lanes) continue;
      t.pair_lanes = lanes;
      t.pair_pc = in->f.pc;
      t.pair_code = in->f.code;
      t.pair_until = now_ + pair_window_;
      std::fill(std::begin(t.pair_flip), std::end(t.pair_flip), 0u);
      ++rise_->st.pairs_set;
      if (sp_upsets_) sp_occ_[unit].pair = lanes, sp_occ_[unit].pair_ws = j;
      return;
    }
  }
}

void Core::rise_compare(Inst* in) {
  RiseInst& r = in->rise;
  if (!r.lanes) return;
  Rise::Stats& st = rise_->st;
  ++st.compared;
  func::InFlight& f = in->f;
  const unsigned nd = std::min<unsigned>(f.ndst, 4);
  const bool pair = f.d->dst2 >= 0 && f.d->xk != func::XK::mov;  // as Executor::writeback
  auto slot = [&](unsigned k) -> uint64_t* { return k < 4 ? f.dbuf[k] : f.d2buf; };
  uint32_t bad = 0;
  for (uint32_t m = r.lanes; m; m &= m - 1) {
    const unsigned l = unsigned(__builtin_ctz(m));
    for (unsigned k = 0; k < 5; ++k)
      if ((k < nd || (k == 4 && pair)) && slot(k)[l] != r.buf[k][l]) bad |= 1u << l;
  }
  if (!bad) return;
  // Recovery: a third run and a majority vote per lane; the warp re-fetches.
  ++st.mismatches;
  uint64_t third[5][32];
  rerun(in, third);
  for (uint32_t m = bad; m; m &= m - 1) {
    const unsigned l = unsigned(__builtin_ctz(m));
    for (unsigned k = 0; k < 5; ++k) {
      if (!(k < nd || (k == 4 && pair))) continue;
      uint64_t& a = slot(k)[l];
      const uint64_t b = r.buf[k][l], c = third[k][l];
      if (a == b || a == c) continue;
      a = b == c ? b : c;
      ++st.recovered_lanes;
    }
  }
  WarpSlot& s = warps_[in->ws];
  const uint64_t penalty = recovery_cycles_;
  s.hold = std::max(s.hold, now_ + penalty);
  s.dirty = true;
  st.recovery_cycles += penalty;
}

void Core::sp_strikes() {
  SpUpsets::Strike k;
  while (sp_upsets_->next_before(now_, k)) {
    SpOcc& o = sp_occ_[k.unit];
    Inst* in = o.in;
    const uint64_t end = in ? o.start + uint64_t(o.ii) * (o.copy ? 2 : 1) : 0;
    if (!in || k.cycle < o.start || k.cycle >= end) {
      sp_upsets_->count(SpUpsets::idle_unit);
      continue;
    }
    const uint32_t bit = 1u << k.lane;
    const uint64_t flip = uint64_t(1) << k.bit;
    if (k.cycle >= o.start + o.ii) {  // the full copy's turn
      if (in->f.exec & bit) {
        in->rise.buf[0][k.lane] ^= flip;
        sp_upsets_->count(SpUpsets::copy);
      } else {
        sp_upsets_->count(SpUpsets::idle_lane);
      }
    } else if (in->f.exec & bit) {
      in->f.dbuf[0][k.lane] ^= flip;
      sp_upsets_->count(SpUpsets::original);
      if (!in->op->dup) sp_upsets_->count(SpUpsets::no_result);
      else if (!(in->rise.lanes & bit)) sp_upsets_->count_unprotected();
    } else if (o.dup & bit) {  // the copy of the executed lane of the same rank
      const unsigned rank = unsigned(__builtin_popcount(o.dup & (bit - 1)));
      uint32_t e = in->f.exec;
      for (unsigned i = 0; i < rank; ++i) e &= e - 1;
      in->rise.buf[0][__builtin_ctz(e)] ^= flip;
      sp_upsets_->count(SpUpsets::copy);
    } else if (o.pair & bit) {
      WarpSlot& t = warps_[o.pair_ws];
      if (t.pair_lanes & bit) t.pair_flip[k.lane] ^= uint32_t(flip);
      sp_upsets_->count(SpUpsets::copy);
    } else {
      sp_upsets_->count(SpUpsets::idle_lane);
    }
  }
}

}  // namespace relgpu::sm
