#include "sm/bot_path.h"

#include <algorithm>

#include "sm/core.h"

namespace relgpu::sm {

// Writes go first (oldest ready first), then collector reads (not of a vb
// written this cycle under rf.shared_port).
void BotPath::arbitrate() {
  reads_.clear();
  writes_.clear();
  std::vector<Inst*>& wb = c_.writeback_queue();
  // Nothing to write, read or clock: the block is not clocked (exact, see
  // BotUnit::cycle), and the next clocked cycle knows the gap.
  if (wb.empty() && !c_.collecting() && !bot_.wants_cycle()) return;
  const uint64_t now = c_.now();
  bot_.start(now);
  std::vector<uint8_t>& wports = c_.write_ports();  // per vb here
  std::vector<uint8_t>& rports = c_.read_ports();
  std::fill(wports.begin(), wports.end(), 0);
  std::fill(rports.begin(), rports.end(), 0);
  std::sort(wb.begin(), wb.end(), Core::writeback_order);
  SmRegs& regs = c_.regs();
  for (Inst* in : wb) {
    if (in->ready > now || in->wb_done) continue;
    const unsigned cs = c_.cta_slot(in->ws);
    uint8_t vbs[sizeof in->write_group];
    bool ok = true;
    for (unsigned j = 0; j < in->nwrite && ok; ++j) {
      const BotUnit::Tr& t = bot_.tr(cs, in->write_group[j]);
      if (!t.known) {
        bot_.count_wait(false);
        ok = false;
      } else if (wports[t.vb] || bot_.held(t.vb)) {
        c_.count_rf_write_conflict(t.vb);
        ok = false;
      }
      vbs[j] = t.vb;
    }
    if (!ok) continue;
    // All of an instruction's writes in one cycle, or none.
    if (bot_.ports_left() < in->nwrite) {
      bot_.count_wait(true);
      continue;
    }
    unsigned first = 0;
    for (unsigned j = 0; j < in->nwrite; ++j) {
      wports[vbs[j]] = 1;
      const unsigned g = bot_.grant(cs, in->write_group[j], regs.slots(in->ws, in->f.exec));
      if (j == 0) first = g;
      c_.count_rf_access(true, vbs[j]);
    }
    in->wb_done = now;  // fast; a busy grant makes it now + 1 below
    writes_.push_back({in, first});
  }
  const bool shared = c_.rf_shared_port();  // a vb written this cycle reads nothing
  for (unsigned k = 0; k < 3; ++k)
    for (Inst* in : c_.collectors(k)) {
      if (!in || !in->reads_left) continue;
      const unsigned cs = c_.cta_slot(in->ws);
      for (uint32_t m = in->reads_left; m; m &= m - 1) {
        const unsigned i = unsigned(__builtin_ctz(m));
        const BotUnit::Tr& t = bot_.tr(cs, in->read_group[i]);
        if (!t.known) {
          bot_.count_wait(false);
          continue;
        }
        if (rports[t.vb] || (shared && wports[t.vb]) || bot_.held(t.vb)) {
          c_.count_rf_read_conflict(t.vb, 1);
          continue;
        }
        if (!bot_.port_free()) {
          bot_.count_wait(true);
          continue;
        }
        rports[t.vb] = 1;
        reads_.push_back({in, uint8_t(i), t.vb, bot_.grant(cs, in->read_group[i], regs.slots(in->ws, in->f.active))});
      }
    }
  bot_.cycle(now);
  for (auto& [in, first] : writes_)
    for (unsigned j = 0; j < in->nwrite; ++j) {
      bool slow = bot_.busy(first + j);
      if (bot_.vl_rf()) {
        const BotUnit::Tr& t = bot_.tr(c_.cta_slot(in->ws), in->write_group[j]);
        slow |= bot_.vl_rf_slow(t.vb, c_.banked_row(in, j, true), in->f.exec);
      }
      if (slow) in->wb_done = now + 1;
    }
  for (Read& r : reads_) {
    r.slow = bot_.busy(r.grant);
    if (bot_.vl_rf()) r.slow |= bot_.vl_rf_slow(r.vb, c_.banked_row(r.in, r.slot, false), r.in->f.active);
  }
}

void BotPath::writeback() {
  std::vector<Inst*>& wb = c_.writeback_queue();
  const uint64_t now = c_.now();
  size_t keep = 0;
  for (size_t i = 0; i < wb.size(); ++i) {
    Inst* in = wb[i];
    if (!in->wb_done || in->wb_done > now) {
      wb[keep++] = in;
      continue;
    }
    c_.retire(in);
  }
  wb.resize(keep);
}

bool BotPath::operand_read() {
  const uint64_t now = c_.now();
  for (const Read& r : reads_) {
    r.in->reads_left &= ~(1u << r.slot);
    c_.count_rf_access(false, r.vb);
    if (r.slow) r.in->opnd_ready = std::max(r.in->opnd_ready, now + 2);
    c_.rf_read_done(r.in, r.slot);  // by logical bank
  }
  reads_.clear();
  return true;
}

bool BotPath::fast(unsigned ws, const StaticOp& op) const {
  const SmRegs& regs = c_.regs();
  const unsigned cap = regs.capacity(ws), cs = c_.cta_slot(ws), pbase = c_.warp_pbase(ws);
  for (const auto* list : {&op.rd_phys, &op.wr_phys})
    for (uint16_t p : *list)
      if (pbase + p < cap && !bot_.fast(cs, regs.group_of(ws, pbase + p))) return false;
  return true;
}

}  // namespace relgpu::sm
