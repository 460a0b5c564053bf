// The fault map of one SM's register file at one supply: per (bank, row)
// entry, which cells are bad (Vdd below their Vmin) and the value each bad
// cell is stuck at, plus the SEC-DED rule that decides what a write stores.
//
// Fault model (our choice, the paper says only "faulty"): a cell below its
// Vmin cannot be written nor hold its state, so it reads back a fixed value,
// stuck-at-0 or stuck-at-1 with equal probability per cell (seeded, and the
// same for a cell at every Vdd). SEC-DED corrects one bit per code word: the
// paper's word is the whole entry, so an entry with 2 or more bad cells is
// faulty (§6.1.2); with shorter code words (rf.secded_bits, an ablation) an
// entry is faulty when one of its code words has 2 or more.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace relgpu::reliability {

class RfFaults {
 public:
  // code_bits: SEC-DED code word, a multiple of 32 that divides entry_bits;
  // 0 = the whole entry.
  RfFaults(unsigned banks, unsigned rows, unsigned entry_bits, unsigned code_bits = 0);

  unsigned banks() const { return banks_; }
  unsigned rows() const { return rows_; }
  unsigned entry_bits() const { return bits_; }
  unsigned words() const { return words_; }
  unsigned code_words() const { return code_words_; }  // 32-bit words per SEC-DED code word

  // Marks cell `bit` of entry (bank, row) bad, stuck at `value`.
  void add_bad_cell(unsigned bank, unsigned row, unsigned bit, bool value);

  // Fast path: does the entry have any bad cell?
  bool any(unsigned bank, unsigned row) const { return index_[size_t(bank) * rows_ + row] >= 0; }
  unsigned bad_count(unsigned bank, unsigned row) const;
  // A code word of the entry has 2 or more bad cells: SEC-DED cannot hide them.
  bool faulty(unsigned bank, unsigned row) const;
  // words() words each, bit i of the entry = bit i%32 of word i/32; nullptr
  // for an entry without bad cells.
  const uint32_t* bad_mask(unsigned bank, unsigned row) const;
  const uint32_t* stuck_bits(unsigned bank, unsigned row) const;

  // What a write of `intended` (words() words) to the entry leaves in its
  // cells: the stuck bits replace the bad cells' bits. With `secded`, each
  // code word of the result that differs from `intended` in exactly one bit
  // is corrected (stores `intended`'s). Writes the result to `stored`;
  // returns the number of wrong bits left in it; `corrected` gets the number
  // of code words SEC-DED corrected.
  unsigned store(unsigned bank, unsigned row, const uint32_t* intended, uint32_t* stored, bool secded,
                 unsigned& corrected) const;

  // Summary. vdd: normalised supply this map is for.
  uint64_t cells() const { return uint64_t(banks_) * rows_ * bits_; }
  uint64_t entries() const { return uint64_t(banks_) * rows_; }
  uint64_t faulty_cells() const { return bad_cells_; }
  uint64_t faulty_entries() const { return faulty_entries_; }
  double failure_rate() const { return cells() ? double(bad_cells_) / double(cells()) : 0.0; }
  double vdd() const { return vdd_; }
  void set_vdd(double v) { vdd_ = v; }
  // Entries with exactly k bad cells, k = 0..bits (Fig. 6.3's bins).
  std::vector<uint64_t> histogram() const;

 private:
  struct Entry { std::vector<uint32_t> mask, stuck; unsigned count = 0; bool faulty = false; };
  unsigned banks_, rows_, bits_, words_, code_words_;
  std::vector<int32_t> index_;  // per (bank, row): into entries_, or -1
  std::vector<Entry> entries_;
  uint64_t bad_cells_ = 0, faulty_entries_ = 0;
  double vdd_ = 1.0;
};

}  // namespace relgpu::reliability
