// RF bank organization table (BOT) with the block-level renaming table (RT)
// (Tan et al., TPDS 2016, spec 002 §2, §5, §6 and §12): one per SM, in the
// register-read stage in front of the RF arbiter.
// RTL: rtl/bank_org_table/bank_org_table.v, whose header lists the choices
// made where the paper is silent; this model follows it bit for bit.
// Cycle contract: blocks/block.h.
//
// Translation: bank -> RT[slot][bank] = vb -> BOT[vb] = {sbA, sbB, spdA,
// spdB}; busy = valid & ((spdA & lanes 0-15) | (spdB & lanes 16-31)), and a
// busy vb stalls the arbiter the next cycle. Kernel launch: a sequential
// sorter rewrites the BOT fastest pair first from the 32 sensor codes
// (NumSbs + 2 cycles until the new table is seen), then applies the hybrid
// swaps. Block dispatch fills one RT row.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "blocks/block.h"

namespace relgpu::blocks {

namespace bank_org_table_keys {
using K = config::Key<int64_t>;
inline const K kNumVbs{"blocks.bank_org_table.num_vbs", 16, "banks",
                       "virtual banks = RF banks per SM, each of 2 sub-banks (power of 2)", 2, 32};
inline const K kNumSlots{"blocks.bank_org_table.num_slots", 8, "blocks",
                         "renaming-table rows = resident thread blocks per SM (power of 2)", 2, 64};
inline const K kCodeWidth{"blocks.bank_org_table.code_width", 8, "bits", "NBTI/PV sensor delay code width", 1, 16};
inline const K kNumLookups{"blocks.bank_org_table.num_lookups", 8, "ports",
                           "translation ports per cycle (bank accesses leaving the arbiter)", 1, 8};
inline const K kNumFwas{"blocks.bank_org_table.num_fwas", 2, "ports",
                        "FWAS fast-bit ports (decode-stage operand lookups)", 1, 8};
}  // namespace bank_org_table_keys

struct BankOrgTableParams {
  unsigned num_vbs = 16, num_slots = 8, code_width = 8, num_lookups = 8, num_fwas = 2;
  static BankOrgTableParams from(const config::Config& cfg);
  // Every field as "key=value ...", keys as in configs/blocks/<block>.json;
  // two Params are equal iff their describe() strings are (the --rtl check).
  std::string describe() const;
  unsigned num_sbs() const { return 2 * num_vbs; }
  unsigned vb_w() const { return clog2(num_vbs); }
  unsigned sb_w() const { return vb_w() + 1; }
  unsigned slot_w() const { return clog2(num_slots); }
  // Cycles from reorg_i to the first lookup that sees the new table.
  unsigned reorg_latency() const { return num_sbs() + 2; }
  void check() const;  // throws InputError
};

// Per-port fields are packed like the RTL: port i at bits [i*W, (i+1)*W).
// sensors_i: sb s at bits [s*code_width, ...); lk_act_i: 32 lanes per port.
// wdata_i = {spdB, spdA, sbB, sbA} (sbA in the low sb_w bits).
#define RELGPU_BANK_ORG_TABLE_IN(P) \
  P(bool, we_i)                     \
  P(uint32_t, widx_i)               \
  P(uint32_t, wdata_i)              \
  P(bool, reorg_i)                  \
  P(Wide, sensors_i)                \
  P(uint32_t, slow_thr_i)           \
  P(uint32_t, nslow_min_i)          \
  P(uint32_t, nhyb_i)               \
  P(bool, disp_i)                   \
  P(uint32_t, disp_slot_i)          \
  P(uint32_t, disp_warp_i)          \
  P(uint32_t, lk_valid_i)           \
  P(uint64_t, lk_slot_i)            \
  P(uint64_t, lk_bank_i)            \
  P(Wide, lk_act_i)                 \
  P(uint64_t, fw_slot_i)            \
  P(uint64_t, fw_bank_i)
#define RELGPU_BANK_ORG_TABLE_OUT(P) \
  P(bool, reorg_busy_o)              \
  P(uint64_t, lk_vb_o)               \
  P(uint64_t, lk_sba_o)              \
  P(uint64_t, lk_sbb_o)              \
  P(uint32_t, lk_spd_o)              \
  P(uint32_t, lk_busy_o)             \
  P(uint64_t, stall_o)               \
  P(uint32_t, fw_fast_o)             \
  P(uint32_t, nfast_o)

struct BankOrgTableIn { RELGPU_BLOCK_PORTS(RELGPU_BANK_ORG_TABLE_IN) };
struct BankOrgTableOut { RELGPU_BLOCK_PORTS(RELGPU_BANK_ORG_TABLE_OUT) };

class BankOrgTableModel {
 public:
  struct Entry {
    uint32_t sba = 0, sbb = 0;
    bool spda = false, spdb = false;  // 1 = slow (2-cycle) sub-bank
    bool fast() const { return !(spda && spdb); }  // hybrid counts as fast
    bool operator==(const Entry& o) const {
      return sba == o.sba && sbb == o.sbb && spda == o.spda && spdb == o.spdb;
    }
  };
  struct Stats {
    uint64_t rom_writes = 0, reorgs = 0, swaps = 0, dispatches = 0, lookups = 0, busy = 0, fwas_fast = 0;
  };

  explicit BankOrgTableModel(const BankOrgTableParams& p);
  void reset();
  BankOrgTableOut cycle(const BankOrgTableIn& in);

  // Read-only state.
  const BankOrgTableParams& params() const { return p_; }
  const Entry& bot(unsigned vb) const { return bot_[vb]; }
  unsigned rt(unsigned slot, unsigned bank) const { return rt_[slot * p_.num_vbs + bank]; }
  unsigned num_fast() const;
  bool busy() const { return st_ != kIdle; }
  // Swaps applied by the last re-organization.
  unsigned last_swaps() const { return last_swaps_; }
  const Stats& stats() const { return st_count_; }

  static uint32_t pack(const Entry& e, unsigned sb_w) {
    return e.sba | e.sbb << sb_w | uint32_t(e.spda) << (2 * sb_w) | uint32_t(e.spdb) << (2 * sb_w + 1);
  }

 private:
  enum State { kIdle, kSort, kSwap };
  std::vector<uint32_t> fill_row(unsigned warp) const;

  BankOrgTableParams p_;
  std::vector<Entry> bot_;
  std::vector<uint32_t> rt_;  // slot-major
  uint64_t stall_ = 0;
  State st_ = kIdle;
  unsigned k_ = 0, nf_ = 0, nhyb_ = 0, last_swaps_ = 0;
  uint32_t thr_ = 0, nslow_ = 0, prev_sb_ = 0;
  bool prev_slow_ = false;
  std::vector<uint32_t> code_;
  std::vector<uint8_t> taken_;
  Stats st_count_;
};

}  // namespace relgpu::blocks
