// The SM's banked register file, holding the register values.
//
// Organisation (GR-Guard §4, PV/NBTI paper §2): `banks` banks x `entries`
// rows of `entry_bits` bits. A warp register (32 lanes x 32 bits) spans
// span = 1024 / entry_bits consecutive banks at the same row: 8 banks of
// 128-bit entries (GR-Guard's WRG) or 1 bank of 1024 bits. The banks form
// groups = banks / span bank groups; lane l of a warp register lives in bank
// group*span + l / (entry_bits/32), word l % (entry_bits/32) of that entry.
//
// Mapping (Eq. 5.1 / Eq. 3 at bank-group granularity): physical register p
// (Function::phys_reg, 32-bit registers; 64-bit values take p and p+1) of
// the warp in hardware warp slot ws lives at
//   group = (ws + p) % groups,  row = row_base(ws) + p / groups,
// where each warp slot gets ceil(Function::regs_used() / groups) consecutive
// rows (ptxas's count when known).
// With 1024-bit entries this is exactly bank = (warp_id + reg_id) % banks.
// Under GR-Guard some entries of a warp register are stored elsewhere (the
// same entry of another warp register, or an L1D line); a Placement says
// where, and reads and writes go there.
//
// What is not in the banks (our choices, the papers are silent):
// - predicates live in a separate per-warp predicate file (the allocator
//   gives them no physical register);
// - registers of .func frames above the kernel's allocation, physical
//   registers at or above ptxas's count (our allocator works on PTX, which
//   needs more registers than SASS for some kernels; ptx::fit_to_ptxas puts
//   the constant operands there first, which SASS reads from the constant
//   bank), and registers the allocator left unassigned, go to a per-warp
//   overflow store: no bank, no faults (the hardware would not have them,
//   or spill them).
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "func/warp.h"
#include "ptx/ir.h"
#include "reliability/rf_faults.h"

namespace relgpu::sm {

class RegisterFile {
 public:
  RegisterFile(unsigned banks, unsigned entries, unsigned entry_bits);

  unsigned banks() const { return banks_; }
  unsigned entries() const { return entries_; }
  unsigned entry_bits() const { return entry_bits_; }
  unsigned span() const { return span_; }          // banks per warp register
  unsigned groups() const { return groups_; }      // banks / span
  unsigned words_per_entry() const { return entry_bits_ / 32; }

  // ---- fault API: physical entries by (bank, row) ----
  // The entry's words (entry_bits / 32 of them, lane order). Writing through
  // this pointer changes what later instructions read.
  uint32_t* entry(unsigned bank, unsigned row);
  void flip_bit(unsigned bank, unsigned row, unsigned bit);  // bit in [0, entry_bits)
  // Which warp-register lanes an entry of `bank` holds: lanes [first, first + words).
  unsigned first_lane(unsigned bank) const { return (bank % span_) * words_per_entry(); }

  // The 32 lanes of the warp register at (group, row), contiguous.
  uint32_t* wreg(unsigned group, unsigned row) { return data_.data() + (size_t(group) * entries_ + row) * 32; }

 private:
  unsigned banks_, entries_, entry_bits_, span_, groups_;
  std::vector<uint32_t> data_;
};

// ---- RF faults (reliability/) ----
// A physical entry's cells: (bank, row); bank < 0: not in the RF banks (no faults).
struct EntryLoc { int32_t bank = -1, row = -1; };
// Entry writes that met bad cells: corrected by SEC-DED, or stored wrong.
struct RfFaultCounts { uint64_t corrected = 0, corrupting = 0; };
// ---- end RF faults ----

// ---- GR-Guard placement (sm/grguard.h) ----
// Where the entries of warp register (group, row) are stored now: entry e in
// `mask` is entry e of the RF's warp register (group, row) here, or, with
// `spill`, words [e*wpe, (e+1)*wpe) of that L1D line (32 words, no RF cells).
struct Moved { uint32_t mask = 0; int32_t group = -1, row = -1; uint32_t* spill = nullptr; };
class Placement {
 public:
  virtual ~Placement() = default;
  virtual Moved moved(unsigned group, unsigned row) const = 0;
  // Entries of the RF's warp register (group, row) that hold another
  // register's moved entries (bind() does not zero them).
  virtual uint32_t held(unsigned group, unsigned row) const = 0;
};
// The operand collector's copy of one instruction's RF operands: while set,
// a read of warp `ws`'s register pbase + phys[i] returns words[32 i ..], what
// the SM copied when it read the banks (GR-Guard fills it, sm/grguard.h).
struct Latch {
  unsigned ws = 0;
  uint32_t pbase = 0;
  const uint16_t* phys = nullptr;  // sorted
  unsigned n = 0;
  const uint32_t* words = nullptr;
};
// ---- end GR-Guard placement ----

// ---- Bank organization (sm/bot_unit.h) ----
// With 1024-bit entries, each bank is two 512-bit sub-banks (sb 2b: lanes
// 0-15, sb 2b+1: lanes 16-31). A BankMap says which sub-banks hold the two
// halves of warp ws's registers in logical bank `group` (Eq. 3's bank):
// lanes 0-15 in sb `a`, lanes 16-31 in sb `b`, at the register's row.
class BankMap {
 public:
  virtual ~BankMap() = default;
  virtual void halves(unsigned ws, unsigned group, unsigned& a, unsigned& b) const = 0;
};
// ---- end bank organization ----

// func::RegStorage over the RegisterFile: the executor's operand reads and
// writebacks land in the physical entries picked by the mapping above.
class SmRegs final : public func::RegStorage {
 public:
  SmRegs(RegisterFile& rf, unsigned max_warps);

  // ---- RF faults ----
  // Every written entry of a warp register gets the stuck-at bits of the
  // cells it is stored in, at write time: the written lanes new, the others
  // as stored. With `secded` a write that would land with exactly one wrong
  // bit stores the intended value; two or more wrong bits are what later
  // reads see. Reads stay plain reads; bind() (zeroing at warp launch) is
  // not corrupted. nullptr = fault free (no extra work).
  void set_faults(const reliability::RfFaults* f, bool secded);
  const RfFaultCounts& fault_counts() const { return fcount_; }
  void reset_fault_counts() { fcount_ = RfFaultCounts{}; }
  // ---- end RF faults ----

  // ---- GR-Guard ----
  // With a placement, reads and writes of a warp register go to where its
  // entries are stored (the RF entries of another warp register, or an L1D
  // line), with the faults of those cells. nullptr: every entry at home.
  void set_placement(const Placement* p) { place_ = p; }
  void set_latch(const Latch* l) { latch_ = l; }
  // Reads while a latch was set that it did not hold (served from storage).
  uint64_t latch_misses() const { return latch_miss_; }
  // ---- end GR-Guard ----

  // ---- Bank organization ----
  // With a bank map, each half of a warp register is read from and written
  // to the sub-bank the map names, with that sub-bank's faults; SEC-DED then
  // covers each 512-bit half (a sub-bank has its own decoder and word).
  // Needs 1024-bit entries; excludes a placement. nullptr: halves at home.
  void set_bank_map(const BankMap* m);
  const BankMap* bank_map() const { return bank_map_; }
  // ---- end bank organization ----

  // ---- Soft errors (sm/upsets.h) and LESS's STT-RAM cells (sm/less_unit.h) ----
  // Physical registers of the kernel held in STT-RAM cells, immune to
  // particle strikes: 1 per register; nullptr = every cell SRAM.
  void set_immune(const std::vector<uint8_t>* per_phys) { immune_ = per_phys; }
  // A particle strike on bit `bit` of RF entry (bank, row): flips the cell
  // unless it holds an STT-RAM register; unowned = no live warp register
  // there (flipped too: harmless, the row is zeroed when a warp binds it).
  // Needs the baseline mapping (no placement, bank map, FBA-RM or layout).
  enum class Strike : uint8_t { flipped, immune, unowned };
  Strike upset(unsigned bank, unsigned row, unsigned bit);
  // ---- end soft errors ----

  // ---- Uniform vectors (sm/uniform_unit.h; spec 001 §2 token design, §5) ----
  // A token file, one bit per banked 32-bit register of a warp slot (and per
  // predicate, for detection only). A register whose token is set holds one
  // value, in lane `lane` (a second copy in lane + 1 with copies = 2); its
  // other lanes' cells are stale and reads broadcast the scalar slot. While
  // scalar_write(true), a full-mask write stores only the scalar slots and
  // sets the tokens (the unit sets it around a uniform instruction's
  // writeback); any other write clears them, a divergent one first
  // spreading the scalar to every lane (copy-on-write). copies = 0: off.
  void set_scalar(unsigned lane, unsigned copies);
  void scalar_write(bool on) { scalar_write_ = on; }
  // Banks of a warp register's span (bit b = its b-th bank) that hold the
  // scalar slots: a scalar read or write touches only these. 0: off.
  uint32_t scalar_banks() const {
    uint32_t m = 0;
    for (unsigned l = scalar_lane_; l < scalar_lane_ + scalar_copies_; ++l) m |= 1u << (l / rf_.words_per_entry());
    return m;
  }
  bool token(unsigned ws, unsigned p) const { return p < slots_[ws].tok.size() && slots_[ws].tok[p]; }
  bool pred_token(unsigned ws, unsigned slot) const {
    return slot < slots_[ws].ptok.size() && slots_[ws].ptok[slot];
  }
  struct ScalarCounts {
    uint64_t scalar_writes = 0;    // 32-bit registers written as a scalar
    uint64_t broadcast_reads = 0;  // 32-bit registers read from a scalar slot
    uint64_t expands = 0;          // copy-on-write: a scalar spread before a divergent write
    uint64_t copy_mismatches = 0;  // copies = 2: the two slots differed on a read (a detected error)
  };
  const ScalarCounts& scalar_counts() const { return scount_; }
  void reset_scalar_counts() { scount_ = ScalarCounts{}; }
  // ---- end uniform vectors ----

  // A warp slot becomes live: its func::Warp (for the frame stack), first
  // row, and the register count of the kernel (per thread). Zeroes its
  // registers (functional mode's registers start at 0 too) where they are
  // stored, except RF entries that hold another register's moved entries:
  // the hardware zeroes nothing, and those values are live.
  void bind(unsigned ws, const func::Warp* w, unsigned row_base, unsigned rows);
  void unbind(unsigned ws) { slots_[ws].warp = nullptr; }
  void set_kernel(const ptx::Function* k) { kernel_ = k; kmap_ = &map_of(k); }
  const ptx::Function* kernel() const { return kernel_; }

  // FBA-RM (spec 002 §3): with n > 0, a warp slot's registers go to the
  // first n banks (RF-BRO's fast vbs), (warp + reg) % n, as long as its rows
  // there hold them; the rest (the large ids) to the others,
  // n + (warp + reg) % (banks - n). Each part fills the slot's own rows, so
  // occupancy is unchanged. 0: Eq. (3) over every bank.
  void set_fast_banks(unsigned n) { fast_ = n; }

  // Hybrid banks (spec 002 §5): physical registers of kernel k (regs_used()
  // of them) that hold a register used under a thread-dependent branch
  // (`regs`: one of ptx::Function's tainted_regs, programmatic_regs or
  // lane_regs): 1 = hybrid namespace, 0 = pure.
  std::vector<uint8_t> hybrid_phys(const ptx::Function* k, const std::vector<int32_t>& regs);
  // With a layout, a warp slot's hybrid registers (`hyb`, as hybrid_phys
  // gives) go over the banks `hyb_banks` and the others over `pure_banks`,
  // Eq. (3) over each list: the k-th register of a class to
  // list[(ws + k) % size]. A bank whose rows of this slot are full passes it
  // on to the next bank of its list with room, then to the other list (the
  // paper's "too few hybrid vbs"). Set at launch, before any bind; empty
  // pure_banks: off.
  void set_layout(std::vector<uint8_t> hyb, std::vector<unsigned> pure_banks, std::vector<unsigned> hyb_banks);
  bool hybrid(unsigned ws, unsigned p) const {
    return !lay_pure_.empty() && p < slots_[ws].loc.size() && slots_[ws].loc[p].hyb;
  }
  // Lane compaction (sm/lane_compaction.h): thread lane l of warp slot ws
  // lives in slot slot_of[l] of each of its warp registers (slots 0-15 in
  // the sub-bank on lanes 0-15). A permutation of 0..31; needs a bank map.
  // bind() restores the identity.
  void set_lanes(unsigned ws, const uint8_t slot_of[32]);
  // The slots that the lanes in `mask` use.
  uint32_t slots(unsigned ws, uint32_t mask) const {
    const Slot& s = slots_[ws];
    if (!s.permuted) return mask;
    uint32_t out = 0;
    for (uint32_t m = mask; m; m &= m - 1) out |= 1u << s.slot_of[__builtin_ctz(m)];
    return out;
  }

  // A warp slot's first row (its rows are row_base .. row_base + rows - 1).
  unsigned row_base(unsigned ws) const { return slots_[ws].row_base; }
  // Where physical register p of warp slot ws lives.
  unsigned group_of(unsigned ws, unsigned p) const {
    if (p < slots_[ws].loc.size()) return slots_[ws].loc[p].group;
    if (!fast_) return (ws + p) % rf_.groups();
    return p < fast_ * slots_[ws].rows ? (ws + p) % fast_ : fast_ + (ws + p) % (rf_.groups() - fast_);
  }
  unsigned row_of(unsigned ws, unsigned p) const {
    if (p < slots_[ws].loc.size()) return slots_[ws].loc[p].row;
    if (!fast_) return slots_[ws].row_base + p / rf_.groups();
    const unsigned k = fast_ * slots_[ws].rows;
    return slots_[ws].row_base + (p < k ? p / fast_ : (p - k) / (rf_.groups() - fast_));
  }
  // Physical 32-bit registers the warp slot owns in the banks.
  unsigned capacity(unsigned ws) const { return slots_[ws].rows * rf_.groups(); }

  // First physical register of frame-relative register slot `slot` of warp
  // ws, and its width in 32-bit registers; false if it is not in the banks
  // (predicate or overflow).
  bool phys(unsigned ws, unsigned slot, unsigned& p, unsigned& width);

  void reserve(unsigned warp, unsigned nslots) override;
  void read(unsigned warp, unsigned slot, uint64_t out[func::kWarpSize]) override;
  void write(unsigned warp, unsigned slot, uint32_t mask, const uint64_t in[func::kWarpSize]) override;

 private:
  enum class Where : uint8_t { rf, pred, overflow };
  struct Map { int32_t phys = -1; uint8_t width = 1; Where where = Where::overflow; };
  struct Slot {
    const func::Warp* warp = nullptr;
    unsigned row_base = 0, rows = 0;
    std::vector<uint32_t> pred;       // per register slot: lane mask
    std::vector<uint64_t> overflow;   // per register slot: 32 lanes (allocated on first use)
    struct Loc { uint16_t row; uint8_t group; bool hyb; };
    std::vector<Loc> loc;             // per physical register, with a layout (set_layout)
    bool permuted = false;            // set_lanes
    std::vector<uint8_t> tok, ptok;   // uniform vectors: per physical register / per predicate slot
    uint8_t slot_of[32];
  };
  void build_layout(unsigned ws);
  const std::vector<Map>& map_of(const ptx::Function* fn);
  // Resolves slot to its function's map entry and the frame's physical base.
  const Map& locate(unsigned ws, unsigned slot, unsigned& base);
  uint64_t* overflow_at(unsigned ws, unsigned slot);
  // The 32 lanes of physical register p of warp ws as they are read now:
  // the latch's copy, the RF words in place, or gathered into tmp.
  const uint32_t* fetch(unsigned ws, unsigned p, uint32_t tmp[32]);
  // Physical registers p (, p + 1) of warp ws as stored / written (the
  // placement, bank map and faults applied; no tokens).
  void load_reg(unsigned warp, unsigned p, unsigned width, uint64_t out[func::kWarpSize]);
  void store_reg(unsigned warp, unsigned p, unsigned width, uint32_t mask, const uint64_t in[func::kWarpSize]);
  // Uniform vectors: the token rules of set_scalar on a read / a write
  // (true: the write is done).
  void broadcast(unsigned warp, unsigned p, unsigned width, uint64_t out[func::kWarpSize]);
  bool scalar_store(unsigned warp, unsigned p, unsigned width, uint32_t mask, const uint64_t in[func::kWarpSize]);
  // Writes bits [shift, shift+32) of the lanes in `mask` into warp register
  // (group, row), entry by entry where each is stored, with its cells' faults.
  void store(unsigned group, unsigned row, uint32_t mask, const uint64_t in[], unsigned shift);
  // Entry e of warp register (group, row): its words and its cells.
  uint32_t* locate_entry(unsigned group, unsigned row, unsigned e, const Moved& mv, EntryLoc& at);
  // RF faults: applies the stuck-at bits of the cells `at` to the entry's words.
  void corrupt(uint32_t* words, EntryLoc at);
  // Bank organization: the half of physical entry (sb / 2, row) that sb
  // holds (16 words), and a write of 16 lanes into it with its faults.
  uint32_t* half(unsigned sb, unsigned row) { return rf_.wreg(sb / 2, row) + (sb % 2) * 16; }
  void store_half(unsigned sb, unsigned row, uint32_t mask16, const uint64_t* in16, unsigned shift);

  RegisterFile& rf_;
  const reliability::RfFaults* faults_ = nullptr;
  bool secded_ = true;
  const Placement* place_ = nullptr;
  const Latch* latch_ = nullptr;
  const BankMap* bank_map_ = nullptr;
  unsigned fast_ = 0;  // FBA-RM's fast banks (set_fast_banks)
  const std::vector<uint8_t>* immune_ = nullptr;  // STT-RAM registers (set_immune)
  std::vector<uint8_t> lay_hyb_;        // hybrid banks (set_layout)
  std::vector<unsigned> lay_pure_, lay_hbanks_;
  uint64_t latch_miss_ = 0;
  unsigned scalar_lane_ = 0, scalar_copies_ = 0;  // uniform vectors (set_scalar)
  bool scalar_write_ = false;
  ScalarCounts scount_;
  RfFaultCounts fcount_;
  std::vector<Slot> slots_;
  const ptx::Function* kernel_ = nullptr;
  const std::vector<Map>* kmap_ = nullptr;
  std::unordered_map<const ptx::Function*, std::vector<Map>> maps_;
};

}  // namespace relgpu::sm
