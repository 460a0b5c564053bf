// SM pipeline: fetch, scheduling and issue, operand collection with the
// bank arbitrator, dispatch to the functional units, writeback.
#include <algorithm>

#include "common/error.h"
#include "ptx/analysis.h"
#include "sm/core.h"
#include "sm/uniform_unit.h"

namespace relgpu::sm {

using func::OpClass;
using func::XK;
using ptx::Opcode;

// ---- static per-instruction info ----------------------------------------------

StaticOp Core::make_op(const ptx::Function& fn, const func::DInstr& d) const {
  StaticOp o;
  const ptx::Instr& in = *d.in;
  std::vector<int32_t> uses, defs;
  ptx::instr_uses(in, uses);
  ptx::instr_defs(in, defs);
  auto dedupe = [](std::vector<uint16_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  auto split = [&](const std::vector<int32_t>& regs, std::vector<uint16_t>& phys, std::vector<uint16_t>& slots) {
    for (int32_t v : regs) {
      if (v < 0) continue;
      bool rf = fn.regs[size_t(v)].type != ptx::Type::pred && size_t(v) < fn.phys_reg.size() && fn.phys_reg[size_t(v)] >= 0;
      if (!rf) {
        slots.push_back(uint16_t(v));
        continue;
      }
      unsigned width = ptx::type_bits(fn.regs[size_t(v)].type) > 32 ? 2 : 1;  // as SmRegs
      for (unsigned k = 0; k < width; ++k) phys.push_back(uint16_t(fn.phys_reg[size_t(v)] + int(k)));
    }
    dedupe(phys);
    dedupe(slots);
  };
  split(uses, o.rd_phys, o.rd_slot);
  split(defs, o.wr_phys, o.wr_slot);
  o.rd_dead = dead_reads(fn, in, o.rd_phys, 2);
  o.rd_dead_all = dead_reads(fn, in, o.rd_phys, 32);
  o.sb_phys = o.rd_phys;
  o.sb_phys.insert(o.sb_phys.end(), o.wr_phys.begin(), o.wr_phys.end());
  dedupe(o.sb_phys);
  o.sb_slot = o.rd_slot;
  o.sb_slot.insert(o.sb_slot.end(), o.wr_slot.begin(), o.wr_slot.end());
  dedupe(o.sb_slot);
  o.mem = d.xk == XK::ld || d.xk == XK::st || d.xk == XK::atom || d.xk == XK::red;
  // PTX memory model on a non-coherent L1: scopes wider than the CTA reach
  // other SMs, whose writes only the L2 sees. Such relaxed/acquire loads read
  // past L1; a release waits for the warp's earlier stores to be acknowledged;
  // an acquire stops the warp until it is done and then invalidates L1, so no
  // later load reads a line cached before it. .cta scope stays in L1.
  bool wide = in.m.scope == ptx::Scope::gpu || in.m.scope == ptx::Scope::sys || in.m.scope == ptx::Scope::cluster;
  bool fence = in.op == Opcode::membar || in.op == Opcode::fence;
  o.bypass = d.xk == XK::atom || d.xk == XK::red || in.m.volatile_ ||
             in.m.hints.find(".cg") != std::string::npos || in.m.hints.find(".cv") != std::string::npos ||
             (d.xk == XK::ld && wide && (in.m.relaxed || in.m.acquire));
  o.acquire = wide && (fence || (in.m.acquire && (d.xk == XK::ld || d.xk == XK::atom)));
  switch (d.xk) {
    case XK::bra: case XK::wsync: o.control = true; break;
    case XK::call: case XK::ret: case XK::exit: case XK::bar: case XK::trap: case XK::brkpt:
      o.control = o.drain = true;
      break;
    default:
      if (fence) o.control = o.drain = true;
      break;
  }
  if (wide && in.m.release && o.mem && release_waits_) o.drain = true;
  if (o.acquire) o.control = true;
  o.latency = lat_sp_;
  o.ii = ii_sp_;
  if (o.mem) {
    o.unit = Unit::mem;
    o.cls = IssueClass::LDST;
  } else if (d.cls == OpClass::SFU) {
    o.unit = Unit::sfu, o.cls = IssueClass::SFU, o.latency = lat_sfu_, o.ii = ii_sfu_;
  } else if (d.cls == OpClass::FP64) {
    o.unit = Unit::dp, o.cls = IssueClass::FP, o.latency = lat_dp_, o.ii = ii_dp_;
  } else {
    o.cls = d.cls == OpClass::FP32 ? IssueClass::FP : IssueClass::INT;
    if (in.op == Opcode::mad || in.op == Opcode::fma) o.latency = lat_mad_;
    if (in.op == Opcode::div || in.op == Opcode::rem) {
      bool fl = ptx::type_is_float(in.m.type);
      o.latency = fl ? lat_fdiv_ : lat_div_;
      o.ii = fl ? ii_fdiv_ : ii_div_;
    }
  }
  if (op_table_ != OpTable::relgpu && !o.mem) {
    OpTiming t = gpgpusim_op_timing(in, op_table_ == OpTable::gpgpusim3);
    o.latency = t.latency, o.ii = t.ii;
    if (t.sfu) o.unit = Unit::sfu;  // its collectors and unit; the issue class (energy) stays
  }
  if (!o.mem) o.latency = uint16_t(o.latency + result_delay_);
  o.uniform = uniform_candidate(fn, d, o);
  switch (d.xk) {  // sm/rise.h: SP lane work a copy re-runs from the operands
    case XK::alu: case XK::mov: case XK::pack: case XK::unpack: case XK::cvta: case XK::isspacep:
    case XK::vote: case XK::shfl: case XK::activemask: case XK::match: case XK::redux:
      o.dup = o.unit == Unit::sp && !o.control;
      break;
    default: break;
  }
  return o;
}

const StaticOp* Core::ops_for(const func::Code* c) {
  auto it = ops_.find(c);
  if (it == ops_.end()) {
    std::vector<StaticOp> v;
    v.reserve(c->ins.size());
    for (const func::DInstr& d : c->ins) v.push_back(make_op(*c->fn, d));
    it = ops_.emplace(c, std::move(v)).first;
  }
  return it->second.data();
}

// ---- fetch ---------------------------------------------------------------------

// One warp per cycle refills its instruction buffer (round robin over the
// warps whose buffer is empty); the entries are valid fetch_latency later.
// With the instruction cache, a miss sends the line's fetch (or joins the
// one in flight) and the warp waits for it; the other warps go on.
void Core::fetch() {
  if (!fetch_scan_) return;
  unsigned n = unsigned(warps_.size());
  for (unsigned k = 0; k < n; ++k) {
    unsigned ws = (fetch_rr_ + k) % n;
    WarpSlot& s = warps_[ws];
    if (!s.w || s.w->done || s.control || s.ib || s.imiss) continue;
    if (icache_ && !icache_fetch(ws)) {
      fetch_rr_ = ws + 1;
      return;
    }
    s.ib = uint8_t(ib_entries_);
    s.dirty = true;
    s.ib_ready = std::max<uint64_t>(now_ + fetch_lat_, s.wake);  // ARGO: rows waking up
    next_wake_ = std::min(next_wake_, s.ib_ready);
    fetch_rr_ = ws + 1;
    return;
  }
  fetch_scan_ = false;  // until a buffer empties again
}

// The instruction-cache access of warp slot ws's next instruction: true on
// a hit; false on a miss (the warp waits, or retries if no MSHR is free).
bool Core::icache_fetch(unsigned ws) {
  WarpSlot& s = warps_[ws];
  const func::Code* code = s.w->frames.back().code;  // the frame running now (s.code may lag behind)
  uint64_t a = code_address(code->fn, uint32_t(s.w->pc()), code->ins.size());
  uint64_t line = a & ~uint64_t(mem::kLineBytes - 1);
  ++st_.icache_access, ++act_.icache_accesses;
  if (icache_->probe(line)) return true;
  int m = icache_->pending(line);
  if (m < 0) {
    if (outq_.size() >= miss_q_ || (m = icache_->allocate(line)) < 0) {
      busy_ = true;  // retry next cycle
      return false;
    }
    ++st_.icache_miss;
    auto r = new_request(Req::ifetch, line, ws, nullptr);
    reqs_[r->ext.id].mshr = m;
    outq_.push_back(std::move(r));
  }
  icache_->waiters(m).push_back(ws);
  s.imiss = true;
  return false;
}

void Core::icache_filled(int m) {
  icache_->fill(icache_->release(m));
  for (uintptr_t ws : icache_->waiters(m)) {
    warps_[ws].imiss = false;
    warps_[ws].dirty = true;
  }
  fetch_scan_ = true;
  busy_ = true;
}

// ---- issue ---------------------------------------------------------------------

// Can warp slot ws issue its next instruction now? kIssued = yes.
Stall Core::check(unsigned ws, const StaticOp*& op) {
  WarpSlot& s = warps_[ws];
  if (!s.dirty) {
    if (s.cached != kStructural) return Stall(s.cached);
    if (!oc_free_[s.pool]) return kStructural;
    op = s.cached_op;
    return kIssued;
  }
  Stall r = check_now(ws, op);
  if (r == kScoreboard || r == kMemory || r == kBarrier || r == kStructural || (r == kIdle && !s.ib)) {
    s.dirty = false;
    s.cached = r;
    if (r == kStructural) s.cached_op = op, s.pool = uint8_t(pool_of(*op));
  }
  return r;
}

Stall Core::check_now(unsigned ws, const StaticOp*& op) {
  WarpSlot& s = warps_[ws];
  func::Warp& w = *s.w;
  if (w.done) return kIdle;
  if (w.at_barrier) return kBarrier;
  if (s.control) return kScoreboard;  // waiting for a branch / control instruction
  if (!s.ib) return kIdle;
  if (s.hold > now_) {  // RISE recovery (core_rise.cpp)
    next_wake_ = std::min(next_wake_, s.hold);
    return kIdle;
  }
  if (s.ib_ready > now_) {
    next_wake_ = std::min(next_wake_, s.ib_ready);
    return kIdle;
  }
  const func::Frame& fr = w.frames.back();
  if (fr.code != s.code || w.frames.size() != s.depth) {
    s.code = fr.code;
    s.depth = w.frames.size();
    s.ops = ops_for(fr.code);
    s.pbase = 0;
    for (size_t i = 0; i + 1 < w.frames.size(); ++i) s.pbase += w.frames[i].code->fn->regs_allocator;
  }
  int32_t pc = w.pc();
  if (size_t(pc) >= fr.code->ins.size()) {
    op = nullptr;  // issue reports "ran past the end" through the executor
    return kIssued;
  }
  op = &s.ops[pc];
  if (op->drain && (s.inflight || s.stores)) return s.stores ? kMemory : kScoreboard;
  Stall r = kIssued;
  auto scan = [&r](const std::vector<uint16_t>& regs, const std::vector<uint8_t>& sb, uint32_t base) {
    for (uint16_t v : regs) {
      uint8_t k = base + v < sb.size() ? sb[base + v] : 0;
      if (k == 2) r = kMemory;
      else if (k && r != kMemory) r = kScoreboard;
    }
  };
  scan(op->sb_phys, s.sbp, s.pbase);
  scan(op->sb_slot, s.sbs, fr.reg_base);
  if (r != kIssued) return r;
  return oc_free_[pool_of(*op)] ? kIssued : kStructural;
}

// Round robin's start: the position after the last issued warp slot in v
// (0 when it is not there).
static size_t after_last(const std::vector<unsigned>& v, int last) {
  if (last < 0) return 0;
  auto it = std::find(v.begin(), v.end(), unsigned(last));
  return it == v.end() ? 0 : size_t(it - v.begin()) + 1;
}

Stall Core::select(Scheduler& sc, Pick& p) {
  Stall worst = kIdle;
  auto rank = [](Stall s) {  // which reason a non-issuing cycle is charged to
    switch (s) {
      case kStructural: return 5;
      case kMemory: return 4;
      case kScoreboard: return 3;
      case kBarrier: return 2;
      default: return 1;
    }
  };
  const StaticOp* op = nullptr;
  auto try_ws = [&](unsigned ws) -> bool {
    Stall r = check(ws, op);
    if (r == kIssued) {
      p.ws = ws;
      p.op = op;
      return true;
    }
    if (rank(r) > rank(worst)) worst = r;
    return false;
  };
  bool done = false;
  p.fwas = false;
  // The LD/ST hook's priority CTA first (LoSCache: the predictor CTA's
  // warps while its SM predicts; sm/ldst_hook.h).
  if (ldst_ && ldst_->prioritising())
    for (size_t i = 0; !done && i < sc.order.size(); ++i)
      if (ldst_->prioritised(warps_[sc.order[i]].cta_slot)) done = try_ws(sc.order[i]);
  if (!done && rf_hook_ && rf_hook_->fast_first()) done = p.fwas = fast_first_pick(sc, p);  // FWAS
  if (!done) switch (policy_) {
    case Policy::gto:
      if (sc.last >= 0 && warps_[unsigned(sc.last)].w) done = try_ws(unsigned(sc.last));
      for (size_t i = 0; !done && i < sc.order.size(); ++i)
        if (int(sc.order[i]) != sc.last) done = try_ws(sc.order[i]);
      break;
    case Policy::lrr:
    case Policy::two_level: {
      const std::vector<unsigned>& v = policy_ == Policy::lrr ? sc.order : sc.active;
      const size_t n = v.size(), start = after_last(v, sc.last);
      for (size_t i = 0; !done && i < n; ++i) done = try_ws(v[(start + i) % n]);
      break;
    }
    case Policy::fetch_group: {  // LRR within a group; groups tried from the one with priority on
      const size_t n = sc.order.size(), start = after_last(sc.order, sc.last);
      for (unsigned k = 0; !done && k < fetch_groups_; ++k) {
        const unsigned g = (sc.group + k) % fetch_groups_;
        for (size_t i = 0; !done && i < n; ++i) {
          const unsigned ws = sc.order[(start + i) % n];
          if (ws / group_warps_ == g) done = try_ws(ws);
        }
      }
      break;
    }
  }
  return done ? kIssued : worst;
}

// fetch_group: the group with priority keeps it while one of its warps can
// still issue soon (a short wait); once each waits on memory or a barrier or
// has exited, the next group of this scheduler that has a warp takes it.
void Core::pass_group(Scheduler& sc) {
  const StaticOp* op = nullptr;
  bool has_next = false;
  unsigned next = 0, best = ~0u;
  for (unsigned ws : sc.order) {
    const unsigned g = ws / group_warps_;
    if (g == sc.group) {
      const Stall r = check(ws, op);
      if (!warps_[ws].w->done && r != kMemory && r != kBarrier) return;
    } else {
      const unsigned d = (g + fetch_groups_ - sc.group) % fetch_groups_;  // how far after the current group
      if (d < best) best = d, next = g, has_next = true;
    }
  }
  if (has_next) sc.group = next;
}

// two_level: demote active warps that finished or wait on memory or a
// barrier; the oldest pending warp takes the place.
void Core::demote(Scheduler& sc) {
  for (size_t i = 0; i < sc.active.size() && !sc.pending.empty(); ++i) {
    unsigned ws = sc.active[i];
    const StaticOp* o2 = nullptr;
    Stall r = check(ws, o2);
    if (!warps_[ws].w->done && r != kMemory && r != kBarrier) continue;
    sc.active[i] = sc.pending.front();
    sc.pending.erase(sc.pending.begin());
    sc.pending.push_back(ws);
    if (check(sc.active[i], o2) == kIssued) busy_ = true;  // issuable next cycle
  }
}

void Core::select_issue() {
  picks_.resize(nsched_);
  unsigned taken[3] = {0, 0, 0};  // collectors the earlier picks will take
  for (unsigned si = 0; si < nsched_; ++si) {
    Pick& p = picks_[si];
    p.copy = sched_[si].copy_at == now_;  // RISE: a full copy takes the slot
    if (p.copy) {
      p.r = kIssued;
      p.op = nullptr;
      continue;
    }
    p.r = sched_[si].order.empty() ? kIdle : select(sched_[si], p);
    if (p.r == kIssued && p.op) {
      const int k = pool_of(*p.op);
      --oc_free_[k];
      ++taken[k];
    }
  }
  for (int k = 0; k < 3; ++k) oc_free_[k] += taken[k];
}

// Issues this cycle's picks (selected here, or by gate_issue() before the
// operand reads) in scheduler order: none while the global smoother holds
// the SM, at most the issue gate's width.
void Core::issue() {
  if (!gate_) select_issue();
  const bool held = now_ < hold_until_;
  const unsigned width = held ? 0 : std::min(limit_.width, nsched_);
  unsigned issued = 0, deferred = 0;
  for (unsigned si = 0; si < nsched_; ++si) {
    Scheduler& sc = sched_[si];
    Stall r = picks_[si].r;
    if (picks_[si].copy) {  // RISE: the copy of last cycle's instruction (core_rise.cpp)
      ++issued;
      busy_ = true;
      ++st_.stall[kIssued];
      continue;
    }
    if (r == kIssued && issued < width) {
      const Pick& p = picks_[si];
      issue_warp(p.ws, p.op);
      sc.last = int(p.ws);
      if (p.fwas) rf_hook_->fast_issued();
      ++issued;
    } else if (r == kIssued) {
      r = held ? kHeld : kThrottled;
      ++deferred;
    }
    if (policy_ == Policy::two_level) demote(sc);
    if (policy_ == Policy::fetch_group) pass_group(sc);
    ++st_.stall[r];
    if (r == kIssued || r == kThrottled) busy_ = true;
    if (r != kIssued) last_stall_ = r;
  }
  if (held && deferred) {
    ++held_cycles_;
    next_wake_ = std::min(next_wake_, hold_until_);
  } else if (deferred) {
    gate_->deferred(deferred);
  }
}

void Core::issue_warp(unsigned ws, const StaticOp* op) {
  WarpSlot& s = warps_[ws];
  func::Warp& w = *s.w;
  func::Cta& cta = *s.cta;
  Inst* in = alloc_inst();
  func::InFlight& f = in->f;
  ex_->fetch(cta, w, f);
  if (!f.d || !op) {
    free_inst(in);
    ex_->read_operands(cta, w, f);  // throws: ran past the end of the function
    return;
  }
  s.dirty = true;
  if (trace_) trace_->push_back({now_, ws, f.pc});
  in->op = op;
  in->ws = ws;
  in->seq = s.issue_seq++;
  in->ready = 0;
  in->ldst_started = false;
  in->pending = 0;
  in->left_unit = false;
  in->gr = GrInst{};
  in->opnd_ready = in->wb_done = 0;
  ++s.inflight;
  ++inflight_total_;
  if (--s.ib == 0) fetch_scan_ = true;
  ++st_.warp_insn;
  st_.thread_insn += unsigned(__builtin_popcount(f.active));
  ++st_.issued_cls[size_t(op->cls)];
  ++act_.issued[size_t(op->cls)];
  // Register banks to read and write (a 64-bit value is two registers);
  // registers above the warp's allocation (deep .func frames) have no bank.
  in->pbase = s.pbase;
  in->sbase = w.frames.back().reg_base;
  in->scalar = inst_ && inst_->issued(*in);  // uniform vectors: detection at decode
  if (rise_ || sp_upsets_) rise_issue(in);     // RISE: a full copy next cycle, or a paired one
  in->scalar_reads = 0;
  in->nread = in->nwrite = 0;
  unsigned cap = regs_.capacity(ws);
  uint8_t mark = op->mem ? 2 : 1;
  for (uint16_t p : op->rd_phys)
    if (in->pbase + p >= cap) {
      ++st_.rf_outside_reads;
    } else if (in->nread < sizeof in->read_group) {
      if (scalar_banks_ && regs_.token(ws, in->pbase + p)) in->scalar_reads |= 1u << in->nread;
      in->read_group[in->nread++] = uint8_t(regs_.group_of(ws, in->pbase + p));
    }
  for (uint16_t p : op->wr_phys) {
    uint32_t q = in->pbase + p;
    if (q >= s.sbp.size()) s.sbp.resize(q + 1, 0);
    s.sbp[q] = mark;
    if (q >= cap) ++st_.rf_outside_writes;
    else if (in->nwrite < sizeof in->write_group) in->write_group[in->nwrite++] = uint8_t(regs_.group_of(ws, q));
  }
  for (uint16_t v : op->wr_slot) {
    uint32_t q = in->sbase + v;
    if (q >= s.sbs.size()) s.sbs.resize(q + 1, 0);
    s.sbs[q] = mark;
  }
  in->reads_left = in->nread >= 32 ? ~0u : (1u << in->nread) - 1;
  if (op->control) {
    s.control = true;
    s.ib = 0;
  } else {
    ex_->commit(cta, w, f);  // pc advance only (see core.h)
  }
  int pool = pool_of(*op);
  --oc_free_[pool];
  for (auto& c : oc_[pool])
    if (!c) {
      c = in;
      in->oc = int(&c - oc_[pool].data());
      break;
    }
}

// Issue keeps the banked registers only: the i-th of them is the i-th
// register below the warp's capacity.
bool Core::find_banked_row(const Inst* in, unsigned i, bool write, unsigned& row) const {
  const unsigned cap = regs_.capacity(in->ws);
  for (uint16_t p : write ? in->op->wr_phys : in->op->rd_phys)
    if (in->pbase + p < cap && i-- == 0) return row = regs_.row_of(in->ws, in->pbase + p), true;
  return false;
}

unsigned Core::banked_row(const Inst* in, unsigned i, bool write) const {
  unsigned row = 0;
  if (!find_banked_row(in, i, write, row))
    throw std::logic_error("sm: instruction has no banked register " + std::to_string(i));
  return row;
}

// Read slots past the banked operands are GR-Guard's re-reads of a patch
// (sm/grguard.h): the register itself was read at its home grant.
void Core::rf_read_granted(const Inst* in, unsigned i) {
  unsigned row = 0;
  if (!find_banked_row(in, i, false, row)) return;
  // As GR-Guard presents the read to its unit (GrGuard::granted).
  ReadMark mark = ReadMark::kCompilerLive;
  if (in->op->rd_dead_all >> i & 1) {
    if (in->f.active != live_lanes(in->ws))
      mark = ReadMark::kDivergent;
    else
      mark = ((rf_dead_all_ ? in->op->rd_dead_all : in->op->rd_dead) >> i & 1) ? ReadMark::kDies
                                                                                : ReadMark::kLaterOperand;
  }
  for (RfAccessObserver* o : rf_observers_) o->rf_read(in->read_group[i], row, now_, mark);
}

void Core::rf_warp_exited(unsigned ws) {
  if (!rf_exit_deaths_) return;
  const unsigned base = regs_.row_base(ws);
  for (unsigned g = 0; g < rf_.groups(); ++g)
    for (unsigned r = base; r < base + rows_per_warp_ && r < rf_.entries(); ++r)
      for (RfAccessObserver* o : rf_observers_) o->rf_exit(g, r, now_);
}

// ---- operand collection: one read per bank group per cycle (none where a write
// took the group's port under rf.shared_port) -------------------------------------

void Core::operand_read() {
  if (rf_hook_ && rf_hook_->operand_read()) return;  // the hook arbitrated (the BOT)
  if (oc_free_[0] + oc_free_[1] + oc_free_[2] == oc_total_) return;
  if (rf_shared_port_)
    group_read_ = group_write_;  // this cycle's writes took their banks' one port
  else
    std::fill(group_read_.begin(), group_read_.end(), 0);
  if (rf_hook_) rf_hook_->claim_read_ports(group_read_);
  unsigned span = rf_.span();
  for (int k = 0; k < 3; ++k)
    for (Inst* in : oc_[k]) {
      if (!in || !in->reads_left) continue;
      for (uint32_t m = in->reads_left; m; m &= m - 1) {
        unsigned i = unsigned(__builtin_ctz(m));
        unsigned g = in->read_group[i];
        if (group_read_[g]) {
          count_rf_read_conflict(g * span, span);
          continue;
        }
        group_read_[g] = 1;
        in->reads_left &= ~(1u << i);
        const uint32_t banks = in->scalar_reads >> i & 1 ? scalar_banks_ : ~0u;  // uniform: its scalar slot only
        for (unsigned b = 0; b < span; ++b)
          if (banks >> b & 1) count_rf_access(false, g * span + b);
        if (rf_hook_) rf_hook_->granted(in, i);
        rf_read_done(in, i);
      }
      // Registers read twice by one instruction (same group) were counted as
      // a conflict above: an instruction's reads of one bank serialise too.
    }
}

// ---- dispatch: collected instructions go to their unit in program order per warp --

void Core::dispatch() {
  if (oc_free_[0] + oc_free_[1] + oc_free_[2] == oc_total_) return;
  for (int k = 0; k < 3; ++k)
    for (auto& slot : oc_[k]) {
      Inst* in = slot;
      if (!in || in->reads_left || in->opnd_ready > now_ || (rf_hook_ && rf_hook_->holds(in))) continue;
      WarpSlot& s = warps_[in->ws];
      if (in->seq != s.dispatch_seq) continue;
      const StaticOp& op = *in->op;
      FuState* fu = nullptr;
      if (op.unit == Unit::mem) {
        if (ldq_.size() >= ldst_q_) continue;
      } else if (op.unit == Unit::dp) {
        if (fu_dp_.next_free > now_) continue;
        fu = &fu_dp_;
      } else {
        auto& pool = op.unit == Unit::sfu ? fu_sfu_ : fu_sp_;
        for (auto& u : pool)
          if (u.next_free <= now_) { fu = &u; break; }
        if (!fu) continue;
      }
      if (rf_hook_) rf_hook_->dispatching(in);  // GR-Guard: operands as the collector read them
      ex_->read_operands(*s.cta, *s.w, in->f);
      if (rf_hook_) rf_hook_->operands_read(in);
      if (inst_) inst_->dispatched(*in, now_);
      const uint32_t carry0 = s.w->carry;
      ex_->execute(*s.cta, *s.w, in->f);
      if ((rise_ || sp_upsets_) && op.unit == Unit::sp) rise_dispatch(in, unsigned(fu - fu_sp_.data()), carry0);
      ++s.dispatch_seq;
      slot = nullptr;
      ++oc_free_[k];
      in->oc = -1;
      busy_ = true;
      if (fu) {
        fu->next_free = now_ + (in->scalar && inst_->one_cycle() ? 1u : op.ii) * (in->rise.copy() ? 2u : 1u);
        in->ready = now_ + std::max<uint64_t>(op.latency, in->rise.copy() ? 2u * op.ii : 0u);
        wb_.push_back(in);
      } else {
        ldq_.push_back(in);
      }
    }
}

// ---- writeback: one write per bank group per cycle, oldest result first --------

void Core::writeback() {
  if (rf_hook_) return rf_hook_->writeback();  // GR-Guard's patching unit, or the BOT's grants
  std::fill(group_write_.begin(), group_write_.end(), 0);  // operand_read() reads it under rf.shared_port
  if (wb_.empty()) return;
  unsigned span = rf_.span();
  // Oldest ready first (small list: sort by ready cycle, then age).
  std::sort(wb_.begin(), wb_.end(), Core::writeback_order);
  size_t keep = 0;
  for (size_t i = 0; i < wb_.size(); ++i) {
    Inst* in = wb_[i];
    bool ok = in->ready <= now_;
    if (ok)
      for (unsigned j = 0; j < in->nwrite; ++j)
        if (group_write_[in->write_group[j]]) {
          ok = false;
          for (unsigned b = 0; b < span; ++b) ++st_.rf_write_conflicts[in->write_group[j] * span + b];
          break;
        }
    if (!ok) {
      wb_[keep++] = in;
      continue;
    }
    const uint32_t banks = in->scalar && in->f.exec == ~0u ? scalar_banks_ : ~0u;  // uniform: its scalar slot only
    for (unsigned j = 0; j < in->nwrite; ++j) {
      unsigned g = in->write_group[j];
      group_write_[g] = 1;
      for (unsigned b = 0; b < span; ++b) {
        if (!(banks >> b & 1)) continue;
        ++st_.rf_writes[g * span + b];
        ++act_.rf_writes[g * span + b];
      }
    }
    complete(in);
  }
  wb_.resize(keep);
}

// Results into the RF, scoreboard release; control instructions commit.
void Core::complete(Inst* in) {
  WarpSlot& s = warps_[in->ws];
  func::Warp& w = *s.w;
  func::Cta& cta = *s.cta;
  if (inst_) inst_->writing(*in);
  if (rise_) rise_compare(in);  // core_rise.cpp
  if (sp_upsets_)
    for (SpOcc& o : sp_occ_)
      if (o.in == in) o.in = nullptr;
  ex_->writeback(cta, w, in->f);
  if (inst_) inst_->written(*in, now_);
  if (!rf_observers_.empty())
    for (unsigned j = 0; j < in->nwrite; ++j) {
      const unsigned row = banked_row(in, j, true);
      for (RfAccessObserver* o : rf_observers_) o->rf_write(in->write_group[j], row, now_);
    }
  for (uint16_t p : in->op->wr_phys) s.sbp[in->pbase + p] = 0;
  for (uint16_t v : in->op->wr_slot) s.sbs[in->sbase + v] = 0;
  --s.inflight;
  --inflight_total_;
  busy_ = true;
  s.dirty = true;
  if (in->op->acquire) {
    l1_.invalidate_all();
    l1_.all_stale();  // fills requested before the acquire must not be installed
  }
  if (in->op->control) {
    bool was_done = w.done;
    ex_->commit(cta, w, in->f);
    if (!was_done && w.done) --active_warps_;
    s.control = false;
    s.ib = 0;
    fetch_scan_ = true;
    for (unsigned id : cta.released) warps_[cta.warps[id].rf].dirty = true;
    cta.released.clear();
  }
  unsigned cs = s.cta_slot;
  if (rf_hook_ && w.done && !s.inflight) rf_hook_->warp_exited(in->ws);  // GR-Guard: its registers are dead
  if (inst_ && w.done && !s.inflight) inst_->warp_exited(in->ws, now_);
  if (!rf_observers_.empty() && w.done && !s.inflight) rf_warp_exited(in->ws);
  free_inst(in);
  if (w.done) cta_check(cs);
}

// FWAS: ready fast instructions first, round-robin among them from the last
// issued warp, into p; false when none is ready (the policy then picks as
// usual). issue() issues it and counts it.
bool Core::fast_first_pick(Scheduler& sc, Pick& p) {
  const size_t n = sc.order.size();
  size_t start = 0;
  if (sc.last >= 0) {
    auto it = std::find(sc.order.begin(), sc.order.end(), unsigned(sc.last));
    if (it != sc.order.end()) start = size_t(it - sc.order.begin()) + 1;
  }
  for (size_t i = 0; i < n; ++i) {
    const unsigned ws = sc.order[(start + i) % n];
    const StaticOp* op = nullptr;
    if (check(ws, op) != kIssued || !op || !rf_hook_->fast(ws, *op)) continue;
    p.ws = ws;
    p.op = op;
    return true;
  }
  return false;
}

}  // namespace relgpu::sm
