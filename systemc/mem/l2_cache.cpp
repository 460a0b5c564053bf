#include "mem/l2_cache.h"

#include <algorithm>
#include <cstring>

namespace relgpu::mem {

// Allocations are 256-B aligned and separated by guard space (func/memory.h),
// so a 128-B line meets at most one allocation, starting at the line's start.
static uint8_t* line_host(func::GlobalMemory& g, uint64_t addr, uint64_t* n) {
  if (uint8_t* p = g.translate(addr, kLineBytes)) {
    *n = kLineBytes;
    return p;
  }
  const func::Allocation* a = g.find(addr);
  if (!a) return nullptr;
  *n = std::min<uint64_t>(kLineBytes, a->base + a->size - addr);
  return g.translate(addr, *n);
}

void load_line(func::GlobalMemory& g, uint64_t addr, uint8_t* buf) {
  uint64_t n = 0;
  const uint8_t* p = line_host(g, addr, &n);
  if (p) std::memcpy(buf, p, n);
  if (n < kLineBytes) std::memset(buf + n, 0, kLineBytes - n);
}

static bool bit(const uint64_t* m, uint64_t i) { return (m[i / 64] >> (i % 64)) & 1; }

void store_line(func::GlobalMemory& g, uint64_t addr, const uint8_t* buf, uint64_t skip_lo, uint64_t skip_hi,
                const uint64_t* mask) {
  uint64_t n = 0;
  uint8_t* p = line_host(g, addr, &n);
  if (!p) return;
  if (!mask && (skip_hi <= addr || skip_lo >= addr + n)) {
    std::memcpy(p, buf, n);
    return;
  }
  for (uint64_t i = 0; i < n; ++i)
    if ((addr + i < skip_lo || addr + i >= skip_hi) && (!mask || bit(mask, i))) p[i] = buf[i];
}

// The written bytes of a partial line, or nullptr for a whole one.
static const uint64_t* held(const L2Cache::Line& l) { return l.partial ? l.wmask : nullptr; }

void L2Cache::fill(int i) {
  Line& l = lines_[i];
  if (!l.partial) {
    load_line(gmem_, l.addr, data(i));
    return;
  }
  uint8_t buf[kLineBytes];
  load_line(gmem_, l.addr, buf);
  uint8_t* d = data(i);
  for (unsigned b = 0; b < kLineBytes; ++b)
    if (!bit(l.wmask, b)) d[b] = buf[b];
  l.partial = false;
}

void L2Cache::written(int i, const uint64_t mask[2]) {
  Line& l = lines_[i];
  l.wmask[0] |= mask[0], l.wmask[1] |= mask[1];
  if (l.wmask[0] == ~uint64_t(0) && l.wmask[1] == ~uint64_t(0)) l.partial = false;
}

L2Cache::L2Cache(const config::Config& cfg, const AddressMap& map, func::GlobalMemory& gmem)
    : sets_(unsigned(cfg.get(kL2Sets))), ways_(unsigned(cfg.get(kL2Ways))), map_(map), gmem_(gmem) {
  if (cfg.get(kL2LineBytes) != kLineBytes)
    throw InputError("l2.line_bytes must be " + std::to_string(kLineBytes));
  lines_.resize(size_t(sets_) * ways_);
  data_.assign(lines_.size() * kLineBytes, 0);
}

int L2Cache::lookup(uint64_t addr) const {
  size_t base = size_t(set_of(addr)) * ways_;
  for (unsigned w = 0; w < ways_; ++w) {
    const Line& l = lines_[base + w];
    if (l.st != State::invalid && l.addr == addr) return int(base + w);
  }
  return -1;
}

int L2Cache::victim(uint64_t addr) const {
  size_t base = size_t(set_of(addr)) * ways_;
  int best = -1, gated = -1;
  for (unsigned w = 0; w < ways_; ++w) {
    const Line& l = lines_[base + w];
    if (l.st == State::invalid) return int(base + w);
    if (l.st == State::gated && (gated < 0 || l.lru < lines_[gated].lru)) gated = int(base + w);
    if (l.st == State::valid && (best < 0 || l.lru < lines_[best].lru)) best = int(base + w);
  }
  return gated >= 0 ? gated : best;
}

bool L2Cache::replace(int i, uint64_t addr, State st) {
  Line& l = lines_[i];
  bool wb = l.st == State::valid && l.dirty;
  if (wb) store_line(gmem_, l.addr, data(i), 0, 0, held(l));
  powered_ += unsigned(powered(st)) - unsigned(powered(l.st));
  l.addr = addr;
  l.st = st;
  l.dirty = false;
  l.mshr = -1;
  l.count = 0;
  l.gate_pending = false;
  l.woken = false;
  l.partial = false;
  l.wmask[0] = l.wmask[1] = 0;
  touch(i);
  return wb;
}

bool L2Cache::gate(int i) {
  Line& l = lines_[i];
  bool wb = l.dirty;
  if (wb) store_line(gmem_, l.addr, data(i), 0, 0, held(l));
  l.partial = false;  // its written bytes are in memory now; a wake refetches the line
  if (powered(l.st)) --powered_;
  l.st = State::gated;
  l.dirty = false;
  l.gate_pending = false;
  return wb;
}

void L2Cache::wake(int i) {
  Line& l = lines_[i];
  if (!powered(l.st)) ++powered_;
  l.st = State::reserved;
  l.dirty = false;
  l.woken = true;
  touch(i);
}

void L2Cache::new_kernel(bool drop_clean) {
  for (Line& l : lines_) {
    l.count = 0;
    l.gate_pending = false;
    l.woken = false;
    if (l.st == State::gated) l.st = State::invalid;
    if (drop_clean && l.st == State::valid && !l.dirty && !l.partial) {
      l.st = State::invalid;
      --powered_;
    }
  }
}

static bool overlaps(uint64_t line, uint64_t addr, uint64_t n) {
  return n == 0 || (line < addr + n && addr < line + kLineBytes);
}

unsigned L2Cache::write_dirty(uint64_t addr, uint64_t n, bool keep_dirty) {
  unsigned count = 0;
  for (size_t i = 0; i < lines_.size(); ++i) {
    Line& l = lines_[i];
    if (l.st != State::valid || !l.dirty || !overlaps(l.addr, addr, n)) continue;
    store_line(gmem_, l.addr, data(int(i)), 0, 0, held(l));
    l.dirty = keep_dirty;
    ++count;
  }
  return count;
}

unsigned L2Cache::flush(uint64_t addr, uint64_t n) { return write_dirty(addr, n, false); }

unsigned L2Cache::copy_out(uint64_t addr, uint64_t n) { return n ? write_dirty(addr, n, true) : 0; }

bool L2Cache::clean(int i) {
  Line& l = lines_[i];
  if (l.st != State::valid || !l.dirty) return false;
  store_line(gmem_, l.addr, data(i));
  l.dirty = false;
  return true;
}

unsigned L2Cache::invalidate(uint64_t addr, uint64_t n) {
  unsigned count = 0;
  if (n == 0) return 0;
  for (size_t i = 0; i < lines_.size(); ++i) {
    Line& l = lines_[i];
    if ((l.st != State::valid && l.st != State::gated) || !overlaps(l.addr, addr, n)) continue;
    if (l.dirty) store_line(gmem_, l.addr, data(int(i)), addr, addr + n, held(l));
    if (powered(l.st)) --powered_;
    l.st = State::invalid;
    l.dirty = false;
    ++count;
  }
  return count;
}

}  // namespace relgpu::mem
