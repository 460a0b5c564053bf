#include "reliability/rf_faults.h"

#include <stdexcept>
#include <string>

namespace relgpu::reliability {

RfFaults::RfFaults(unsigned banks, unsigned rows, unsigned entry_bits)
    : banks_(banks), rows_(rows), bits_(entry_bits), words_((entry_bits + 31) / 32),
      index_(size_t(banks) * rows, -1) {}

void RfFaults::add_bad_cell(unsigned bank, unsigned row, unsigned bit, bool value) {
  if (bank >= banks_ || row >= rows_ || bit >= bits_)
    throw std::out_of_range("rf fault (" + std::to_string(bank) + ", " + std::to_string(row) + ", bit " +
                            std::to_string(bit) + ") outside the register file");
  int32_t& ix = index_[size_t(bank) * rows_ + row];
  if (ix < 0) {
    ix = int32_t(entries_.size());
    entries_.push_back({std::vector<uint32_t>(words_, 0), std::vector<uint32_t>(words_, 0), 0});
  }
  Entry& e = entries_[size_t(ix)];
  uint32_t m = 1u << (bit % 32);
  if (e.mask[bit / 32] & m) return;
  e.mask[bit / 32] |= m;
  if (value) e.stuck[bit / 32] |= m;
  ++bad_cells_;
  if (++e.count == 2) ++faulty_entries_;
}

unsigned RfFaults::bad_count(unsigned bank, unsigned row) const {
  int32_t ix = index_[size_t(bank) * rows_ + row];
  return ix < 0 ? 0 : entries_[size_t(ix)].count;
}

const uint32_t* RfFaults::bad_mask(unsigned bank, unsigned row) const {
  int32_t ix = index_[size_t(bank) * rows_ + row];
  return ix < 0 ? nullptr : entries_[size_t(ix)].mask.data();
}

const uint32_t* RfFaults::stuck_bits(unsigned bank, unsigned row) const {
  int32_t ix = index_[size_t(bank) * rows_ + row];
  return ix < 0 ? nullptr : entries_[size_t(ix)].stuck.data();
}

unsigned RfFaults::store(unsigned bank, unsigned row, const uint32_t* intended, uint32_t* stored,
                         bool secded) const {
  int32_t ix = index_[size_t(bank) * rows_ + row];
  if (ix < 0) {
    for (unsigned w = 0; w < words_; ++w) stored[w] = intended[w];
    return 0;
  }
  const Entry& e = entries_[size_t(ix)];
  unsigned diff = 0;
  for (unsigned w = 0; w < words_; ++w) {
    stored[w] = (intended[w] & ~e.mask[w]) | e.stuck[w];
    diff += unsigned(__builtin_popcount(stored[w] ^ intended[w]));
  }
  // SEC-DED over the entry: one wrong bit is corrected on the way in (the
  // check bits are computed from the intended value; the decoder of the
  // next read flips it back, which is the same as storing the intended
  // value). Two or more: detected at best, the wrong value is what reads see.
  if (secded && diff == 1) {
    for (unsigned w = 0; w < words_; ++w) stored[w] = intended[w];
    return 1;
  }
  return diff;
}

std::vector<uint64_t> RfFaults::histogram() const {
  std::vector<uint64_t> h(bits_ + 1, 0);
  h[0] = entries() - entries_.size();
  for (const Entry& e : entries_) ++h[e.count];
  return h;
}

}  // namespace relgpu::reliability
