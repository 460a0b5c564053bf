// Voltage smoothing's hooks in the SM (Leng thesis §4.5, spec 004 §5):
// the issue gate between dispatch and the operand reads (sm/issue_gate.h;
// the local droop predictor, sm/droop_unit.h), and the active-warp reports
// and issue hold of the global smoother (gpu/global_smoother.h).
#include <algorithm>

#include "sm/core.h"

namespace relgpu::sm {

// After dispatch(): the schedulers pick (select_issue), the issue gate sees
// the picks by class, the reads operand_read() would grant and this cycle's
// writebacks, and its limits act on this cycle's reads and issue.
void Core::gate_issue() {
  select_issue();
  IssueGate::Demand d;
  if (now_ >= hold_until_)  // a held SM's dispatch wants nothing
    for (const Pick& p : picks_)
      if (p.r == kIssued && p.op) ++d.issue[size_t(p.op->cls)];
  unsigned writes = 0;
  for (uint8_t n : act_.rf_writes) writes += n;
  d.rf_reads = planned_reads();
  d.rf_writes = writes / rf_.span();
  limit_ = gate_->cycle(now_, d);
}

// One read per bank group per cycle (operand_read): the groups some
// collector still reads. A group is one 1024-bit warp register.
unsigned Core::planned_reads() const {
  if (oc_free_[0] + oc_free_[1] + oc_free_[2] == oc_total_) return 0;
  uint64_t seen[4] = {0, 0, 0, 0};
  unsigned n = 0;
  for (int k = 0; k < 3; ++k)
    for (const Inst* in : oc_[k]) {
      if (!in) continue;
      for (uint32_t m = in->reads_left; m; m &= m - 1) {
        const unsigned g = in->read_group[__builtin_ctz(m)];
        uint64_t& w = seen[g / 64 % 4];
        const uint64_t bit = uint64_t(1) << (g % 64);
        if (!(w & bit)) w |= bit, ++n;
      }
    }
  return n;
}

// The warp's next instruction waits on a load result or on its stores'
// acknowledgements (check_now's memory stall), without check()'s caching.
bool Core::waits_memory(const WarpSlot& s) const {
  const func::Warp& w = *s.w;
  if (s.control || !s.ops || w.frames.empty() || w.frames.back().code != s.code || w.frames.size() != s.depth)
    return false;
  const int32_t pc = w.pc();
  if (pc < 0 || size_t(pc) >= s.code->ins.size()) return false;
  const StaticOp& op = s.ops[pc];
  if (op.drain && s.stores) return true;
  for (uint16_t v : op.sb_phys)
    if (s.pbase + v < s.sbp.size() && s.sbp[s.pbase + v] == 2) return true;
  const uint32_t base = w.frames.back().reg_base;
  for (uint16_t v : op.sb_slot)
    if (base + v < s.sbs.size() && s.sbs[base + v] == 2) return true;
  return false;
}

unsigned Core::smoother_active_warps() const {
  unsigned n = 0;
  for (const WarpSlot& s : warps_)
    if (s.w && !s.w->done && !s.imiss && !waits_memory(s)) ++n;
  return n;
}

// issue() wakes the SM when a hold it kept a pick back for ends.
void Core::hold_issue_until(uint64_t cycle) { hold_until_ = std::max(hold_until_, cycle); }

void Core::set_warp_sink(ActiveWarpSink* sink, unsigned period) {
  sink_ = sink;
  report_period_ = std::max(1u, period);
}

// Start of cycle `now` (before it runs): report boundaries skipped since the
// last cycle saw the state that cycle left, which the skip did not change.
// Warps of CTAs added since then arrived after those boundaries. One report
// stands for all of them (the count is the same).
void Core::report_skipped(uint64_t now) {
  const uint64_t first = (last_cycle_ / report_period_ + 1) * report_period_;
  if (first >= now) return;
  unsigned n = smoother_active_warps();
  for (unsigned ws : rows_starting_)
    if (const WarpSlot& s = warps_[ws]; s.w && !s.w->done && !s.imiss && !waits_memory(s)) --n;
  if (unsigned hold = sink_->report(id_, first, n)) hold_issue_until(now + hold);
}

// End of a report cycle.
void Core::report_now() {
  if (unsigned hold = sink_->report(id_, now_, smoother_active_warps())) hold_issue_until(now_ + 1 + hold);
}

}  // namespace relgpu::sm
