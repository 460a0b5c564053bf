// The register-file arbitration with the bank organization table in the
// path (sm/bot_unit.h), as the SM's register-file path hook (sm/rf_path.h):
// the arbiter works on virtual banks, every granted access is a lookup of the
// block, and a slow sub-bank access takes a second cycle. Without the BOT the
// SM's own operand_read()/writeback() run (sm/core_pipe.cpp).
#pragma once
#include <utility>
#include <vector>

#include "sm/bot_unit.h"
#include "sm/rf_path.h"

namespace relgpu::sm {

class Core;
struct StaticOp;

class BotPath final : public RfPathHook {
 public:
  BotPath(Core& core, BotUnit& bot) : c_(core), bot_(bot) {}

  // After responses(), before writeback(): decides this cycle's RF writes and
  // reads, clocks the block once with them, and keeps the grants for the two stages.
  void arbitrate() override;
  bool operand_read() override;  // granted reads arrive at the collector; a slow one a cycle later
  void writeback() override;     // granted writes complete in their cycle, slow ones one cycle later
  bool wants_cycle() const override { return bot_.wants_cycle(); }
  // FWAS (spec 002 §4): an instruction is fast when every register it reads
  // and writes sits in a fast or hybrid vb of its warp's CTA slot.
  bool fast_first() const override { return bot_.fwas(); }
  bool fast(unsigned ws, const StaticOp& op) const override;
  void fast_issued() override { bot_.count_fast_issue(); }

 private:
  struct Read { Inst* in; uint8_t slot; uint8_t vb; unsigned grant; bool slow = false; };
  Core& c_;
  BotUnit& bot_;
  std::vector<Read> reads_;                         // this cycle's granted reads
  std::vector<std::pair<Inst*, unsigned>> writes_;  // granted writes: first grant
};

}  // namespace relgpu::sm
