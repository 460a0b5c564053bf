// Arbitrary bytes as the device code of a CUDA program, read (1) as the
// program file `relgpu exec` inspects (parse_elf), (2) as one fatbinary, as
// __cudaRegisterFatBinary gets it, and (3) when they are an ELF file with a
// .nv_fatbin section: the fatbinaries in that section one after another, as
// nvcc lays them out.
#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "common/error.h"
#include "cudart/elf.h"
#include "cudart/fatbin.h"
#include "inputs.h"

namespace relgpu::fuzz {

using namespace cudart;

namespace {

// What the runtime does with one fatbinary at registration.
uint64_t register_one(const uint8_t* p, uint64_t n) {
  Fatbin fb = parse_fatbin(p, n, "fuzz");
  if (!fb.pick_ptx()) (void)no_ptx_message(fb, "fuzz");
  (void)fb.describe();
  return fb.total_bytes;
}

// The bytes of section `want`, or {nullptr, 0}; every bound checked here,
// since this harness reads the same malformed files.
std::pair<const uint8_t*, uint64_t> section(const uint8_t* b, size_t size, const char* want) {
  Elf64_Ehdr eh;
  if (size < sizeof eh) return {nullptr, 0};
  std::memcpy(&eh, b, sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
      uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) > size - eh.e_shoff || eh.e_shstrndx >= eh.e_shnum)
    return {nullptr, 0};
  auto shdr = [&](size_t i) {
    Elf64_Shdr s;
    std::memcpy(&s, b + eh.e_shoff + i * sizeof s, sizeof s);
    return s;
  };
  auto in_file = [&](const Elf64_Shdr& s) { return s.sh_offset <= size && s.sh_size <= size - s.sh_offset; };
  const Elf64_Shdr names = shdr(eh.e_shstrndx);
  if (!in_file(names)) return {nullptr, 0};
  const size_t len = std::strlen(want);
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr s = shdr(i);
    if (s.sh_name >= names.sh_size || names.sh_size - s.sh_name < len + 1) continue;
    if (std::memcmp(b + names.sh_offset + s.sh_name, want, len + 1) != 0) continue;
    if (in_file(s)) return {b + s.sh_offset, s.sh_size};
  }
  return {nullptr, 0};
}

}  // namespace

void fatbin_input(const uint8_t* data, size_t size) {
  ElfInfo info;
  try {
    info = parse_elf(reinterpret_cast<const char*>(data), size, "fuzz");
    (void)info.static_cudart();
  } catch (const InputError&) {
  }
  try {
    register_one(data, size);
  } catch (const InputError&) {
  }
  if (!info.has_fatbin) return;
  auto [sec, n] = section(data, size, ".nv_fatbin");
  // nvcc places each translation unit's fatbinary at an 8-byte boundary.
  for (uint64_t off = 0; sec && off + 16 <= n;) {
    try {
      uint64_t used = register_one(sec + off, n - off);
      if (used == 0) break;
      off += (used + 7) & ~uint64_t(7);
    } catch (const InputError&) {
      break;
    }
  }
}

}  // namespace relgpu::fuzz
