#include "cudart/elf.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "common/error.h"

namespace relgpu::cudart {

std::string ElfInfo::cudart_needed() const {
  for (const auto& n : needed)
    if (n.rfind("libcudart.so", 0) == 0) return n;
  return "";
}

ElfInfo read_elf(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot open");
  std::vector<char> buf((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return parse_elf(buf.data(), buf.size(), path);
}

ElfInfo parse_elf(const char* b, size_t size, const std::string& path) {
  ElfInfo info;
  if (size < sizeof(Elf64_Ehdr) || std::memcmp(b, ELFMAG, SELFMAG) != 0) return info;
  if (b[EI_CLASS] != ELFCLASS64 || b[EI_DATA] != ELFDATA2LSB)
    throw InputError(path + ": only 64-bit little-endian ELF programs are supported");
  info.is_elf = true;
  Elf64_Ehdr eh;
  std::memcpy(&eh, b, sizeof eh);
  auto bad = [&] { return InputError(path + ": malformed ELF file"); };
  // No section table (or more than 0xff00 sections, counted elsewhere): nothing to learn.
  if (eh.e_shoff == 0 || eh.e_shnum == 0 || eh.e_shentsize != sizeof(Elf64_Shdr)) return info;
  if (eh.e_shoff > size || uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) > size - eh.e_shoff) throw bad();
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  std::memcpy(sh.data(), b + eh.e_shoff, sh.size() * sizeof(Elf64_Shdr));
  auto in_file = [&](const Elf64_Shdr& s) { return s.sh_type != SHT_NOBITS && s.sh_offset <= size && s.sh_size <= size - s.sh_offset; };
  auto str = [&](const Elf64_Shdr& strtab, uint64_t off) -> std::string {
    if (!in_file(strtab) || off >= strtab.sh_size) return "";
    const char* s = b + strtab.sh_offset + off;
    return std::string(s, strnlen(s, strtab.sh_size - off));
  };
  const Elf64_Shdr* shstr = eh.e_shstrndx < sh.size() ? &sh[eh.e_shstrndx] : nullptr;
  for (const auto& s : sh) {
    std::string name = shstr ? str(*shstr, s.sh_name) : "";
    if (name == ".nv_fatbin" || name == ".nvFatBinSegment") info.has_fatbin = true;
    if (!in_file(s) || s.sh_link >= sh.size()) continue;
    const Elf64_Shdr& link = sh[s.sh_link];
    if (s.sh_type == SHT_DYNAMIC) {
      for (uint64_t o = 0; o + sizeof(Elf64_Dyn) <= s.sh_size; o += sizeof(Elf64_Dyn)) {
        Elf64_Dyn d;
        std::memcpy(&d, b + s.sh_offset + o, sizeof d);
        if (d.d_tag == DT_NULL) break;
        if (d.d_tag == DT_NEEDED) info.needed.push_back(str(link, d.d_un.d_val));
        if (d.d_tag == DT_RPATH) info.rpath = str(link, d.d_un.d_val);
        if (d.d_tag == DT_RUNPATH) info.runpath = str(link, d.d_un.d_val);
        if (d.d_tag == DT_SONAME) info.soname = str(link, d.d_un.d_val);
      }
    } else if (s.sh_type == SHT_SYMTAB || s.sh_type == SHT_DYNSYM) {
      for (uint64_t o = 0; o + sizeof(Elf64_Sym) <= s.sh_size; o += sizeof(Elf64_Sym)) {
        Elf64_Sym y;
        std::memcpy(&y, b + s.sh_offset + o, sizeof y);
        if (y.st_shndx == SHN_UNDEF) continue;
        std::string n = str(link, y.st_name);
        if (n == "cudaMalloc" || n == "__cudaRegisterFatBinary") info.defines_cudart = true;
      }
    }
  }
  return info;
}

}  // namespace relgpu::cudart
