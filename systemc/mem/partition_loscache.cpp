// LoSCache rules of the L2 slice (mem/loscache.h has the rules and choices).
#include <algorithm>
#include <cstring>

#include "mem/partition.h"
#include "mem/request.h"

namespace relgpu::mem {

using tlm::tlm_generic_payload;
using State = L2Cache::State;

void Partition::begin_kernel() {
  if (!los_) return;
  power_tick(l2clk_.now());
  l2_.new_kernel(launch_gating_);
  gens_.clear();
  gate_q_.clear();
}

void Partition::power_tick(uint64_t c) {
  if (c <= power_t_) return;
  on_cycles_ += uint64_t(l2_.powered_lines()) * (c - power_t_);
  power_t_ = c;
}

// Counts an access in the line's generation (stats only).
LineGen& Partition::los_access(uint64_t a, const MemExt& e) {
  LineGen& g = gens_[a];
  ++g.accesses;
  g.read |= e.kind != Kind::write;
  if (e.los_predict) {
    ++los_st_.counted;
    g.phase = true;
  } else if (e.los_pred) {
    ++los_st_.predicted;
    if (!g.pred) g.pred = e.los_pred, g.naive = e.los_naive, g.who = uint64_t(e.sm) << 32 | uint32_t(e.pc);
  }
  return g;
}

// Way v was accessed at c (stats only): the time since its previous access
// was live, or idle if this is its first access of the window.
void Partition::los_used(int v, uint64_t c) {
  WayUse& u = use_[size_t(v)];
  (u.fresh ? powered_.idle : powered_.live) += c - u.last;
  u = {c, false};
}

// Way v's time since its last access, to c, goes to the part of `t` that
// says why it was still powered (its open generation decides).
void Partition::los_charge_tail(PoweredTime& t, int v, uint64_t c) const {
  const WayUse& u = use_[size_t(v)];
  auto it = gens_.find(l2_.line(v).addr);
  t.tail(u.fresh, it == gens_.end() ? nullptr : &it->second) += c - std::min(c, u.last);
}

// Way v powers off at c, before its generation closes; a gate after an
// accessed line's predicted last access charges the wait for the gate.
void Partition::los_powered_off(int v, uint64_t c, bool gating) {
  const WayUse& u = use_[size_t(v)];
  if (gating && !u.fresh) powered_.gating += c - std::min(c, u.last);
  else los_charge_tail(powered_, v, c);
}

// Way v is about to be retagged: its generation ends; an unpowered way wakes.
void Partition::los_evicting(int v, uint64_t c) {
  const L2Cache::Line& l = l2_.line(v);
  if (L2Cache::powered(l.st)) los_powered_off(v, c, false);
  if (l.st == State::valid || l.st == State::gated) {
    auto it = gens_.find(l.addr);
    if (it != gens_.end()) {
      close_gen(it->second, los_st_, pc_counts_);
      gens_.erase(it);
    }
  }
  if (!L2Cache::powered(l.st)) {
    ++los_st_.wakeups;
    energy_.count(power::L2Energy::wake);
  }
}

// Way v was just allocated for e's line (count reset by the replacement).
void Partition::los_allocated(int v, const MemExt& e, uint64_t c) {
  L2Cache::Line& l = l2_.line(v);
  l.count = 1;
  use_[size_t(v)] = {c, false};
  los_access(l.addr, e);
  if (!e.los_predict && e.los_pred && l.count >= e.los_pred) l.gate_pending = true;  // pred 1: atomics, or no bypass
}

void Partition::los_gate(int line, uint64_t c) {
  L2Cache::Line& l = l2_.line(line);
  uint64_t a = l.addr;
  los_powered_off(line, c, true);
  if (l2_.gate(line)) {  // dirty: written back before its data array powers off
    ++los_st_.gate_writebacks;
    energy_.count(power::L2Energy::data_read);
    to_dram_.push_back({c + hit_lat_, map_.local(a), 0, true});
    ++to_dram_writes_;
  }
  ++los_st_.gatings;
}

// Lines whose gating waited for a fill or for DRAM write room.
void Partition::los_gate_pending(uint64_t c) {
  size_t keep = 0;
  for (int i : gate_q_) {
    L2Cache::Line& l = l2_.line(i);
    if (l.st != State::valid || !l.gate_pending) continue;  // evicted or gated since
    if (l.dirty && !dram_room(true)) {
      gate_q_[keep++] = i;
      continue;
    }
    los_gate(i, c);
  }
  gate_q_.resize(keep);
}

// A count query reads the line's count from the tag array (0 if absent).
bool Partition::los_query(tlm_generic_payload& gp, MemExt& e, int i, uint64_t c) {
  e.los_count = uint8_t(i >= 0 ? l2_.line(i).count : 0);
  ++los_st_.queries;
  energy_.count(power::L2Energy::tag);
  respond(gp, c + hit_lat_);
  return true;
}

// A tag hit on a gated line: the line was gated too early. Wake it, refetch
// its data and flag the response so the SM raises the PC's threshold.
bool Partition::los_refetch(tlm_generic_payload& gp, MemExt& e, uint64_t a, int i, uint64_t c, KindStats& ks) {
  if (free_mshr_.empty() || !dram_room(false)) return false;
  ++ks.accesses, ++ks.misses;
  ++los_st_.gated_hits, ++los_st_.wakeups;
  if (!e.los_predict && e.los_entry >= 0) e.los_mispredict = true, ++los_st_.mispredicts;
  energy_.count(power::L2Energy::wake);
  l2_.wake(i);
  use_[size_t(i)] = {c, false};
  start_fetch(gp, a, i, c);
  return true;
}

// pred == 1 and no tag: served from DRAM without allocating a line.
bool Partition::los_bypass(tlm_generic_payload& gp, MemExt& e, uint64_t a, uint64_t c, KindStats& ks) {
  if (e.kind == Kind::read) {
    if (free_mshr_.empty() || !dram_room(false)) return false;
    l2_.read_memory(a, gp.get_data_ptr());  // no tag: DRAM holds the newest bytes
    start_fetch(gp, a, -1, c);
    ++los_st_.bypass_reads;
  } else {
    if (!dram_room(true)) return false;
    uint8_t buf[kLineBytes];
    l2_.read_memory(a, buf);
    const uint8_t* be = gp.get_byte_enable_ptr();
    const uint8_t* d = gp.get_data_ptr();
    unsigned bl = gp.get_byte_enable_length();
    for (unsigned b = 0; b < kLineBytes; ++b)
      if (!be || !bl || be[b % bl] == TLM_BYTE_ENABLED) buf[b] = d[b];
    l2_.write_memory(a, buf);
    to_dram_.push_back({c + hit_lat_, map_.local(a), 0, true});
    ++to_dram_writes_;
    respond(gp, c + hit_lat_);
    ++los_st_.bypass_writes;
  }
  ++ks.accesses, ++ks.misses;
  energy_.count(power::L2Energy::tag);
  los_access(a, e).bypassed = true;
  return true;
}

config::json Partition::los_stats(uint64_t now) const {
  LoscacheL2Stats s = los_st_;
  PcCounts pcs = pc_counts_;
  for (const auto& [addr, g] : gens_) close_gen(g, s, pcs);  // open generations end with the kernel
  s.exact_pc_mode = pc_mode_hits(pcs);
  uint64_t lines = uint64_t(l2_.sets()) * l2_.ways();
  uint64_t on = on_cycles_ + uint64_t(l2_.powered_lines()) * (now - std::min(now, power_t_));
  PoweredTime t = powered_;  // lines powered now: their time since the last access
  for (size_t v = 0; v < use_.size(); ++v)
    if (L2Cache::powered(l2_.line(int(v)).st)) los_charge_tail(t, int(v), now);
  return loscache_l2_json(s, lines * (now - stats_c0_), on, t);
}

}  // namespace relgpu::mem
