// Reads the device code nvcc embeds in a host program.
//
// nvcc puts one fatbinary per translation unit in the ELF section
// .nv_fatbin and passes __cudaRegisterFatBinary a wrapper that points at it
// (section .nvFatBinSegment, fatbinary_section.h):
//   struct { int magic = 0x466243b1; int version = 1; const uint64_t* data; void* unused; }
// The fatbinary (layout as reverse-engineered; NVIDIA does not document it):
//   header   u32 magic 0xba55ed50, u16 version 1, u16 header size (16),
//            u64 size of the entries that follow
//   entry    u16 kind (1 = PTX, 2 = ELF/SASS cubin), u16 ?, u32 header size,
//            u64 payload size (padded), u32 compressed size, u32 ?,
//            u16 minor, u16 major (PTX ISA or cubin version), u32 arch (75 = sm_75),
//            u32 name offset, u32 name length, u64 flags, u64 0,
//            u64 uncompressed size, [more header], payload
//   flags    0x1 64-bit, 0x10 Linux, 0x2000 LZ4-compressed payload (nvcc
//            --compress-mode=speed), 0x8000 ZSTD-compressed payload (nvcc 13's
//            default; also size/balance); neither: plain text (--compress-mode=none)
// The PTX text is then the (decompressed) payload up to its first NUL.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace relgpu::cudart {

constexpr uint32_t kWrapperMagic = 0x466243b1;
constexpr uint32_t kFatbinMagic = 0xba55ed50;

enum class EntryKind : uint16_t { ptx = 1, cubin = 2 };

struct FatbinEntry {
  uint16_t kind = 0;           // EntryKind, or something newer
  uint32_t arch = 0;           // 75 for compute_75 / sm_75
  uint16_t major = 0, minor = 0;
  uint64_t flags = 0;
  std::string compression;     // "none", "zstd", "lz4"
  std::string ptx;             // kind == ptx: the text, decompressed
  uint64_t payload_bytes = 0;  // as stored
};

struct Fatbin {
  std::vector<FatbinEntry> entries;
  uint64_t total_bytes = 0;    // header + entries: where a following fatbin would start
  // The PTX to run: the lowest architecture at or above 75, else the lowest
  // overall; nullptr if there is none.
  const FatbinEntry* pick_ptx() const;
  // "sm_75 SASS, compute_75 PTX" for messages.
  std::string describe() const;
};

// Parses one fatbinary at `data` (`limit` bytes may be read; ~0 when the size
// is only known from the header). Throws relgpu::InputError naming `what`
// on anything malformed or undecompressable.
Fatbin parse_fatbin(const void* data, uint64_t limit, const std::string& what);

// The fatbinary a registration wrapper points at. Throws InputError for a
// wrong magic, and for version 2 (relocatable device code, -rdc=true).
Fatbin parse_wrapper(const void* wrapper, const std::string& what);

// The message for a program whose fatbinary has no PTX.
std::string no_ptx_message(const Fatbin& fb, const std::string& what);

}  // namespace relgpu::cudart
