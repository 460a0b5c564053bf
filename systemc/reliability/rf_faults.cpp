#include "reliability/rf_faults.h"

#include <stdexcept>
#include <string>

namespace relgpu::reliability {

RfFaults::RfFaults(unsigned banks, unsigned rows, unsigned entry_bits, unsigned code_bits)
    : banks_(banks), rows_(rows), bits_(entry_bits), words_((entry_bits + 31) / 32),
      code_words_(code_bits ? code_bits / 32 : words_), index_(size_t(banks) * rows, -1) {
  if (code_bits && (code_bits % 32 || entry_bits % code_bits))
    throw std::invalid_argument("SEC-DED code word of " + std::to_string(code_bits) +
                                " bits: not a multiple of 32 that divides the " + std::to_string(entry_bits) +
                                "-bit entry");
}

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
  ++e.count;
  const unsigned first = bit / 32 / code_words_ * code_words_;
  unsigned in_word = 0;
  for (unsigned w = first; w < first + code_words_; ++w) in_word += unsigned(__builtin_popcount(e.mask[w]));
  if (in_word >= 2 && !e.faulty) {
    e.faulty = true;
    ++faulty_entries_;
  }
}

bool RfFaults::faulty(unsigned bank, unsigned row) const {
  int32_t ix = index_[size_t(bank) * rows_ + row];
  return ix >= 0 && entries_[size_t(ix)].faulty;
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

unsigned RfFaults::store(unsigned bank, unsigned row, const uint32_t* intended, uint32_t* stored, bool secded,
                         unsigned& corrected) const {
  corrected = 0;
  int32_t ix = index_[size_t(bank) * rows_ + row];
  if (ix < 0) {
    for (unsigned w = 0; w < words_; ++w) stored[w] = intended[w];
    return 0;
  }
  const Entry& e = entries_[size_t(ix)];
  unsigned left = 0;
  for (unsigned first = 0; first < words_; first += code_words_) {
    unsigned diff = 0;
    for (unsigned w = first; w < first + code_words_; ++w) {
      stored[w] = (intended[w] & ~e.mask[w]) | e.stuck[w];
      diff += unsigned(__builtin_popcount(stored[w] ^ intended[w]));
    }
    // SEC-DED over the code word: one wrong bit is corrected on the way in
    // (the check bits are computed from the intended value; the decoder of
    // the next read flips it back, which is the same as storing the
    // intended value). Two or more: detected at best, the wrong value is
    // what reads see.
    if (secded && diff == 1) {
      for (unsigned w = first; w < first + code_words_; ++w) stored[w] = intended[w];
      ++corrected;
      diff = 0;
    }
    left += diff;
  }
  return left;
}

std::vector<uint64_t> RfFaults::histogram() const {
  std::vector<uint64_t> h(bits_ + 1, 0);
  h[0] = entries() - entries_.size();
  for (const Entry& e : entries_) ++h[e.count];
  return h;
}

}  // namespace relgpu::reliability
