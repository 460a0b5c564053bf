// GR-Guard patching unit (Tan dissertation §6.3, spec 000 §4 and §7a): one
// per SM, between the operand-collector arbitrator and the RF banks.
// RTL: rtl/patching_unit/patching_unit.v, whose header lists every choice
// made where the paper is silent; this model follows it bit for bit.
// Cycle contract: blocks/block.h.
//
// In short: a WRG (the same row of GroupBanks consecutive banks) holding
// faulty entries, or serving as a patch itself, gets a patch WRG when it is
// written: a dead WRG that is good where needed, same bank group first, then
// the next groups, else an L1D spill line. Accesses to it are redirected
// (kind 1 same group next cycle, 2 cross group re-arbitrate, 3 spill) while
// its Index valid bit is set. Death (dead-bit read, non-divergent) or a
// non-divergent re-write releases the patch; a divergent re-write keeps it.
// One selection per cycle (per_group_select: one per bank group); the
// losers and a full spill way get wr_retry_o.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "blocks/block.h"

namespace relgpu::blocks {

namespace patching_unit_keys {
using K = config::Key<int64_t>;
inline const K kBanks{"blocks.patching_unit.banks", 32, "banks", "RF banks per SM (power of 2)", 2, 1024};
inline const K kRows{"blocks.patching_unit.rows", 256, "entries", "128-bit entries per RF bank (power of 2)", 2, 65536};
inline const K kGroupBanks{"blocks.patching_unit.group_banks", 8, "banks",
                           "banks per WRG, i.e. per bank group (power of 2, at least 2 groups)", 1, 64};
inline const K kL1Lines{"blocks.patching_unit.l1_lines", 32, "lines",
                        "lines of the L1D way reserved for spilled patches (power of 2)", 2, 1024};
}  // namespace patching_unit_keys

struct PatchingUnitParams {
  unsigned banks = 32, rows = 256, group_banks = 8, l1_lines = 32;
  // A write to an occupied WRG moves its faulty entries and those that
  // hold the other WRG's (the paper's "occupied entries"), not all of them.
  // C++ model only (an ablation): the RTL moves the whole WRG.
  bool occupied_entries = false;
  // Several writes needing a patch in one cycle: each write port's group
  // selects in its own map bank (the maps are banked per bank group), and
  // only the lowest such port may also look in other groups or spill. The
  // spec leaves this open (spec 000 §7a, item 4). C++ model only (an
  // ablation): the RTL makes one selection per cycle.
  bool per_group_select = false;
  static PatchingUnitParams from(const config::Config& cfg);
  // Every field as "key=value ...", keys as in configs/blocks/<block>.json;
  // two Params are equal iff their describe() strings are (the --rtl check).
  std::string describe() const;
  // Derived sizes, as in the RTL.
  unsigned groups() const { return banks / group_banks; }
  unsigned num_wrg() const { return groups() * rows; }
  unsigned row_w() const { return clog2(rows); }
  unsigned wrg_w() const { return row_w() + clog2(groups()); }
  unsigned line_w() const { return clog2(l1_lines); }
  unsigned tgt_w() const { return wrg_w() > line_w() ? wrg_w() : line_w(); }
  // Throws InputError if the sizes are not ones the RTL ports can carry.
  void check() const;
};

// Per-port fields are packed like the RTL: port g occupies bits
// [g*W, (g+1)*W) with W = 1, 2 (kind), row_w, group_banks or tgt_w.
#define RELGPU_PATCHING_UNIT_IN(P) \
  P(bool, kernel_start_i)          \
  P(bool, fm_we_i)                 \
  P(uint32_t, fm_wrg_i)            \
  P(uint64_t, fm_data_i)           \
  P(uint64_t, rd_valid_i)          \
  P(uint64_t, rd_row_i)            \
  P(uint64_t, rd_dead_i)           \
  P(uint64_t, rd_div_i)            \
  P(uint64_t, wr_valid_i)          \
  P(uint64_t, wr_row_i)            \
  P(uint64_t, wr_div_i)
#define RELGPU_PATCHING_UNIT_OUT(P) \
  P(uint64_t, rd_kind_o)            \
  P(uint64_t, rd_mask_o)            \
  P(uint64_t, rd_tgt_o)             \
  P(uint64_t, wr_retry_o)           \
  P(uint64_t, wr_kind_o)            \
  P(uint64_t, wr_mask_o)            \
  P(uint64_t, wr_tgt_o)             \
  P(bool, spill_active_o)

struct PatchingUnitIn { RELGPU_BLOCK_PORTS(RELGPU_PATCHING_UNIT_IN) };
struct PatchingUnitOut { RELGPU_BLOCK_PORTS(RELGPU_PATCHING_UNIT_OUT) };

class PatchingUnitModel {
 public:
  enum Kind : unsigned { kNormal = 0, kSame = 1, kCross = 2, kSpill = 3 };
  // One Index map entry (its valid bit is index_valid()).
  struct Index {
    bool spill = false, whole = false;  // whole: selected for a write to an occupied WRG
    uint32_t tgt = 0;                   // patch WRG id, or spill line
    uint32_t mask = 0;                  // the entries a whole selection moved
  };
  // Event counts since construction (reset() keeps them), for stats and
  // functional coverage.
  struct Stats {
    uint64_t rd[4]{}, wr[4]{};   // accesses by kind (wr: accepted writes)
    uint64_t wr_keep = 0;        // divergent write kept its patch
    uint64_t retry_serial = 0;   // lost the one-selection-per-cycle race
    uint64_t retry_spill_full = 0;
    uint64_t release_death = 0, release_rewrite = 0;
    uint64_t release_owner_occupied = 0;  // released WRG is itself a patch
    uint64_t release_patch_indexed = 0;   // released patch has its own index
    uint64_t redirect_after_release = 0;  // whole index, own Patch bit clear
    uint64_t death_suppressed = 0;        // same-cycle write kept it live
    uint64_t whole_selections = 0;        // write to an occupied WRG
    uint64_t kernel_starts = 0;
  };

  explicit PatchingUnitModel(const PatchingUnitParams& p);
  void reset();
  PatchingUnitOut cycle(const PatchingUnitIn& in);

  // Read-only state.
  const PatchingUnitParams& params() const { return p_; }
  bool dead(uint32_t w) const { return dead_[w]; }
  bool patch(uint32_t w) const { return patch_[w]; }
  const Index& index(uint32_t w) const { return index_[w]; }
  bool index_valid(uint32_t w) const { return ivalid_[w]; }
  uint32_t faulty(uint32_t w) const { return faulty_[w]; }
  bool spill_used(uint32_t line) const { return spill_[line]; }
  unsigned spill_count() const;
  const Stats& stats() const { return st_; }

 private:
  uint32_t field(uint64_t v, unsigned g, unsigned w) const { return uint32_t((v >> (g * w)) & mask(w)); }
  // Next-state writes are queued and applied in order at the clock edge, so
  // every decision of a cycle reads the state before the edge (as the RTL).
  void later(uint8_t& bit, uint8_t v) { pend_.push_back({&bit, v}); }
  void release(const Index& e);
  uint32_t moved(const Index& e, uint32_t w) const;  // the entries index e of WRG w redirects

  PatchingUnitParams p_;
  std::vector<uint8_t> dead_, patch_, spill_, ivalid_;
  std::vector<std::pair<uint8_t*, uint8_t>> pend_;
  std::vector<uint32_t> faulty_;  // GroupBanks bits per WRG
  std::vector<Index> index_;
  std::vector<uint32_t> owner_;  // per patch WRG: the WRG it patches (valid while its Patch bit is set)
  Stats st_;
};

}  // namespace relgpu::blocks
