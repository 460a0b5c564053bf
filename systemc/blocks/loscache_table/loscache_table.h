// LoSCache prediction table, one per SM LD/ST unit (Tan dissertation Ch7,
// spec 000 §5 and §7b). RTL: rtl/loscache_table/loscache_table.v.
// Cycle contract: blocks/block.h.
//
// Entries {valid, pc, blk, cnt, thr}, fully associative on pc. Phases:
//   start_i (any phase): clear the table -> PREDICT.
//   PREDICT: insert_* adds {pc, blk} if the pc is new and the table not full
//     (else ignored). l2_access_i counts this SM's L2 accesses; at PhaseLimit
//     accesses or predictor_done_i -> UPDATE.
//   UPDATE: one query {entry, blk} per entry (query_valid_o/query_ready_i);
//     fill_* returns the L2 line's count: cnt = count, or the entry is
//     dropped if count is 0. When every query is answered -> NORMAL.
//   NORMAL: lookup_* returns hit, entry and pred = min(cnt + thr, 2^CntWidth-1);
//     a miss returns pred 0 (no gating). mispredict_* raises the entry's thr
//     by 1, saturating at 2^ThrWidth-1.
//
// Choices where the dissertation is silent (also in the RTL header):
//  - Reset state: NORMAL with an empty table (every lookup misses: no gating).
//  - Entries are allocated in order (an allocation pointer, not a free-list
//    priority encoder): inserts happen only in PREDICT, before any entry can
//    be dropped.
//  - Insert and lookup share one set of PC comparators: they are never used
//    in the same phase. A lookup outside NORMAL misses; an insert outside
//    PREDICT is ignored; a mispredict outside NORMAL is ignored.
//  - The phase limit counts l2_access_i pulses; the access that reaches it
//    ends the phase at that clock edge. predictor_done_i ends it too: the
//    LD/ST unit (sm/loscache_unit.h) pulses l2_access_i for its own SM's
//    accesses when each SM has its own phase (loscache.phase_count=sm, the
//    default), and drives predictor_done_i when the GPU-wide one is over
//    (gpu).
//  - Fills are accepted in any order, only for entries with a query in
//    flight; others are ignored. Entry ids >= NumEntries are ignored.
//  - Mispredicts name the entry id the LD/ST unit kept in its MSHR.
//  - A fill of count 0 drops the entry (line evicted, spec choice 4);
//    thresholds persist until the next start (spec choice 7).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "blocks/block.h"

namespace relgpu::blocks {

namespace loscache_keys {
using K = config::Key<int64_t>;
inline const K kNumEntries{"blocks.loscache_table.num_entries", 21, "entries", "prediction table entries (max unique PCs, NW)", 2, 64};
inline const K kPcWidth{"blocks.loscache_table.pc_width", 32, "bits", "PC tag width", 1, 32};
inline const K kBlkWidth{"blocks.loscache_table.blk_width", 25, "bits", "L2 block address width (32-bit address - 7 offset bits)", 1, 32};
inline const K kCntWidth{"blocks.loscache_table.cnt_width", 6, "bits", "predicted access count width", 1, 16};
inline const K kThrWidth{"blocks.loscache_table.thr_width", 2, "bits",
                         "adaptive threshold width (max 2^w-1); 0 = no threshold, the naive predictor (C++ model "
                         "only: the RTL needs 1 or more)", 0, 16};
inline const K kPhaseLimit{"blocks.loscache_table.phase_limit", 100, "L2 accesses", "L2 accesses that end the prediction phase (of the whole GPU or of this SM: loscache.phase_count)", 1, 65535};
}  // namespace loscache_keys

struct LoscacheTableParams {
  unsigned num_entries = 21, pc_width = 32, blk_width = 25, cnt_width = 6, thr_width = 2, phase_limit = 100;
  unsigned entry_width() const { return clog2(num_entries); }
  static LoscacheTableParams from(const config::Config& cfg);
  // Every field as "key=value ...", keys as in configs/blocks/<block>.json;
  // two Params are equal iff their describe() strings are (the --rtl check).
  std::string describe() const;
};

enum LoscachePhase : uint32_t { kNormal = 0, kPredict = 1, kUpdate = 2 };

#define RELGPU_LOSCACHE_TABLE_IN(P) \
  P(bool, start_i)                  \
  P(bool, predictor_done_i)         \
  P(bool, l2_access_i)              \
  P(bool, insert_valid_i)           \
  P(uint32_t, insert_pc_i)          \
  P(uint32_t, insert_blk_i)         \
  P(bool, lookup_valid_i)           \
  P(uint32_t, lookup_pc_i)          \
  P(bool, query_ready_i)            \
  P(bool, fill_valid_i)             \
  P(uint32_t, fill_entry_i)         \
  P(uint32_t, fill_count_i)         \
  P(bool, mispredict_valid_i)       \
  P(uint32_t, mispredict_entry_i)
#define RELGPU_LOSCACHE_TABLE_OUT(P) \
  P(uint32_t, phase_o)               \
  P(bool, full_o)                    \
  P(bool, lookup_hit_o)              \
  P(uint32_t, lookup_entry_o)        \
  P(uint32_t, lookup_pred_o)         \
  P(bool, query_valid_o)             \
  P(uint32_t, query_entry_o)         \
  P(uint32_t, query_blk_o)

struct LoscacheTableIn { RELGPU_BLOCK_PORTS(RELGPU_LOSCACHE_TABLE_IN) };
struct LoscacheTableOut { RELGPU_BLOCK_PORTS(RELGPU_LOSCACHE_TABLE_OUT) };

class LoscacheTableModel {
 public:
  struct Entry {
    bool valid = false, pending = false;  // pending: query sent, fill not yet back
    uint32_t pc = 0, blk = 0, cnt = 0, thr = 0;
  };
  explicit LoscacheTableModel(const LoscacheTableParams& p);
  void reset();
  LoscacheTableOut cycle(const LoscacheTableIn& in);

  // Read-only state, for coverage and stats.
  LoscachePhase phase() const { return phase_; }
  const std::vector<Entry>& entries() const { return e_; }
  unsigned allocated() const { return alloc_; }
  unsigned accesses() const { return acc_; }
  unsigned query_ptr() const { return qptr_; }
  const LoscacheTableParams& params() const { return p_; }

 private:
  int match(uint32_t pc) const;  // valid entry with this pc, or -1
  LoscacheTableParams p_;
  std::vector<Entry> e_;
  LoscachePhase phase_ = kNormal;
  unsigned alloc_ = 0, acc_ = 0, qptr_ = 0;
};

}  // namespace relgpu::blocks
