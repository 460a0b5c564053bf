#include "sm/l1d.h"

#include <cstring>

namespace relgpu::sm {

using mem::kLineBytes;

L1D::L1D(unsigned sets, unsigned ways, unsigned mshrs, unsigned merge)
    : sets_(sets), ways_(ways), merge_(merge), lines_(size_t(sets) * ways),
      data_(size_t(sets) * ways * kLineWords, 0), mshrs_(mshrs), open_(mshrs, kNoLine) {
  for (auto& m : mshrs_) m.waiters.reserve(merge);
}

void L1D::invalidate_all() {
  for (auto& l : lines_) l.valid = false;
}

// Set index: line number modulo sets (GPGPU-Sim's linear set function).
L1D::Line* L1D::find(uint64_t line) {
  uint64_t n = line / kLineBytes;
  Line* set = &lines_[size_t(n % sets_) * ways_];
  for (unsigned w = 0; w < ways_; ++w)
    if (set[w].valid && set[w].tag == n) return &set[w];
  return nullptr;
}

const uint8_t* L1D::probe(uint64_t line) {
  Line* l = find(line);
  if (!l) return nullptr;
  l->lru = ++tick_;
  return reinterpret_cast<const uint8_t*>(data_.data() + size_t(l - lines_.data()) * kLineWords);
}

void L1D::evict(uint64_t line) {
  if (Line* l = find(line)) l->valid = false;
}

void L1D::fill(uint64_t line, const uint8_t* data) {
  uint64_t n = line / kLineBytes;
  Line* l = find(line);
  if (!l) {
    Line* set = &lines_[size_t(n % sets_) * ways_];
    const unsigned ways = reserved_ ? ways_ - spill_ways_ : ways_;
    if (ways == 0) return;  // no cache way left while GR-Guard spills
    l = &set[0];
    for (unsigned w = 0; w < ways; ++w) {
      if (!set[w].valid) { l = &set[w]; break; }
      if (set[w].lru < l->lru) l = &set[w];
    }
  }
  l->valid = true;
  l->tag = n;
  l->lru = ++tick_;
  std::memcpy(data_.data() + size_t(l - lines_.data()) * kLineWords, data, kLineBytes);
}

void L1D::reserve_last_way(bool reserved) {
  if (reserved && !reserved_)
    for (unsigned s = 0; s < sets_; ++s)
      for (unsigned w = ways_ - spill_ways_; w < ways_; ++w) lines_[size_t(s) * ways_ + w].valid = false;
  reserved_ = reserved;
}

int L1D::mergeable(uint64_t line) const {
  for (size_t i = 0; i < open_.size(); ++i)
    if (open_[i] == line && mshrs_[i].waiters.size() < merge_) return int(i);
  return -1;
}

int L1D::allocate(uint64_t line) {
  if (busy_ == mshrs_.size()) return -1;  // a stalled load retries every cycle
  for (size_t i = 0; i < mshrs_.size(); ++i) {
    Mshr& m = mshrs_[i];
    if (m.busy) continue;
    m.busy = true;
    m.stale = false;
    m.line = line;
    m.waiters.clear();
    open_[i] = line;
    ++busy_;
    return int(i);
  }
  return -1;
}

void L1D::release(int i) {
  Mshr& m = mshrs_[size_t(i)];
  m.busy = false;
  m.waiters.clear();
  open_[size_t(i)] = kNoLine;
  --busy_;
}

void L1D::all_stale() {
  for (size_t i = 0; i < mshrs_.size(); ++i)
    if (mshrs_[i].busy) mshrs_[i].stale = true, open_[i] = kNoLine;
}

void L1D::store_seen(uint64_t line) {
  for (size_t i = 0; i < mshrs_.size(); ++i)
    if (mshrs_[i].busy && mshrs_[i].line == line) mshrs_[i].stale = true, open_[i] = kNoLine;
}

}  // namespace relgpu::sm
