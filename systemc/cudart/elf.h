// What `relgpu exec` needs to know about a program before it runs it: is it
// an ELF executable, which shared libraries it needs, and whether it carries
// CUDA device code and the CUDA runtime linked in statically.
#pragma once
#include <string>
#include <vector>

namespace relgpu::cudart {

struct ElfInfo {
  bool is_elf = false;              // false: a script or other file; nothing else is set
  std::vector<std::string> needed;  // DT_NEEDED
  std::string rpath, runpath;       // DT_RPATH, DT_RUNPATH
  std::string soname;               // DT_SONAME (libraries)
  bool has_fatbin = false;          // a .nv_fatbin or .nvFatBinSegment section
  bool defines_cudart = false;      // defines cudaMalloc or __cudaRegisterFatBinary itself
  // The libcudart.so.N it needs ("" if none).
  std::string cudart_needed() const;
  // Linked with the static CUDA runtime: CUDA code or runtime inside,
  // no libcudart.so needed.
  bool static_cudart() const { return cudart_needed().empty() && (has_fatbin || defines_cudart); }
};

// Reads `path` (an ELF64 little-endian file). Throws InputError naming
// the path if it cannot be read; a non-ELF file gives is_elf = false.
ElfInfo read_elf(const std::string& path);
// The same for a file's bytes already in memory; `path` is for messages.
ElfInfo parse_elf(const char* data, size_t size, const std::string& path);

}  // namespace relgpu::cudart
