#include "sm/regfile.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "func/exec.h"

namespace relgpu::sm {

using func::kWarpSize;

RegisterFile::RegisterFile(unsigned banks, unsigned entries, unsigned entry_bits)
    : banks_(banks), entries_(entries), entry_bits_(entry_bits) {
  if (entry_bits == 0 || 1024 % entry_bits != 0 || entry_bits % 32 != 0)
    throw std::invalid_argument("rf.entry_bits must divide 1024 and be a multiple of 32, got " +
                                std::to_string(entry_bits));
  span_ = 1024 / entry_bits;
  if (banks % span_ != 0)
    throw std::invalid_argument("rf.num_banks (" + std::to_string(banks) + ") must be a multiple of the " +
                                std::to_string(span_) + " banks a warp register spans with rf.entry_bits=" +
                                std::to_string(entry_bits));
  groups_ = banks / span_;
  data_.assign(size_t(groups_) * entries_ * 32, 0);
}

uint32_t* RegisterFile::entry(unsigned bank, unsigned row) {
  if (bank >= banks_ || row >= entries_)
    throw std::out_of_range("register-file entry (" + std::to_string(bank) + ", " + std::to_string(row) +
                            ") outside " + std::to_string(banks_) + " banks x " + std::to_string(entries_));
  return wreg(bank / span_, row) + first_lane(bank);
}

void RegisterFile::flip_bit(unsigned bank, unsigned row, unsigned bit) {
  if (bit >= entry_bits_) throw std::out_of_range("bit " + std::to_string(bit) + " outside the entry");
  entry(bank, row)[bit / 32] ^= 1u << (bit % 32);
}

SmRegs::SmRegs(RegisterFile& rf, unsigned max_warps) : rf_(rf), slots_(max_warps) {}

SmRegs::Strike SmRegs::upset(unsigned bank, unsigned row, unsigned bit) {
  if (place_ || bank_map_ || fast_ || !lay_pure_.empty())
    throw std::logic_error("SmRegs::upset needs the baseline register mapping");
  const unsigned g = bank / rf_.span(), groups = rf_.groups();
  Strike what = Strike::unowned;
  for (unsigned ws = 0; ws < slots_.size(); ++ws) {
    const Slot& s = slots_[ws];
    if (!s.warp || row < s.row_base || row >= s.row_base + s.rows) continue;
    // Inverse of group_of / row_of: group = (ws + p) % groups, row = base + p / groups.
    const unsigned p = (row - s.row_base) * groups + (g + groups - ws % groups) % groups;
    if (kernel_ && p < kernel_->regs_used())
      what = immune_ && p < immune_->size() && (*immune_)[p] ? Strike::immune : Strike::flipped;
    break;
  }
  if (what != Strike::immune) rf_.flip_bit(bank, row, bit);
  return what;
}

const std::vector<SmRegs::Map>& SmRegs::map_of(const ptx::Function* fn) {
  auto it = maps_.find(fn);
  if (it != maps_.end()) return it->second;
  std::vector<Map> m(fn->regs.size());
  for (size_t r = 0; r < fn->regs.size(); ++r) {
    unsigned bits = ptx::type_bits(fn->regs[r].type);
    if (fn->regs[r].type == ptx::Type::pred) {
      m[r].where = Where::pred;
    } else if (r < fn->phys_reg.size() && fn->phys_reg[r] >= 0) {
      m[r].where = Where::rf;
      m[r].phys = fn->phys_reg[r];
      m[r].width = bits > 32 ? 2 : 1;  // values are at most 64 bits in the executor
    }
  }
  return maps_.emplace(fn, std::move(m)).first->second;
}

void SmRegs::bind(unsigned ws, const func::Warp* w, unsigned row_base, unsigned rows) {
  Slot& s = slots_[ws];
  s.warp = w;
  s.row_base = row_base;
  s.rows = rows;
  const unsigned wpe = rf_.words_per_entry();
  for (unsigned g = 0; g < rf_.groups(); ++g)
    for (unsigned r = row_base; r < row_base + rows; ++r) {
      if (!place_) {
        std::memset(rf_.wreg(g, r), 0, 32 * sizeof(uint32_t));
        continue;
      }
      const Moved mv = place_->moved(g, r);
      const uint32_t held = place_->held(g, r);
      EntryLoc at;
      for (unsigned e = 0; e < rf_.span(); ++e)
        if (mv.mask >> e & 1 || !(held >> e & 1)) std::memset(locate_entry(g, r, e, mv, at), 0, wpe * sizeof(uint32_t));
    }
  std::fill(s.pred.begin(), s.pred.end(), 0);
  std::fill(s.overflow.begin(), s.overflow.end(), 0);
  if (scalar_copies_) {  // uniform vectors: the zeroed registers hold full vectors
    s.tok.assign(capacity(ws), 0);
    s.ptok.assign(s.pred.size(), 0);
  }
  s.loc.clear();
  s.permuted = false;
  if (!lay_pure_.empty()) build_layout(ws);
}

void SmRegs::set_lanes(unsigned ws, const uint8_t slot_of[32]) {
  if (!bank_map_) throw std::logic_error("lane compaction needs the bank organization table");
  uint32_t seen = 0;
  bool identity = true;
  for (unsigned l = 0; l < 32; ++l) {
    if (slot_of[l] >= 32 || seen >> slot_of[l] & 1)
      throw std::logic_error("lane compaction: warp slot " + std::to_string(ws) + ": not a permutation of the lanes");
    seen |= 1u << slot_of[l];
    identity = identity && slot_of[l] == l;
  }
  Slot& s = slots_[ws];
  s.permuted = !identity;
  std::memcpy(s.slot_of, slot_of, 32);
}

// ---- Hybrid banks ----
std::vector<uint8_t> SmRegs::hybrid_phys(const ptx::Function* k, const std::vector<int32_t>& regs) {
  std::vector<uint8_t> hyb(k->regs_used(), 0);
  const std::vector<Map>& m = map_of(k);
  for (int32_t r : regs)
    if (m[size_t(r)].where == Where::rf)
      for (unsigned w = 0; w < m[size_t(r)].width; ++w)
        if (unsigned p = unsigned(m[size_t(r)].phys) + w; p < hyb.size()) hyb[p] = 1;
  return hyb;
}

void SmRegs::set_layout(std::vector<uint8_t> hyb, std::vector<unsigned> pure_banks, std::vector<unsigned> hyb_banks) {
  if (!pure_banks.empty() && (place_ || fast_))
    throw std::invalid_argument("a hybrid-bank layout excludes GR-Guard placement and FBA-RM");
  lay_hyb_ = std::move(hyb);
  lay_pure_ = std::move(pure_banks);
  lay_hbanks_ = std::move(hyb_banks);
}

void SmRegs::build_layout(unsigned ws) {
  Slot& s = slots_[ws];
  const unsigned cap = capacity(ws);
  std::vector<unsigned> used(rf_.groups(), 0);
  unsigned k[2] = {0, 0};
  s.loc.resize(cap);
  for (unsigned p = 0; p < cap; ++p) {
    const bool h = p < lay_hyb_.size() && lay_hyb_[p] && !lay_hbanks_.empty();
    const std::vector<unsigned>* lists[2] = {h ? &lay_hbanks_ : &lay_pure_, h ? &lay_pure_ : &lay_hbanks_};
    const unsigned i = k[h]++;
    int g = -1;
    for (const std::vector<unsigned>* l : lists)
      for (size_t j = 0; j < l->size() && g < 0; ++j)
        if (const unsigned b = (*l)[(ws + i + j) % l->size()]; used[b] < s.rows) g = int(b);
    if (g < 0) throw std::logic_error("hybrid layout: warp slot " + std::to_string(ws) + " has no row left");
    s.loc[p] = Slot::Loc{uint16_t(s.row_base + used[unsigned(g)]++), uint8_t(g), h};
  }
}
// ---- end hybrid banks ----

void SmRegs::reserve(unsigned warp, unsigned nslots) {
  Slot& s = slots_.at(warp);
  if (s.pred.size() < nslots) s.pred.resize(nslots, 0);
  if (!s.overflow.empty() && s.overflow.size() < size_t(nslots) * kWarpSize)
    s.overflow.resize(size_t(nslots) * kWarpSize, 0);
}

uint64_t* SmRegs::overflow_at(unsigned ws, unsigned slot) {
  Slot& s = slots_[ws];
  size_t need = (std::max<size_t>(slot + 1, s.pred.size())) * kWarpSize;
  if (s.overflow.size() < need) s.overflow.resize(need, 0);
  return s.overflow.data() + size_t(slot) * kWarpSize;
}

const SmRegs::Map& SmRegs::locate(unsigned ws, unsigned slot, unsigned& base) {
  static const Map kNone{};
  const func::Warp* w = slots_[ws].warp;
  base = 0;
  if (!w || w->frames.size() <= 1) return slot < kmap_->size() ? (*kmap_)[slot] : kNone;
  unsigned pb = 0;
  for (const func::Frame& fr : w->frames) {
    const ptx::Function* fn = fr.code->fn;
    if (slot >= fr.reg_base && slot < fr.reg_base + fn->regs.size()) {
      base = pb;
      return map_of(fn)[slot - fr.reg_base];
    }
    pb += fn->regs_allocator;
  }
  return kNone;
}

bool SmRegs::phys(unsigned ws, unsigned slot, unsigned& p, unsigned& width) {
  unsigned base;
  const Map& m = locate(ws, slot, base);
  if (m.where != Where::rf) return false;
  p = base + unsigned(m.phys);
  width = m.width;
  return p + width <= capacity(ws);
}

uint32_t* SmRegs::locate_entry(unsigned group, unsigned row, unsigned e, const Moved& mv, EntryLoc& at) {
  const unsigned span = rf_.span(), wpe = rf_.words_per_entry();
  if (!(mv.mask >> e & 1)) {
    at = EntryLoc{int32_t(group * span + e), int32_t(row)};
    return rf_.wreg(group, row) + e * wpe;
  }
  if (mv.spill) {
    at = EntryLoc{};
    return mv.spill + e * wpe;
  }
  at = EntryLoc{int32_t(unsigned(mv.group) * span + e), mv.row};
  return rf_.wreg(unsigned(mv.group), unsigned(mv.row)) + e * wpe;
}

const uint32_t* SmRegs::fetch(unsigned ws, unsigned p, uint32_t tmp[32]) {
  if (latch_) {
    const Latch& l = *latch_;
    if (ws == l.ws && p >= l.pbase) {
      const uint16_t* end = l.phys + l.n;
      const uint16_t* it = std::lower_bound(l.phys, end, uint16_t(p - l.pbase));
      if (it != end && *it == p - l.pbase) return l.words + size_t(it - l.phys) * 32;
    }
    ++latch_miss_;
  }
  const unsigned g = group_of(ws, p), row = row_of(ws, p);
  if (bank_map_) {
    unsigned a, b;
    bank_map_->halves(ws, g, a, b);
    const Slot& s = slots_[ws];
    if (!s.permuted) {
      if (a == 2 * g && b == 2 * g + 1) return rf_.wreg(g, row);
      std::memcpy(tmp, half(a, row), 16 * 4);
      std::memcpy(tmp + 16, half(b, row), 16 * 4);
      return tmp;
    }
    const uint32_t* lo = half(a, row);
    const uint32_t* hi = half(b, row);
    for (unsigned l = 0; l < 32; ++l) tmp[l] = s.slot_of[l] < 16 ? lo[s.slot_of[l]] : hi[s.slot_of[l] - 16];
    return tmp;
  }
  const Moved mv = place_ ? place_->moved(g, row) : Moved{};
  if (!mv.mask) return rf_.wreg(g, row);
  const unsigned wpe = rf_.words_per_entry();
  EntryLoc at;
  for (unsigned e = 0; e < rf_.span(); ++e) std::memcpy(tmp + e * wpe, locate_entry(g, row, e, mv, at), wpe * 4);
  return tmp;
}

void SmRegs::read(unsigned warp, unsigned slot, uint64_t out[kWarpSize]) {
  unsigned base;
  const Map& m = locate(warp, slot, base);
  if (m.where == Where::pred) {
    uint32_t v = slot < slots_[warp].pred.size() ? slots_[warp].pred[slot] : 0;
    for (unsigned l = 0; l < kWarpSize; ++l) out[l] = v >> l & 1;
    return;
  }
  unsigned p = base + unsigned(m.phys);
  if (m.where == Where::rf && p + m.width <= capacity(warp)) {
    load_reg(warp, p, m.width, out);
    if (scalar_copies_) broadcast(warp, p, m.width, out);
    return;
  }
  const uint64_t* o = overflow_at(warp, slot);
  for (unsigned l = 0; l < kWarpSize; ++l) out[l] = o[l];
}

void SmRegs::load_reg(unsigned warp, unsigned p, unsigned width, uint64_t out[kWarpSize]) {
  uint32_t tlo[32], thi[32];
  const uint32_t* lo = fetch(warp, p, tlo);
  if (width == 1) {
    for (unsigned l = 0; l < kWarpSize; ++l) out[l] = lo[l];
    return;
  }
  const uint32_t* hi = fetch(warp, p + 1, thi);
  for (unsigned l = 0; l < kWarpSize; ++l) out[l] = uint64_t(lo[l]) | uint64_t(hi[l]) << 32;
}

void SmRegs::write(unsigned warp, unsigned slot, uint32_t mask, const uint64_t in[kWarpSize]) {
  unsigned base;
  const Map& m = locate(warp, slot, base);
  if (m.where == Where::pred) {
    Slot& s = slots_[warp];
    if (slot >= s.pred.size()) s.pred.resize(slot + 1, 0);
    uint32_t v = 0;
    for (unsigned l = 0; l < kWarpSize; ++l) v |= uint32_t(in[l] & 1) << l;
    s.pred[slot] = (s.pred[slot] & ~mask) | (v & mask);
    if (scalar_copies_ && mask) {
      if (slot >= s.ptok.size()) s.ptok.resize(slot + 1, 0);
      s.ptok[slot] = scalar_write_ && mask == ~0u;
    }
    return;
  }
  unsigned p = base + unsigned(m.phys);
  if (m.where == Where::rf && p + m.width <= capacity(warp)) {
    if (scalar_copies_ && mask && scalar_store(warp, p, m.width, mask, in)) return;
    store_reg(warp, p, m.width, mask, in);
    return;
  }
  uint64_t* o = overflow_at(warp, slot);
  for (unsigned l = 0; l < kWarpSize; ++l)
    if (mask >> l & 1) o[l] = in[l];
}

void SmRegs::store_reg(unsigned warp, unsigned p, unsigned width, uint32_t mask, const uint64_t in[kWarpSize]) {
  if (bank_map_) {
    const Slot& s = slots_[warp];
    uint64_t moved[kWarpSize];
    if (s.permuted) {  // lane l's value to slot slot_of[l]
      for (unsigned l = 0; l < kWarpSize; ++l) moved[s.slot_of[l]] = in[l];
      mask = slots(warp, mask);
      in = moved;
    }
    for (unsigned k = 0; k < width; ++k) {
      unsigned a, b;
      const unsigned row = row_of(warp, p + k);
      bank_map_->halves(warp, group_of(warp, p + k), a, b);
      store_half(a, row, mask & 0xFFFFu, in, 32 * k);
      store_half(b, row, mask >> 16, in + 16, 32 * k);
    }
    return;
  }
  store(group_of(warp, p), row_of(warp, p), mask, in, 0);
  if (width == 2) store(group_of(warp, p + 1), row_of(warp, p + 1), mask, in, 32);
}

void SmRegs::store(unsigned group, unsigned row, uint32_t mask, const uint64_t in[], unsigned shift) {
  const Moved mv = place_ ? place_->moved(group, row) : Moved{};
  if (!mv.mask && !faults_) {  // the common case: 32 lanes in place
    uint32_t* w = rf_.wreg(group, row);
    for (uint32_t mm = mask; mm; mm &= mm - 1) {
      unsigned l = unsigned(__builtin_ctz(mm));
      w[l] = uint32_t(in[l] >> shift);
    }
    return;
  }
  const unsigned wpe = rf_.words_per_entry();
  const uint32_t emask = wpe >= 32 ? ~0u : (1u << wpe) - 1;
  for (unsigned e = 0; e < rf_.span(); ++e) {
    const uint32_t lanes = mask >> (e * wpe) & emask;
    if (!lanes) continue;  // entry not written
    EntryLoc at;
    uint32_t* w = locate_entry(group, row, e, mv, at);
    for (uint32_t mm = lanes; mm; mm &= mm - 1) {
      unsigned i = unsigned(__builtin_ctz(mm));
      w[i] = uint32_t(in[e * wpe + i] >> shift);
    }
    if (faults_ && at.bank >= 0) corrupt(w, at);
  }
}

// ---- Bank organization ----
void SmRegs::set_bank_map(const BankMap* m) {
  if (m && (rf_.entry_bits() != 1024 || place_))
    throw std::invalid_argument("a bank map needs 1024-bit entries and no GR-Guard placement");
  bank_map_ = m;
}

void SmRegs::store_half(unsigned sb, unsigned row, uint32_t mask16, const uint64_t* in16, unsigned shift) {
  if (!mask16) return;
  uint32_t* w = half(sb, row);
  uint32_t want[16];
  std::memcpy(want, w, sizeof want);
  for (uint32_t mm = mask16; mm; mm &= mm - 1) {
    unsigned l = unsigned(__builtin_ctz(mm));
    want[l] = uint32_t(in16[l] >> shift);
  }
  const unsigned bank = sb / 2;
  if (!faults_ || !faults_->any(bank, row)) {
    std::memcpy(w, want, sizeof want);
    return;
  }
  // The half's cells: words [16 (sb % 2), +16) of the entry's fault masks.
  const uint32_t* bad = faults_->bad_mask(bank, row) + (sb % 2) * 16;
  const uint32_t* stuck = faults_->stuck_bits(bank, row) + (sb % 2) * 16;
  // SEC-DED per code word: the half, or shorter words (rf.secded_bits).
  const unsigned cw = std::min(16u, faults_->code_words());
  uint32_t got[16];
  unsigned left = 0, fixed = 0;
  for (unsigned first = 0; first < 16; first += cw) {
    unsigned wrong = 0;
    for (unsigned i = first; i < first + cw; ++i) {
      got[i] = (want[i] & ~bad[i]) | stuck[i];
      wrong += unsigned(__builtin_popcount(got[i] ^ want[i]));
    }
    if (secded_ && wrong == 1) {
      std::memcpy(got + first, want + first, cw * sizeof(uint32_t));
      ++fixed, wrong = 0;
    }
    left += wrong;
  }
  if (left) ++fcount_.corrupting;
  else if (fixed) ++fcount_.corrected;
  std::memcpy(w, got, sizeof got);
}
// ---- end bank organization ----

// ---- Uniform vectors ----
void SmRegs::set_scalar(unsigned lane, unsigned copies) {
  if (copies > 2 || lane + copies > kWarpSize)
    throw std::invalid_argument("uniform vectors: lane " + std::to_string(lane) + " with " + std::to_string(copies) +
                                " copies is outside the 32 lanes");
  scalar_lane_ = lane;
  scalar_copies_ = copies;
}

// A 32-bit register whose token is set is read as its scalar slot's value in
// every lane; with two copies, slots that differ are a detected error (the
// first copy is used: the paper's optional parity, which would pick the good
// one, is not modelled).
void SmRegs::broadcast(unsigned warp, unsigned p, unsigned width, uint64_t out[kWarpSize]) {
  const Slot& s = slots_[warp];
  for (unsigned k = 0; k < width; ++k) {
    if (!s.tok[p + k]) continue;
    const unsigned sh = 32 * k;
    const uint64_t half = 0xFFFFFFFFull << sh;
    const uint64_t v = out[scalar_lane_] & half;
    if (scalar_copies_ == 2 && (out[scalar_lane_ + 1] & half) != v) ++scount_.copy_mismatches;
    for (unsigned l = 0; l < kWarpSize; ++l) out[l] = (out[l] & ~half) | v;
    ++scount_.broadcast_reads;
  }
}

// A uniform result stores its scalar slots only and sets the tokens. Any other
// write clears them; a divergent one first spreads each scalar to all lanes
// (the paper's copy-on-write), since the other lanes' cells are stale.
bool SmRegs::scalar_store(unsigned warp, unsigned p, unsigned width, uint32_t mask, const uint64_t in[kWarpSize]) {
  Slot& s = slots_[warp];
  if (scalar_write_ && mask == ~0u) {
    const uint32_t slots = scalar_copies_ == 2 ? 3u << scalar_lane_ : 1u << scalar_lane_;
    store_reg(warp, p, width, slots, in);
    for (unsigned k = 0; k < width; ++k) s.tok[p + k] = 1;
    scount_.scalar_writes += width;
    return true;
  }
  bool tok = false;
  for (unsigned k = 0; k < width; ++k) tok = tok || s.tok[p + k];
  if (!tok) return false;
  if (mask != ~0u) {
    for (unsigned k = 0; k < width; ++k) {
      if (!s.tok[p + k]) continue;
      uint64_t v[kWarpSize];
      load_reg(warp, p + k, 1, v);
      broadcast(warp, p + k, 1, v);
      store_reg(warp, p + k, 1, ~0u, v);
      ++scount_.expands;
    }
  }
  for (unsigned k = 0; k < width; ++k) s.tok[p + k] = 0;
  return false;
}
// ---- end uniform vectors ----

// ---- RF faults ----
void SmRegs::set_faults(const reliability::RfFaults* f, bool secded) {
  if (f && (f->banks() != rf_.banks() || f->rows() != rf_.entries() || f->entry_bits() != rf_.entry_bits()))
    throw std::invalid_argument("rf fault map geometry differs from the register file's");
  faults_ = f;
  secded_ = secded;
}

void SmRegs::corrupt(uint32_t* words, EntryLoc at) {
  if (!faults_->any(unsigned(at.bank), unsigned(at.row))) return;
  uint32_t stored[32];
  unsigned fixed = 0;
  if (faults_->store(unsigned(at.bank), unsigned(at.row), words, stored, secded_, fixed) == 0) {
    if (fixed) ++fcount_.corrected;
    return;
  }
  ++fcount_.corrupting;
  std::memcpy(words, stored, rf_.words_per_entry() * sizeof(uint32_t));
}
// ---- end RF faults ----

}  // namespace relgpu::sm
