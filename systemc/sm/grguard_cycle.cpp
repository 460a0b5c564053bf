// GR-Guard's per-cycle work: the writeback stage with the patching unit in
// it (see grguard.h for the timing), and its stats.
#include <algorithm>
#include <cstdio>
#include <string>

#include "common/error.h"
#include "sm/core.h"
#include "sm/grguard.h"

namespace relgpu::sm {

using blocks::mask;

namespace {
uint32_t field(uint64_t v, unsigned g, unsigned w) { return uint32_t((v >> (g * w)) & mask(w)); }
uint16_t all_slots(const Inst* in) { return uint16_t((1u << in->nwrite) - 1); }
}  // namespace

// Picks this cycle's writes as Core::writeback does (oldest ready result
// first, all of its remaining registers' group ports free), and the write
// ports of kind-2 patch parts (they take any free target port).
// Stuck writes (retried, none accepted since) take turns: one of them per
// cycle is presented, in rotation, and the others leave their group ports to
// other results. Why (our choice, SM side; the unit is unchanged): the unit
// makes one selection per cycle, for the lowest write port that needs one,
// and if that one finds no patch every port needing one retries; a write
// that cannot be patched yet would otherwise block, forever, the selections
// of the writes beside it that could be, and with them the warps whose
// progress frees patches. With one stuck write (the common case after a
// lost one-selection race) nothing changes: it is presented every cycle.
void GrGuard::present_writes(blocks::PatchingUnitIn& pin) {
  Core& c = c_;
  std::vector<Inst*>& wb = c.writeback_queue();
  std::vector<uint8_t>& ports = c.write_ports();
  const unsigned span = span_;
  unsigned nstuck = 0;
  for (const Inst* in : wb)
    if (in->ready <= c.now() && in->gr.stuck) {
      if (c.now() - in->gr.stuck_since > stall_limit_) stop(in);
      ++nstuck;
    }
  const unsigned chosen = nstuck > 1 ? unsigned(turn_++ % nstuck) : 0;
  unsigned k_stuck = 0;
  for (Inst* in : wb) {
    if (in->ready > c.now()) continue;
    GrInst& s = in->gr;
    const uint16_t left = uint16_t(all_slots(in) & ~s.wr_done);
    if (s.stuck && left && k_stuck++ != chosen) {
      ++st_.held;
      continue;
    }
    if (!left) {
      for (unsigned k = 0; k < s.nx;) {
        unsigned g = s.xg[k];
        if (ports[g]) {
          ++k;
          continue;
        }
        ports[g] = 1;
        for (unsigned b = 0; b < span; ++b) c.count_rf_access(true, g * span + b);
        st_.patch_wr_entries += span;  // the arbitrator grants the whole group
        s.xg[k] = s.xg[--s.nx];
      }
      continue;
    }
    bool ok = true;
    for (uint16_t m = left; m; m &= m - 1) {
      unsigned g = in->write_group[__builtin_ctz(m)];
      if (ports[g]) {
        ok = false;
        for (unsigned b = 0; b < span; ++b) c.count_rf_write_conflict(g * span + b);
        break;
      }
    }
    if (!ok) continue;
    for (uint16_t m = left; m; m &= m - 1) {
      unsigned j = unsigned(__builtin_ctz(m)), g = in->write_group[j];
      // Two registers of one instruction in one group: one write port, so
      // the second goes next cycle (our choice; without GR-Guard both go).
      if (pin.wr_valid_i >> g & 1) continue;
      ports[g] = 1;
      uint32_t row = urow(c.regs().row_of(in->ws, in->pbase + in->op->wr_phys[j]));
      uint8_t& doomed = doomed_[size_t(g) * p_.rows + row];
      if (doomed == kExitDeath) ++st_.exit_deaths_dropped;  // see warp_exited
      doomed = kLive;
      wr_[g] = Port{in, uint8_t(j), row, false, in->f.exec != c_.live_lanes(in->ws)};
      pin.wr_valid_i |= uint64_t(1) << g;
      pin.wr_row_i |= uint64_t(row) << (g * row_w_);
      if (wr_[g].div) pin.wr_div_i |= uint64_t(1) << g;
    }
  }
}

// A write found no patch for grguard.stall_limit cycles: the run stops.
void GrGuard::stop(const Inst* in) const {
  throw InputError("GR-Guard on SM " + std::to_string(c_.id()) + ": a register write found no patch (no dead " +
                   "WRG good in its faulty entries, L1D spill way full) for " +
                   std::to_string(c_.now() - in->gr.stuck_since) + " cycles: this chip cannot run at rf.vdd=" +
                   std::to_string(vdd_) + " (rf.cell_failure_rate=" + std::to_string(rate_) +
                   ") with GR-Guard; raise rf.vdd or lower rf.cell_failure_rate (grguard.stall_limit=" +
                   std::to_string(stall_limit_) + "); " + census(in->gr.stuck_wrg));
}

// Why no patch was found for WRG w, from the loaded Faulty map and the
// SM's mirror of the maps (written WRGs, patched WRGs and their targets).
std::string GrGuard::census(uint32_t w) const {
  std::vector<uint8_t> occupied(p_.num_wrg(), 0);
  for (uint32_t v = 0; v < p_.num_wrg(); ++v)
    if (patched_[v] && place_[v].kind && place_[v].kind != 3) occupied[place_[v].tgt] = 1;
  const uint32_t need = !occupied[w] ? faulty_[w] : p_.occupied_entries ? faulty_[w] | held_[w] : uint32_t(mask(span_));
  uint64_t faulty = 0, good = 0, live = 0, occ = 0, cand = 0, queued = 0;
  for (uint32_t v = 0; v < p_.num_wrg(); ++v) {
    faulty += unsigned(__builtin_popcount(faulty_[v]));
    good += !faulty_[v];
    live += live_[v];
    occ += occupied[v];
    cand += !live_[v] && !occupied[v] && !(faulty_[v] & need);
    queued += doomed_[v];
  }
  return "WRG " + std::to_string(w) + " needs entries 0x" + [&] {
    char b[16];
    std::snprintf(b, sizeof b, "%x", need);
    return std::string(b);
  }() + "; SM census: " + std::to_string(faulty) + "/" + std::to_string(uint64_t(p_.num_wrg()) * span_) +
         " faulty entries, " + std::to_string(good) + "/" + std::to_string(p_.num_wrg()) + " all-good WRGs, " +
         std::to_string(live) + " written (not dead), " + std::to_string(occ) + " occupied as patches, " +
         std::to_string(cand) + " candidates, " + std::to_string(queued) + " exit deaths queued";
}

// One access through the unit: its mix class, kind and moved entries.
void GrGuard::count_access(bool write, unsigned k, uint32_t m, uint32_t wrg) {
  const unsigned c = mix(k, m, wrg), n = unsigned(__builtin_popcount(m));
  ++(write ? st_.wr : st_.rd)[c];
  ++(write ? st_.wr_kind : st_.rd_kind)[k];
  st_.entries[kNormal] += span_ - n;  // per entry: the moved ones take the access's class
  if (c != kNormal) st_.entries[c] += n;
  uint64_t& moved = k == 3 ? (write ? st_.spilled_wr : st_.spilled_rd) : (write ? st_.moved_wr : st_.moved_rd);
  moved += unsigned(__builtin_popcount(m));
}

void GrGuard::apply_reads(const blocks::PatchingUnitIn& pin, const blocks::PatchingUnitOut& out) {
  const unsigned GB = span_;
  for (unsigned g = 0; g < groups_; ++g) {
    Port& p = rd_[g];
    if (!p.in) continue;
    Inst* in = p.in;
    const uint32_t w = g * p_.rows + p.row;
    const unsigned k = field(out.rd_kind_o, g, 2);
    const uint32_t m = field(out.rd_mask_o, g, GB), tgt = field(out.rd_tgt_o, g, tgt_w_);
    count_access(false, k, m, w);
    // The patch entries: kind 1 are read on the port claimed for this cycle
    // (nothing can write them before: the target's Patch bit is still set).
    if (k == 1) {
      if (patch_latency_) in->gr.hold = std::max(in->gr.hold, c_.now() + 1);
      if (patch_port_) claim_rd_ |= uint64_t(1) << g;
      count_patch(false, g, m);
      copy_entries(copy_of(in, p.slot), patch_words(tgt), m);
    } else if (k == 2) {
      unsigned n = in->nread;
      if (n < sizeof in->read_group && n < 32) {
        in->read_group[n] = uint8_t(tgt / p_.rows);
        in->reads_left |= 1u << n;
        in->gr.patch_reads |= 1u << n;
        xread(in, n) = XRead{p.slot, m, tgt};
        ++in->nread;
      } else {  // no read slot left (never at PTX operand counts): a same-group delay instead
        in->gr.hold = std::max(in->gr.hold, c_.now() + 1);
        count_patch(false, tgt / p_.rows, m);
        copy_entries(copy_of(in, p.slot), patch_words(tgt), m);
      }
    } else if (k == 3) {
      spillq_.push_back({in, false, p.slot, m, tgt});
      ++in->gr.spill_reads;
    }
    // Mirror of the block's release on death (same inputs, same rule).
    bool same_write = (pin.wr_valid_i >> g & 1) && field(pin.wr_row_i, g, row_w_) == p.row;
    if (p.dead && !p.div && !same_write) patched_[w] = 0, live_[w] = 0, set_place(w, Place{});
    p = Port{};
  }
}

void GrGuard::apply_writes(const blocks::PatchingUnitOut& out) {
  Core& c = c_;
  const unsigned GB = span_;
  bool stalled = false;
  for (unsigned g = 0; g < groups_; ++g) {
    Port& p = wr_[g];
    if (!p.in) continue;
    Inst* in = p.in;
    GrInst& s = in->gr;
    if (out.wr_retry_o >> g & 1) {
      ++st_.retries;
      stalled = true;
      if (!s.stuck) s.stuck = true, s.stuck_since = c.now();
      if (s.retried != c.now()) s.stuck_wrg = g * p_.rows + p.row;  // the lowest retried port: it blocks the others
      s.retried = c.now();
      p = Port{};
      continue;
    }
    s.stuck = false;
    s.wr_done |= uint16_t(1u << p.slot);
    const uint32_t w = g * p_.rows + p.row;
    const unsigned k = field(out.wr_kind_o, g, 2);
    const uint32_t m = field(out.wr_mask_o, g, GB), tgt = field(out.wr_tgt_o, g, tgt_w_);
    count_access(true, k, m, w);
    for (unsigned b = 0; b < span_; ++b) c.count_rf_access(true, g * span_ + b);
    // A divergent write to a patched WRG keeps its patch; any other
    // redirected write got a new one from the selection.
    if (k && p.div && patched_[w]) ++st_.kept;
    else if (k) ++st_.selections;
    patched_[w] = k != 0;
    live_[w] = 1;
    set_place(w, Place{uint8_t(k), m, tgt});
    if (k == 1) {
      if (patch_latency_) s.wr_hold = std::max(s.wr_hold, c.now() + 1);
      if (patch_port_) claim_wr_ |= uint64_t(1) << g;
      count_patch(true, g, m);
    } else if (k == 2) {
      s.xg[s.nx++] = uint8_t(tgt / p_.rows);
    } else if (k == 3) {
      spillq_.push_back({in, true, 0, m, tgt});
      ++s.spill_writes;
    }
    p = Port{};
  }
  if (stalled) ++st_.stall_cycles;
}

// Death notifications of exited warps' WRGs (warp_exited) on the read ports
// that carry no operand read this cycle, oldest first per group. No write
// presented this cycle is to a queued WRG (present_writes dropped those), so
// the unit's same-cycle-write exception never applies to them.
void GrGuard::present_deaths(blocks::PatchingUnitIn& pin) {
  for (unsigned g = 0; g < groups_; ++g) {
    if (rd_[g].in) continue;
    std::deque<uint32_t>& q = deathq_[g];
    while (!q.empty() && !doomed_[size_t(g) * p_.rows + q.front()]) q.pop_front();
    if (q.empty()) continue;
    const uint32_t row = q.front(), w = g * p_.rows + row;
    q.pop_front();
    ++(doomed_[w] == kDeferredDeath ? st_.deferred_deaths : st_.exit_deaths);
    doomed_[w] = live_[w] = patched_[w] = 0;
    set_place(w, Place{});
    pin.rd_valid_i |= uint64_t(1) << g;
    pin.rd_row_i |= uint64_t(row) << (g * row_w_);
    pin.rd_dead_i |= uint64_t(1) << g;
  }
}

// One spill access per cycle on a free L1 port. A spill write also waits
// until the reserved way is out of cache use (spill_active_o).
void GrGuard::serve_spill() {
  if (spillq_.empty() || !l1_port_free()) return;
  Spill s = spillq_.front();
  if (s.write && !c_.l1d().last_way_reserved()) return;
  spillq_.pop_front();
  ++st_.l1_spill;
  const uint64_t done = c_.now() + c_.l1_hit_cycles();
  if (s.write) {
    --s.in->gr.spill_writes;
    s.in->gr.wr_hold = std::max(s.in->gr.wr_hold, done);
  } else {  // the line is read now (the value is stored at the write's completion)
    --s.in->gr.spill_reads;
    s.in->gr.hold = std::max(s.in->gr.hold, done);
    copy_entries(copy_of(s.in, s.slot), spill_data(s.line), s.mask);
  }
}

void GrGuard::writeback() {
  Core& c = c_;
  std::vector<Inst*>& wb = c.writeback_queue();
  std::vector<uint8_t>& ports = c.write_ports();
  const uint64_t now = c.now();
  std::fill(ports.begin(), ports.end(), 0);
  for (uint64_t m = claim_wr_; m; m &= m - 1) ports[unsigned(__builtin_ctzll(m))] = 1;
  claim_wr_ = 0;
  std::sort(wb.begin(), wb.end(), Core::writeback_order);
  blocks::PatchingUnitIn pin{};
  present_writes(pin);
  for (unsigned g = 0; g < groups_; ++g) {
    Port& p = rd_[g];
    if (!p.in) continue;
    if (p.dead && !p.div && defer_death(p)) p.dead = false, p.in->gr.deaths |= 1u << p.slot;  // see grguard.h
    pin.rd_valid_i |= uint64_t(1) << g;
    pin.rd_row_i |= uint64_t(p.row) << (g * row_w_);
    if (p.dead) pin.rd_dead_i |= uint64_t(1) << g;
    if (p.div) pin.rd_div_i |= uint64_t(1) << g;
  }
  st_.lookups += unsigned(__builtin_popcountll(pin.rd_valid_i)) + unsigned(__builtin_popcountll(pin.wr_valid_i));
  present_deaths(pin);  // after the lookup count: deaths are counted as map updates
  const blocks::PatchingUnitOut out = pu_->cycle(pin);
  if (spill_on_) st_.spill_way_cycles += now - last_now_;
  last_now_ = now;
  spill_on_ = out.spill_active_o;
  if (out.spill_active_o != c.l1d().last_way_reserved()) c.l1d().reserve_last_way(out.spill_active_o);
  apply_reads(pin, out);
  apply_writes(out);
  serve_spill();

  size_t keep = 0;
  for (size_t i = 0; i < wb.size(); ++i) {
    Inst* in = wb[i];
    const GrInst& s = in->gr;
    bool done = in->ready <= now && s.wr_done == all_slots(in) && !s.nx && !s.spill_writes && s.wr_hold <= now;
    if (!done) {
      wb[keep++] = in;
      continue;
    }
    c.retire(in);
  }
  wb.resize(keep);
}

// Energy: the unit's lookup comes before the bank access (+0.0027 ns,
// §6.3.3), so a moved entry is accessed only where it lives: a patched
// access costs the entries of a normal one, some of them in the patch WRG
// (or in the L1D). The SM's per-bank counts are the arbitrator's grants.
void GrGuard::add_activity(power::RfActivity& a) const {
  uint64_t reads = 0, writes = 0;
  for (unsigned i = 0; i < 4; ++i) reads += st_.rd[i], writes += st_.wr[i];
  a.read_entries += reads * span_ - st_.moved_rd - st_.spilled_rd;
  a.write_entries += writes * span_ - st_.moved_wr - st_.spilled_wr;
  a.patch_read_entries += st_.moved_rd;
  a.patch_write_entries += st_.moved_wr;
  a.pu_lookups += st_.lookups;
  a.pu_updates += st_.selections + st_.exit_deaths + st_.deferred_deaths;  // a death writes Dead/Patch/Index valid
  a.l1d_spill_accesses += st_.l1_spill;
}

config::json GrGuard::stats() const {
  static const char* const kMix[] = {"normal", "normal_patch", "patch_occupied", "spill"};
  static const char* const kKind[] = {"normal", "same_group", "cross_group", "spill"};
  config::json j = config::json::object();
  for (unsigned i = 0; i < 4; ++i) {
    j["accesses"][kMix[i]] = st_.rd[i] + st_.wr[i];
    j["entry_accesses"][kMix[i]] = st_.entries[i];
    j["reads"][kMix[i]] = st_.rd[i];
    j["writes"][kMix[i]] = st_.wr[i];
    j["read_kinds"][kKind[i]] = st_.rd_kind[i];
    j["write_kinds"][kKind[i]] = st_.wr_kind[i];
  }
  j["patch_selections"] = st_.selections;
  j["kept_patches"] = st_.kept;
  j["selection_failures"] = st_.retries;
  j["write_stall_cycles"] = st_.stall_cycles;
  j["spill_way_active_cycles"] = st_.spill_way_cycles;
  j["l1d_spill_accesses"] = st_.l1_spill;
  j["patch_read_entries"] = st_.patch_rd_entries;
  j["patch_write_entries"] = st_.patch_wr_entries;
  j["moved_entries"] = st_.moved_rd + st_.moved_wr;
  j["spilled_entries"] = st_.spilled_rd + st_.spilled_wr;
  j["exit_deaths"] = st_.exit_deaths;
  j["exit_deaths_dropped"] = st_.exit_deaths_dropped;
  j["deferred_deaths"] = st_.deferred_deaths;
  j["stuck_write_holds"] = st_.held;
  j["max_spill_lines"] = st_.max_spill_lines;  // "max_": the maximum over SMs and launches (gpu/stats.cpp)
  return j;
}

}  // namespace relgpu::sm
