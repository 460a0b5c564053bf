// The fault map of one SM's register file at one supply: per (bank, row)
// entry, which cells are bad (Vdd below their Vmin) and the value each bad
// cell is stuck at, plus the SEC-DED rule that decides what a write stores.
//
// Fault model (our choice, the paper says only "faulty"): a cell below its
// Vmin cannot be written nor hold its state, so it reads back a fixed value,
// stuck-at-0 or stuck-at-1 with equal probability per cell (seeded, and the
// same for a cell at every Vdd). An entry with 2 or more bad cells is faulty
// (SEC-DED corrects one bit, §6.1.2).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace relgpu::reliability {

class RfFaults {
 public:
  RfFaults(unsigned banks, unsigned rows, unsigned entry_bits);

  unsigned banks() const { return banks_; }
  unsigned rows() const { return rows_; }
  unsigned entry_bits() const { return bits_; }
  unsigned words() const { return words_; }

  // Marks cell `bit` of entry (bank, row) bad, stuck at `value`.
  void add_bad_cell(unsigned bank, unsigned row, unsigned bit, bool value);

  // Fast path: does the entry have any bad cell?
  bool any(unsigned bank, unsigned row) const { return index_[size_t(bank) * rows_ + row] >= 0; }
  unsigned bad_count(unsigned bank, unsigned row) const;
  bool faulty(unsigned bank, unsigned row) const { return bad_count(bank, row) >= 2; }
  // words() words each, bit i of the entry = bit i%32 of word i/32; nullptr
  // for an entry without bad cells.
  const uint32_t* bad_mask(unsigned bank, unsigned row) const;
  const uint32_t* stuck_bits(unsigned bank, unsigned row) const;

  // What a write of `intended` (words() words) to the entry leaves in its
  // cells: the stuck bits replace the bad cells' bits. With `secded`, a
  // result that differs from `intended` in exactly one bit is corrected
  // (stores `intended`). Writes the result to `stored`; returns the number of
  // bad cells whose stuck value differs from the intended bit, before any
  // correction (so: 1 with `secded` = corrected; otherwise >0 = corrupted).
  unsigned store(unsigned bank, unsigned row, const uint32_t* intended, uint32_t* stored, bool secded) const;

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
  struct Entry { std::vector<uint32_t> mask, stuck; unsigned count = 0; };
  unsigned banks_, rows_, bits_, words_;
  std::vector<int32_t> index_;  // per (bank, row): into entries_, or -1
  std::vector<Entry> entries_;
  uint64_t bad_cells_ = 0, faulty_entries_ = 0;
  double vdd_ = 1.0;
};

}  // namespace relgpu::reliability
