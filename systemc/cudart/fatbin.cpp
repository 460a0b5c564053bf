#include "cudart/fatbin.h"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <sstream>

#include "common/error.h"

namespace relgpu::cudart {

namespace {

constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
constexpr uint64_t kMaxPtxBytes = 1ull << 30;  // sanity bound on a declared size

template <class T> T rd(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string arch_name(const FatbinEntry& e) {
  return (e.kind == uint16_t(EntryKind::ptx) ? "compute_" : "sm_") + std::to_string(e.arch);
}

// The output grows with what the frame really holds, so a header that
// declares a huge size costs nothing until the data backs it.
std::string zstd_decompress(const uint8_t* p, uint64_t n, uint64_t usize, const std::string& where) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> d(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!d) throw std::bad_alloc();
  ZSTD_inBuffer in{p, size_t(n), 0};
  std::string out;
  for (;;) {
    size_t have = out.size(), in_before = in.pos;
    out.resize(std::min<uint64_t>(usize, std::max<uint64_t>(2 * have, 1 << 16)));
    ZSTD_outBuffer o{out.data(), out.size(), have};
    size_t r = ZSTD_decompressStream(d.get(), &o, &in);
    out.resize(o.pos);
    if (ZSTD_isError(r)) throw InputError(where + "ZSTD decompression failed: " + ZSTD_getErrorName(r));
    if (r == 0) return out;  // the frame is complete
    if (o.pos == have && in.pos == in_before)  // no progress: out of room or out of input
      throw InputError(where + (o.pos == o.size ? "ZSTD data is longer than the declared " + std::to_string(usize) +
                                                      " bytes"
                                                : std::string("ZSTD data is truncated")));
  }
}

std::string decompress(const FatbinEntry& e, const uint8_t* p, uint64_t stored, uint64_t csize, uint64_t usize,
                       const std::string& what) {
  std::string out;
  const std::string where = what + ": " + arch_name(e) + " PTX: ";
  if (!(e.flags & (kFlagLz4 | kFlagZstd))) {
    out.assign(reinterpret_cast<const char*>(p), stored);
  } else {
    uint64_t n = csize && csize <= stored ? csize : stored;
    // LZ4 expands a byte into at most 255: a larger declared size is corrupt.
    bool lz4 = !(e.flags & kFlagZstd);
    if (usize == 0 || usize > kMaxPtxBytes || (lz4 && usize / 255 > n + 16))
      throw InputError(where + "implausible uncompressed size " + std::to_string(usize) + " for " +
                       std::to_string(n) + " compressed bytes");
    if (!lz4) {
      out = zstd_decompress(p, n, usize, where);
    } else {
      out.resize(usize);
      int r = LZ4_decompress_safe(reinterpret_cast<const char*>(p), out.data(), int(n), int(out.size()));
      if (r < 0) throw InputError(where + "LZ4 decompression failed (corrupt payload)");
      out.resize(size_t(r));
    }
  }
  size_t nul = out.find('\0');
  if (nul != std::string::npos) out.resize(nul);
  return out;
}

}  // namespace

const FatbinEntry* Fatbin::pick_ptx() const {
  const FatbinEntry* best = nullptr;
  auto better = [](const FatbinEntry& a, const FatbinEntry* b) {
    if (!b) return true;
    bool a_ok = a.arch >= 75, b_ok = b->arch >= 75;
    if (a_ok != b_ok) return a_ok;
    return a.arch < b->arch;
  };
  for (const auto& e : entries)
    if (e.kind == uint16_t(EntryKind::ptx) && better(e, best)) best = &e;
  return best;
}

std::string Fatbin::describe() const {
  if (entries.empty()) return "no device code";
  std::string s;
  for (const auto& e : entries) {
    if (!s.empty()) s += ", ";
    if (e.kind == uint16_t(EntryKind::ptx)) s += "compute_" + std::to_string(e.arch) + " PTX";
    else if (e.kind == uint16_t(EntryKind::cubin)) s += "sm_" + std::to_string(e.arch) + " SASS";
    else s += "kind-" + std::to_string(e.kind) + " image for arch " + std::to_string(e.arch);
  }
  return s;
}

Fatbin parse_fatbin(const void* data, uint64_t limit, const std::string& what) {
  const uint8_t* base = static_cast<const uint8_t*>(data);
  if (!base) throw InputError(what + ": null fatbinary");
  if (limit < 16) throw InputError(what + ": fatbinary truncated (" + std::to_string(limit) + " bytes)");
  uint32_t magic = rd<uint32_t>(base);
  if (magic != kFatbinMagic) {
    std::ostringstream s;
    s << what << ": not a CUDA fatbinary (magic 0x" << std::hex << magic << ", expected 0x" << kFatbinMagic << ")";
    throw InputError(s.str());
  }
  uint16_t hsize = rd<uint16_t>(base + 6);
  uint64_t body = rd<uint64_t>(base + 8);
  if (hsize < 16 || hsize > limit || body > limit - hsize)
    throw InputError(what + ": fatbinary header is malformed (header " + std::to_string(hsize) + " bytes, body " +
                     std::to_string(body) + " bytes)");
  Fatbin fb;
  fb.total_bytes = hsize + body;
  uint64_t off = hsize, end = hsize + body;
  while (off < end) {
    if (end - off < 64) throw InputError(what + ": fatbinary entry at offset " + std::to_string(off) + " is truncated");
    const uint8_t* h = base + off;
    FatbinEntry e;
    e.kind = rd<uint16_t>(h);
    uint32_t ehsize = rd<uint32_t>(h + 4);
    uint64_t psize = rd<uint64_t>(h + 8);
    uint32_t csize = rd<uint32_t>(h + 16);
    e.minor = rd<uint16_t>(h + 24);
    e.major = rd<uint16_t>(h + 26);
    e.arch = rd<uint32_t>(h + 28);
    e.flags = rd<uint64_t>(h + 40);
    uint64_t usize = rd<uint64_t>(h + 56);
    if (ehsize < 64 || ehsize > end - off || psize > end - off - ehsize)
      throw InputError(what + ": fatbinary entry at offset " + std::to_string(off) + " has inconsistent sizes");
    e.payload_bytes = psize;
    e.compression = e.flags & kFlagZstd ? "zstd" : e.flags & kFlagLz4 ? "lz4" : "none";
    if (e.kind == uint16_t(EntryKind::ptx)) e.ptx = decompress(e, h + ehsize, psize, csize, usize, what);
    fb.entries.push_back(std::move(e));
    off += ehsize + psize;
  }
  return fb;
}

Fatbin parse_wrapper(const void* wrapper, const std::string& what) {
  if (!wrapper) throw InputError(what + ": null fatbinary wrapper");
  const uint8_t* w = static_cast<const uint8_t*>(wrapper);
  uint32_t magic = rd<uint32_t>(w), version = rd<uint32_t>(w + 4);
  if (magic == kFatbinMagic) return parse_fatbin(wrapper, ~uint64_t(0) >> 1, what);  // a bare fatbinary
  if (magic != kWrapperMagic) {
    std::ostringstream s;
    s << what << ": __cudaRegisterFatBinary got an unknown structure (magic 0x" << std::hex << magic << ")";
    throw InputError(s.str());
  }
  if (version != 1)
    throw InputError(what + ": fatbinary wrapper version " + std::to_string(version) +
                     " (relocatable device code, nvcc -rdc=true / -dc) is not supported; build without -rdc");
  const void* data = rd<const void*>(w + 8);
  // The size is in the fatbinary's own header; its bounds are checked there.
  return parse_fatbin(data, ~uint64_t(0) >> 1, what);
}

std::string no_ptx_message(const Fatbin& fb, const std::string& what) {
  return what + " carries no PTX (it has " + fb.describe() +
         "), and relgpu simulates PTX. Rebuild it with PTX included, e.g. nvcc -cudart shared "
         "-gencode arch=compute_75,code=compute_75 (or add that -gencode to the ones you use)";
}

}  // namespace relgpu::cudart
