// The fatbinary reader of libcudart.so.13 (cudart/fatbin.h): fatbinaries
// made by nvcc 13 (systemc/tests/data/cudart, see sample.cu there) in each
// compression mode, synthetic ones compressed here, and malformed input.
#include <gtest/gtest.h>
#include <elf.h>
#include <lz4.h>
#include <zstd.h>

#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "common/error.h"
#include "test_paths.h"
#include "cudart/elf.h"
#include "cudart/fatbin.h"

using namespace relgpu;
using namespace relgpu::cudart;

namespace {

std::string data_path(const std::string& name) { return testpaths::source_path("systemc/tests/data/cudart/" + name); }

std::vector<uint8_t> read_file(const std::string& name) {
  std::ifstream f(data_path(name), std::ios::binary);
  EXPECT_TRUE(f.good()) << data_path(name);
  std::vector<uint8_t> v((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  while (v.size() % 8) v.push_back(0);  // the reader may read whole words
  return v;
}

Fatbin parse(const std::vector<uint8_t>& v) { return parse_fatbin(v.data(), v.size(), "test"); }

// A fatbinary with one PTX entry, built the way nvcc lays it out.
std::vector<uint8_t> make_fatbin(const std::string& ptx, const std::string& mode, uint32_t arch = 75) {
  std::string text = ptx + '\0';
  std::vector<char> payload;
  uint64_t flags = 0x11;
  uint32_t csize = 0;
  uint64_t usize = 0;
  if (mode == "zstd") {
    payload.resize(ZSTD_compressBound(text.size()));
    size_t n = ZSTD_compress(payload.data(), payload.size(), text.data(), text.size(), 3);
    payload.resize(n);
    flags |= 0x8000;
  } else if (mode == "lz4") {
    payload.resize(LZ4_compressBound(int(text.size())));
    int n = LZ4_compress_default(text.data(), payload.data(), int(text.size()), int(payload.size()));
    payload.resize(size_t(n));
    flags |= 0x2000;
  } else {
    payload.assign(text.begin(), text.end());
  }
  if (mode != "none") csize = uint32_t(payload.size()), usize = text.size();
  while (payload.size() % 8) payload.push_back(0);
  std::vector<uint8_t> e(0x50, 0);
  auto put = [&](size_t off, auto v) { std::memcpy(e.data() + off, &v, sizeof v); };
  put(0, uint16_t(1));
  put(2, uint16_t(0x101));
  put(4, uint32_t(0x50));
  put(8, uint64_t(payload.size()));
  put(16, csize);
  put(20, uint32_t(0x40));
  put(26, uint16_t(9));
  put(28, arch);
  put(40, flags);
  put(56, usize);
  std::vector<uint8_t> fb(16, 0);
  uint32_t magic = kFatbinMagic;
  uint16_t ver = 1, hs = 16;
  uint64_t body = e.size() + payload.size();
  std::memcpy(fb.data(), &magic, 4);
  std::memcpy(fb.data() + 4, &ver, 2);
  std::memcpy(fb.data() + 6, &hs, 2);
  std::memcpy(fb.data() + 8, &body, 8);
  fb.insert(fb.end(), e.begin(), e.end());
  fb.insert(fb.end(), payload.begin(), payload.end());
  return fb;
}

const char* kPtx = ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n";

}  // namespace

TEST(CudartFatbin, NvccDefaultIsZstd) {
  Fatbin fb = parse(read_file("sample.default.fatbin"));
  ASSERT_EQ(fb.entries.size(), 1u);
  EXPECT_EQ(fb.entries[0].compression, "zstd");
  const FatbinEntry* e = fb.pick_ptx();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->arch, 75u);
  EXPECT_NE(e->ptx.find(".entry _Z13relgpu_samplePfi"), std::string::npos) << e->ptx;
  EXPECT_NE(e->ptx.find(".const .align 4 .f32 scale"), std::string::npos);
  EXPECT_EQ(e->ptx.find('\0'), std::string::npos);
}

TEST(CudartFatbin, AllCompressionModesGiveTheSamePtx) {
  Fatbin z = parse(read_file("sample.default.fatbin"));
  Fatbin l = parse(read_file("sample.speed.fatbin"));
  Fatbin n = parse(read_file("sample.none.fatbin"));
  EXPECT_EQ(l.entries.at(0).compression, "lz4");
  EXPECT_EQ(n.entries.at(0).compression, "none");
  EXPECT_EQ(z.entries.at(0).ptx, l.entries.at(0).ptx);
  EXPECT_EQ(z.entries.at(0).ptx, n.entries.at(0).ptx);
}

TEST(CudartFatbin, SassAndPtxTogether) {
  Fatbin fb = parse(read_file("sample.multi.fatbin"));
  ASSERT_EQ(fb.entries.size(), 2u);
  EXPECT_EQ(fb.entries[0].kind, uint16_t(EntryKind::cubin));
  EXPECT_EQ(fb.describe(), "sm_75 SASS, compute_80 PTX");
  ASSERT_NE(fb.pick_ptx(), nullptr);
  EXPECT_EQ(fb.pick_ptx()->arch, 80u);
}

TEST(CudartFatbin, SassOnlyHasNoPtxAndTheMessageNamesTheFlag) {
  Fatbin fb = parse(read_file("sample.sass.fatbin"));
  EXPECT_EQ(fb.pick_ptx(), nullptr);
  std::string m = no_ptx_message(fb, "./app");
  EXPECT_NE(m.find("sm_75 SASS"), std::string::npos) << m;
  EXPECT_NE(m.find("-gencode arch=compute_75,code=compute_75"), std::string::npos) << m;
}

TEST(CudartFatbin, SyntheticCompressedAndPlain) {
  for (std::string mode : {"zstd", "lz4", "none"}) {
    Fatbin fb = parse(make_fatbin(kPtx, mode));
    ASSERT_NE(fb.pick_ptx(), nullptr) << mode;
    EXPECT_EQ(fb.pick_ptx()->ptx, kPtx) << mode;
    EXPECT_EQ(fb.pick_ptx()->compression, mode);
  }
}

TEST(CudartFatbin, PicksTheLowestArchitectureFrom75) {
  auto a = make_fatbin("A", "none", 52), b = make_fatbin("B", "zstd", 86), c = make_fatbin("C", "lz4", 75);
  // One fatbinary, three PTX entries: splice the entries of b and c after a's.
  std::vector<uint8_t> fb = a;
  fb.insert(fb.end(), b.begin() + 16, b.end());
  fb.insert(fb.end(), c.begin() + 16, c.end());
  uint64_t body = fb.size() - 16;
  std::memcpy(fb.data() + 8, &body, 8);
  Fatbin f = parse(fb);
  ASSERT_EQ(f.entries.size(), 3u);
  EXPECT_EQ(f.pick_ptx()->ptx, "C");
}

TEST(CudartFatbin, WrapperVersion1AndRdcRefused) {
  auto fb = make_fatbin(kPtx, "zstd");
  struct { int magic, version; const void* data; void* unused; } w{int(kWrapperMagic), 1, fb.data(), nullptr};
  EXPECT_EQ(parse_wrapper(&w, "app").pick_ptx()->ptx, kPtx);
  w.version = 2;
  try {
    parse_wrapper(&w, "app");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("-rdc"), std::string::npos) << e.what();
  }
  w.magic = 0x1234;
  EXPECT_THROW(parse_wrapper(&w, "app"), InputError);
}

TEST(CudartFatbin, MalformedInputIsAnErrorNotACrash) {
  auto fb = make_fatbin(kPtx, "zstd");
  auto bad_magic = fb;
  bad_magic[0] ^= 1;
  EXPECT_THROW(parse(bad_magic), InputError);
  // Truncated: the header claims more than there is.
  EXPECT_THROW(parse_fatbin(fb.data(), 40, "t"), InputError);
  // Corrupt ZSTD payload.
  auto corrupt = fb;
  for (size_t i = 16 + 0x50; i < 16 + 0x50 + 8; ++i) corrupt[i] ^= 0x5a;
  EXPECT_THROW(parse(corrupt), InputError);
  // An entry whose size runs past the end.
  auto big = fb;
  uint64_t huge = 1ull << 40;
  std::memcpy(big.data() + 16 + 8, &huge, 8);
  EXPECT_THROW(parse(big), InputError);
}

// Found by fuzz/fatbin_fuzz (fuzz/corpus/fatbin/oom-*, docs/hardening.md):
// 493 bytes declaring 400 MB of PTX made the reader allocate and zero that
// much before decompressing. LZ4 expands at most 255 times; ZSTD output now
// grows with what the frame holds.
TEST(CudartFatbin, DeclaredSizesTheDataDoesNotBackCostNoMemory) {
  auto declare = [](std::vector<uint8_t> fb, uint64_t usize) {
    std::memcpy(fb.data() + 16 + 56, &usize, 8);
    return fb;
  };
  auto error = [](const std::vector<uint8_t>& fb) {
    try {
      parse(fb);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  // First, while the peak RSS is still the test's own.
  struct rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  Fatbin fb = parse(declare(make_fatbin(kPtx, "zstd"), 1u << 28));
  getrusage(RUSAGE_SELF, &after);
  ASSERT_NE(fb.pick_ptx(), nullptr);
  EXPECT_EQ(fb.pick_ptx()->ptx, kPtx);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024) << "KiB more at peak for a 256 MiB declaration";

  auto lz4 = make_fatbin(kPtx, "lz4");
  uint32_t csize;
  std::memcpy(&csize, lz4.data() + 16 + 16, 4);
  EXPECT_EQ(error(declare(lz4, 1u << 28)), "test: compute_75 PTX: implausible uncompressed size 268435456 for " +
                                                std::to_string(csize) + " compressed bytes");

  EXPECT_EQ(error(declare(make_fatbin(kPtx, "zstd"), 10)), "test: compute_75 PTX: ZSTD data is longer than the "
                                                           "declared 10 bytes");
  auto cut = make_fatbin(kPtx, "zstd");
  std::memcpy(&csize, cut.data() + 16 + 16, 4);
  csize -= 8;
  std::memcpy(cut.data() + 16 + 16, &csize, 4);
  EXPECT_EQ(error(cut), "test: compute_75 PTX: ZSTD data is truncated");
}

TEST(CudartElf, ReadsNeededLibrariesAndFatbinSections) {
  // This test executable: an ELF with no CUDA in it.
  ElfInfo self = read_elf("/proc/self/exe");
  EXPECT_TRUE(self.is_elf);
  EXPECT_FALSE(self.has_fatbin);
  EXPECT_FALSE(self.static_cudart());
  EXPECT_TRUE(self.cudart_needed().empty());
  bool libc = false;
  for (auto& n : self.needed) libc |= n.rfind("libc.so", 0) == 0;
  EXPECT_TRUE(libc);
  // A text file is not an ELF file.
  EXPECT_FALSE(read_elf(data_path("sample.cu")).is_elf);
  EXPECT_THROW(read_elf(data_path("no-such-file")), InputError);
}

// Headers with no section table, found by fuzz/fatbin_fuzz
// (fuzz/corpus/fatbin/crash-*, docs/hardening.md): e_shnum = 0 copied zero
// headers from a null pointer, undefined behaviour that scripts/test
// --sanitize reports.
TEST(CudartElf, HeaderWithoutSectionsHasNothingToReport) {
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shoff = sizeof eh;
  eh.e_shnum = 0;
  std::vector<char> file(sizeof eh + 64, 0);
  std::memcpy(file.data(), &eh, sizeof eh);
  ElfInfo info = parse_elf(file.data(), file.size(), "app");
  EXPECT_TRUE(info.is_elf);
  EXPECT_FALSE(info.has_fatbin);
  EXPECT_TRUE(info.needed.empty());
  // A section table past the end of the file is malformed.
  eh.e_shnum = 3;
  std::memcpy(file.data(), &eh, sizeof eh);
  try {
    parse_elf(file.data(), file.size(), "app");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "app: malformed ELF file");
  }
}

#ifdef RELGPU_CUDART_LIB
TEST(CudartElf, TheLibraryIsLibcudartSo13) {
  // The built library: its soname is what programs ask for.
  ElfInfo lib = read_elf(RELGPU_CUDART_LIB);
  ASSERT_TRUE(lib.is_elf);
  EXPECT_EQ(lib.soname, "libcudart.so.13");
  EXPECT_TRUE(lib.defines_cudart);
  EXPECT_FALSE(lib.has_fatbin);
}
#endif
