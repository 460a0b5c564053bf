// Device memory of the functional model.
//
// Address spaces (all addresses are 64-bit):
//   global  flat device space; cudaMalloc allocations and module .global /
//           .const variables live here, each a separate allocation.
//           Allocations start at kHeapBase, are 256-B aligned and separated
//           by at least kGuardBytes of unmapped space, so an off-by-one
//           overrun or a NULL dereference faults. Freed space is never reused
//           (use-after-free faults too).
//   const   .const variables are global allocations marked read-only-const;
//           a const-space address equals its global address (cvta.const is
//           the identity).
//   shared  per CTA; a shared-space address is the byte offset in the CTA's
//           shared area (static variables first, dynamic area after).
//   local   per thread; a local-space address is the byte offset in that
//           thread's stack (kernel frame first, .func frames above it).
//   param   kernel parameters: the offset in the launch's parameter buffer;
//           a .func frame's parameters: kFrameParamBase + slot offset.
// Generic addressing: each non-global space has a 4-GiB window in the
// generic space; everything below kSharedWindow is global.
//   generic = kSharedWindow + shared address, kLocalWindow + local address,
//             kParamWindow + param address.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ptx/ir.h"

namespace relgpu::func {

constexpr uint64_t kHeapBase = 0x0000'0001'0000'0000ull;
constexpr uint64_t kGuardBytes = 256;
constexpr uint64_t kSharedWindow = 0x0000'7f00'0000'0000ull;
constexpr uint64_t kLocalWindow = 0x0000'7f80'0000'0000ull;
constexpr uint64_t kParamWindow = 0x0000'7fc0'0000'0000ull;
constexpr uint64_t kWindowBytes = 0x1'0000'0000ull;
constexpr uint64_t kFrameParamBase = 0x8000'0000ull;

// Which space a generic address falls in, and its address inside that space.
inline ptx::Space generic_space(uint64_t g) {
  if (g >= kSharedWindow && g < kSharedWindow + kWindowBytes) return ptx::Space::shared;
  if (g >= kLocalWindow && g < kLocalWindow + kWindowBytes) return ptx::Space::local;
  if (g >= kParamWindow && g < kParamWindow + kWindowBytes) return ptx::Space::param;
  return ptx::Space::global;
}
uint64_t window_base(ptx::Space s);  // 0 for global/const

struct Allocation {
  uint64_t base = 0, size = 0;
  enum class Kind : uint8_t { heap, global_var, const_var } kind = Kind::heap;
  std::string label;                   // "cudaMalloc #3" or the variable name
  // calloc'd: pages the program never touches take no host memory, so a
  // large allocation costs what is used of it.
  std::unique_ptr<uint8_t, void (*)(void*)> bytes{nullptr, std::free};
};

class GlobalMemory {
 public:
  GlobalMemory() = default;
  GlobalMemory(const GlobalMemory&) = delete;
  GlobalMemory& operator=(const GlobalMemory&) = delete;

  uint64_t alloc(uint64_t bytes, Allocation::Kind kind, std::string label);
  // Throws InputError unless p is the base of a live allocation.
  void free(uint64_t p);

  // Host pointer to [addr, addr+n) if it lies inside one allocation, else
  // nullptr. Caches the last allocation hit (the common case in a loop).
  uint8_t* translate(uint64_t addr, uint64_t n) {
    if (last_ && addr >= last_->base && addr - last_->base + n <= last_->size && n <= last_->size)
      return last_->bytes.get() + (addr - last_->base);
    return translate_slow(addr, n);
  }
  // The allocation of the last successful translate().
  const Allocation* last_hit() const { return last_; }
  // The allocation containing addr (or nullptr), for messages and checks.
  const Allocation* find(uint64_t addr) const;
  // "no allocation at 0x..; nearest is 'cudaMalloc #2' [0x.., 0x..)" etc.
  std::string describe(uint64_t addr, uint64_t n) const;

  // Host-side copies; throw InputError naming `what` and the pointer.
  void write(uint64_t dst, const void* src, uint64_t n, const char* what);
  void read(void* dst, uint64_t src, uint64_t n, const char* what);
  void fill(uint64_t dst, int value, uint64_t n, const char* what);

  // Module-scope variables (index into Module::globals) -> address.
  void set_module_symbols(const ptx::Module* m, std::vector<uint64_t> addrs);
  uint64_t module_symbol(const ptx::Module* m, int32_t index) const;  // 0 if unknown

  uint64_t bytes_allocated() const { return live_bytes_; }
  // The live allocations, by address (the checkpoint runtime walks them).
  std::vector<const Allocation*> allocations() const {
    std::vector<const Allocation*> v;
    for (auto& [base, a] : allocs_) v.push_back(&a);
    return v;
  }

  // Device-side malloc/free: blocks of one arena of heap_limit bytes,
  // allocated at the first malloc (cudaLimitMallocHeapSize; fixed from then
  // on, as on a GPU). heap_malloc returns 0 when the arena has no room;
  // heap_free returns false for a pointer it did not hand out.
  uint64_t heap_malloc(uint64_t n);
  bool heap_free(uint64_t p);
  uint64_t heap_limit = 8 << 20;
  uint64_t heap_base() const { return heap_base_; }

 private:
  uint64_t heap_base_ = 0;
  std::map<uint64_t, uint64_t> heap_used_, heap_free_;  // offset -> bytes
  uint8_t* translate_slow(uint64_t addr, uint64_t n);
  Allocation* checked(uint64_t p, uint64_t n, const char* what);
  std::map<uint64_t, Allocation> allocs_;   // by base
  Allocation* last_ = nullptr;
  uint64_t next_ = kHeapBase;
  uint64_t live_bytes_ = 0;
  unsigned heap_count_ = 0;
  std::map<const ptx::Module*, std::vector<uint64_t>> module_syms_;
};

std::string hex(uint64_t v);

}  // namespace relgpu::func
