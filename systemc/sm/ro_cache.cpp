#include "sm/ro_cache.h"

#include <unordered_map>


namespace relgpu::sm {

uint64_t code_address(const ptx::Function* fn, uint32_t pc, size_t ninsn) {
  // One simulation thread per process: a plain map is enough.
  static std::unordered_map<const ptx::Function*, uint64_t> base;
  static uint64_t next = kCodeBase;
  auto it = base.find(fn);
  if (it == base.end()) {
    it = base.emplace(fn, next).first;
    next += (ninsn * kInsnBytes + 255) / 256 * 256 + 256;
  }
  return it->second + uint64_t(pc) * kInsnBytes;
}

ReadOnlyCache::ReadOnlyCache(unsigned sets, unsigned ways, unsigned line_bytes, unsigned mshrs)
    : sets_(sets), ways_(ways), line_(line_bytes), lines_(size_t(sets) * ways), mshr_(mshrs) {}

bool ReadOnlyCache::probe(uint64_t line) {
  uint64_t tag = line / line_;
  Line* set = &lines_[size_t(tag % sets_) * ways_];
  for (unsigned w = 0; w < ways_; ++w)
    if (set[w].valid && set[w].tag == tag) {
      set[w].lru = ++tick_;
      return true;
    }
  return false;
}

void ReadOnlyCache::fill(uint64_t line) {
  uint64_t tag = line / line_;
  Line* set = &lines_[size_t(tag % sets_) * ways_];
  Line* v = &set[0];
  for (unsigned w = 0; w < ways_; ++w) {
    if (set[w].valid && set[w].tag == tag) return;
    if (!set[w].valid || (v->valid && set[w].lru < v->lru)) v = &set[w];
  }
  *v = {tag, ++tick_, true};
}

int ReadOnlyCache::pending(uint64_t line) const {
  for (size_t i = 0; i < mshr_.size(); ++i)
    if (mshr_[i].busy && mshr_[i].line == line) return int(i);
  return -1;
}

int ReadOnlyCache::allocate(uint64_t line) {
  for (size_t i = 0; i < mshr_.size(); ++i)
    if (!mshr_[i].busy) {
      mshr_[i].busy = true;
      mshr_[i].line = line;
      mshr_[i].waiters.clear();
      ++busy_;
      return int(i);
    }
  return -1;
}

uint64_t ReadOnlyCache::release(int m) {
  Mshr& x = mshr_[size_t(m)];
  x.busy = false;
  --busy_;
  return x.line;
}

}  // namespace relgpu::sm
