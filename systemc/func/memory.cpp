#include "func/memory.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "common/error.h"

namespace relgpu::func {

std::string hex(uint64_t v) {
  char b[24];
  snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

uint64_t window_base(ptx::Space s) {
  switch (s) {
    case ptx::Space::shared: return kSharedWindow;
    case ptx::Space::local: return kLocalWindow;
    case ptx::Space::param: return kParamWindow;
    default: return 0;
  }
}

uint64_t GlobalMemory::alloc(uint64_t bytes, Allocation::Kind kind, std::string label) {
  if (bytes > (uint64_t(1) << 40))
    throw InputError("device allocation of " + std::to_string(bytes) + " bytes is larger than 1 TiB");
  uint64_t base = next_;
  Allocation a;
  a.base = base;
  a.size = bytes;
  a.kind = kind;
  a.label = kind == Allocation::Kind::heap ? "cudaMalloc #" + std::to_string(++heap_count_) : std::move(label);
  a.bytes.reset(static_cast<uint8_t*>(std::calloc(bytes ? bytes : 1, 1)));
  if (!a.bytes) throw InputError("device allocation of " + std::to_string(bytes) + " bytes: the host has no memory for it");
  // 256-B aligned like cudaMalloc, with at least one guard gap before the next.
  next_ = (base + bytes + kGuardBytes + 255) & ~uint64_t(255);
  live_bytes_ += bytes;
  last_ = nullptr;
  allocs_.emplace(base, std::move(a));
  return base;
}

void GlobalMemory::free(uint64_t p) {
  auto it = allocs_.find(p);
  if (it == allocs_.end() || it->second.kind != Allocation::Kind::heap)
    throw InputError("free(" + hex(p) + "): not a pointer returned by malloc" +
                     (find(p) ? " (it points inside '" + find(p)->label + "')" : ""));
  live_bytes_ -= it->second.size;
  last_ = nullptr;
  allocs_.erase(it);
}

const Allocation* GlobalMemory::find(uint64_t addr) const {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  --it;
  if (addr - it->first < it->second.size) return &it->second;
  return nullptr;
}

uint8_t* GlobalMemory::translate_slow(uint64_t addr, uint64_t n) {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return nullptr;
  --it;
  Allocation& a = it->second;
  if (addr - a.base >= a.size || n > a.size - (addr - a.base)) return nullptr;
  last_ = &a;
  return a.bytes.get() + (addr - a.base);
}

std::string GlobalMemory::describe(uint64_t addr, uint64_t n) const {
  auto it = allocs_.upper_bound(addr);
  if (it != allocs_.begin()) {
    auto p = std::prev(it);
    const Allocation& a = p->second;
    if (addr - a.base < a.size)
      return "the access runs past the end of '" + a.label + "' [" + hex(a.base) + ", " + hex(a.base + a.size) +
             ")";
    std::string s = "no allocation there; the nearest below is '" + a.label + "' [" + hex(a.base) + ", " +
                    hex(a.base + a.size) + "), which ends " + std::to_string(addr - (a.base + a.size)) +
                    " bytes before";
    return s;
  }
  if (it != allocs_.end())
    return "no allocation there; the nearest above is '" + it->second.label + "' at " + hex(it->first);
  return "no allocation there (nothing is allocated)";
}

Allocation* GlobalMemory::checked(uint64_t p, uint64_t n, const char* what) {
  auto it = allocs_.upper_bound(p);
  if (it != allocs_.begin()) {
    Allocation& a = std::prev(it)->second;
    if (p - a.base < a.size || (n == 0 && p == a.base)) {
      if (n > a.size - (p - a.base))
        throw InputError(std::string(what) + ": " + std::to_string(n) + " bytes at device pointer " + hex(p) +
                         " run past the end of '" + a.label + "' (" + std::to_string(a.size) + " bytes at " +
                         hex(a.base) + ", " + std::to_string(a.size - (p - a.base)) + " bytes available)");
      return &a;
    }
  }
  throw InputError(std::string(what) + ": device pointer " + hex(p) + " is not inside any allocation (" +
                   describe(p, n) + ")");
}

void GlobalMemory::write(uint64_t dst, const void* src, uint64_t n, const char* what) {
  Allocation* a = checked(dst, n, what);
  if (n) std::memcpy(a->bytes.get() + (dst - a->base), src, n);
}

void GlobalMemory::read(void* dst, uint64_t src, uint64_t n, const char* what) {
  Allocation* a = checked(src, n, what);
  if (n) std::memcpy(dst, a->bytes.get() + (src - a->base), n);
}

void GlobalMemory::fill(uint64_t dst, int value, uint64_t n, const char* what) {
  Allocation* a = checked(dst, n, what);
  if (n) std::memset(a->bytes.get() + (dst - a->base), value, n);
}

void GlobalMemory::set_module_symbols(const ptx::Module* m, std::vector<uint64_t> addrs) {
  module_syms_[m] = std::move(addrs);
}

uint64_t GlobalMemory::module_symbol(const ptx::Module* m, int32_t index) const {
  auto it = module_syms_.find(m);
  if (it == module_syms_.end() || index < 0 || size_t(index) >= it->second.size()) return 0;
  return it->second[index];
}

uint64_t GlobalMemory::heap_malloc(uint64_t n) {
  if (!heap_base_) {
    heap_base_ = alloc(heap_limit, Allocation::Kind::global_var, "the device malloc heap (cudaLimitMallocHeapSize)");
    heap_free_[0] = heap_limit;
  }
  n = std::max<uint64_t>(16, (n + 15) / 16 * 16);  // 16-B aligned blocks, as CUDA's
  for (auto it = heap_free_.begin(); it != heap_free_.end(); ++it) {  // first fit
    if (it->second < n) continue;
    uint64_t off = it->first, left = it->second - n;
    heap_free_.erase(it);
    if (left) heap_free_[off + n] = left;
    heap_used_[off] = n;
    return heap_base_ + off;
  }
  return 0;
}

bool GlobalMemory::heap_free(uint64_t p) {
  if (!heap_base_ || p < heap_base_) return false;
  auto it = heap_used_.find(p - heap_base_);
  if (it == heap_used_.end()) return false;
  auto [off, n] = *it;
  heap_used_.erase(it);
  // Merge with the free neighbours.
  auto next = heap_free_.find(off + n);
  if (next != heap_free_.end()) n += next->second, heap_free_.erase(next);
  auto prev = heap_free_.lower_bound(off);
  if (prev != heap_free_.begin() && std::prev(prev)->first + std::prev(prev)->second == off) {
    std::prev(prev)->second += n;
  } else {
    heap_free_[off] = n;
  }
  return true;
}

}  // namespace relgpu::func
