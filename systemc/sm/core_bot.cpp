// The register-file arbitration with the bank organization table in the
// path (sm/bot_unit.h): the arbiter works on virtual banks, every granted
// access is a lookup of the block, and a slow sub-bank access takes a second
// cycle. Without the BOT, core_pipe.cpp's operand_read()/writeback() run.
#include <algorithm>

#include "sm/core.h"

namespace relgpu::sm {

// After responses(), before writeback(): decides this cycle's RF writes and
// reads, clocks the block once with them, and keeps the grants for the two
// stages. Writes go first (oldest ready first), then collector reads.
void Core::bot_arbitrate() {
  bot_reads_.clear();
  bot_writes_.clear();
  // Nothing to write, read or clock: the block is not clocked (exact, see
  // BotUnit::cycle), and the next clocked cycle knows the gap.
  if (wb_.empty() && oc_free_[0] + oc_free_[1] + oc_free_[2] == oc_total_ && !bot_->wants_cycle()) return;
  bot_->start(now_);
  std::fill(group_write_.begin(), group_write_.end(), 0);  // per vb here
  std::fill(group_read_.begin(), group_read_.end(), 0);
  std::sort(wb_.begin(), wb_.end(), Core::writeback_order);
  for (Inst* in : wb_) {
    if (in->ready > now_ || in->bot_wb) continue;
    const unsigned cs = warps_[in->ws].cta_slot;
    uint8_t vbs[sizeof in->write_group];
    bool ok = true;
    for (unsigned j = 0; j < in->nwrite && ok; ++j) {
      const BotUnit::Tr& t = bot_->tr(cs, in->write_group[j]);
      if (!t.known) {
        bot_->count_wait(false);
        ok = false;
      } else if (group_write_[t.vb] || bot_->held(t.vb)) {
        ++st_.rf_write_conflicts[t.vb];
        ok = false;
      }
      vbs[j] = t.vb;
    }
    if (!ok) continue;
    // All of an instruction's writes in one cycle, or none.
    if (bot_->ports_left() < in->nwrite) {
      bot_->count_wait(true);
      continue;
    }
    unsigned first = 0;
    for (unsigned j = 0; j < in->nwrite; ++j) {
      group_write_[vbs[j]] = 1;
      const unsigned g = bot_->grant(cs, in->write_group[j], regs_.slots(in->ws, in->f.exec));
      if (j == 0) first = g;
      ++st_.rf_writes[vbs[j]];
      ++act_.rf_writes[vbs[j]];
    }
    in->bot_wb = now_;  // fast; a busy grant makes it now_ + 1 below
    bot_writes_.push_back({in, first});
  }
  for (int k = 0; k < 3; ++k)
    for (Inst* in : oc_[k]) {
      if (!in || !in->reads_left) continue;
      const unsigned cs = warps_[in->ws].cta_slot;
      for (uint32_t m = in->reads_left; m; m &= m - 1) {
        const unsigned i = unsigned(__builtin_ctz(m));
        const BotUnit::Tr& t = bot_->tr(cs, in->read_group[i]);
        if (!t.known) {
          bot_->count_wait(false);
          continue;
        }
        if (group_read_[t.vb] || bot_->held(t.vb)) {
          ++st_.rf_conflicts[t.vb];
          ++st_.rf_conflict_reads;
          ++act_.rf_bank_conflicts;
          continue;
        }
        if (!bot_->port_free()) {
          bot_->count_wait(true);
          continue;
        }
        group_read_[t.vb] = 1;
        bot_reads_.push_back({in, uint8_t(i), t.vb, bot_->grant(cs, in->read_group[i], regs_.slots(in->ws, in->f.active))});
      }
    }
  bot_->cycle(now_);
  for (auto& [in, first] : bot_writes_)
    for (unsigned j = 0; j < in->nwrite; ++j) {
      bool slow = bot_->busy(first + j);
      if (bot_->vl_rf()) {
        const BotUnit::Tr& t = bot_->tr(warps_[in->ws].cta_slot, in->write_group[j]);
        slow |= bot_->vl_rf_slow(t.vb, banked_row(in, j, true), in->f.exec);
      }
      if (slow) in->bot_wb = now_ + 1;
    }
  for (BotRead& r : bot_reads_) {
    r.slow = bot_->busy(r.grant);
    if (bot_->vl_rf()) r.slow |= bot_->vl_rf_slow(r.vb, banked_row(r.in, r.slot, false), r.in->f.active);
  }
}

// Granted writes complete in their cycle, slow ones one cycle later.
void Core::bot_writeback() {
  size_t keep = 0;
  for (size_t i = 0; i < wb_.size(); ++i) {
    Inst* in = wb_[i];
    if (!in->bot_wb || in->bot_wb > now_) {
      wb_[keep++] = in;
      continue;
    }
    complete(in);
  }
  wb_.resize(keep);
}

// Granted reads arrive at the collector; a slow one a cycle later.
void Core::bot_operand_read() {
  for (const BotRead& r : bot_reads_) {
    r.in->reads_left &= ~(1u << r.slot);
    ++st_.rf_reads[r.vb];
    ++act_.rf_reads[r.vb];
    if (r.slow) r.in->opnd_ready = std::max(r.in->opnd_ready, now_ + 2);
    if (!rf_observers_.empty()) rf_read_granted(r.in, r.slot);  // by logical bank
  }
  bot_reads_.clear();
}

// FWAS (spec 002 §4): an instruction is fast when every register it reads
// and writes sits in a fast or hybrid vb of its warp's CTA slot.
bool Core::bot_fast(unsigned ws, const StaticOp& op) const {
  const WarpSlot& s = warps_[ws];
  const unsigned cap = regs_.capacity(ws);
  for (const auto* regs : {&op.rd_phys, &op.wr_phys})
    for (uint16_t p : *regs)
      if (s.pbase + p < cap && !bot_->fast(s.cta_slot, regs_.group_of(ws, s.pbase + p))) return false;
  return true;
}

// Ready fast instructions first, round-robin among them from the last
// issued warp, into p; false when none is ready (the policy then picks as
// usual). Core::issue() issues it and counts it.
bool Core::bot_fwas_pick(Scheduler& sc, Pick& p) {
  const size_t n = sc.order.size();
  size_t start = 0;
  if (sc.last >= 0) {
    auto it = std::find(sc.order.begin(), sc.order.end(), unsigned(sc.last));
    if (it != sc.order.end()) start = size_t(it - sc.order.begin()) + 1;
  }
  for (size_t i = 0; i < n; ++i) {
    const unsigned ws = sc.order[(start + i) % n];
    const StaticOp* op = nullptr;
    if (check(ws, op) != kIssued || !op || !bot_fast(ws, *op)) continue;
    p.ws = ws;
    p.op = op;
    return true;
  }
  return false;
}

}  // namespace relgpu::sm
