// Register-file faults in the timed register file (sm/regfile.h): writes
// land with the stuck-at bits of the cells they are placed in, SEC-DED
// corrects one wrong bit per entry, placement moves an entry onto other
// cells, reads and bind() are untouched, and the counters say what happened.
#include <gtest/gtest.h>

#include "ptx/analysis.h"
#include "ptx/parser.h"
#include "sm/regfile.h"

namespace relgpu::sm {
namespace {

struct OneRegKernel {
  std::unique_ptr<ptx::Module> mod;
  const ptx::Function* fn = nullptr;
  unsigned reg = 0;
  OneRegKernel() {
    mod = ptx::parse(R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry k() {
  .reg .b32 %r<2>;
  mov.u32 %r1, 7;
  add.u32 %r1, %r1, %r1;
  ret;
})", "t.ptx");
    ptx::analyse(*mod);
    fn = mod->find("k");
    for (size_t i = 0; i < fn->regs.size(); ++i)
      if (fn->regs[i].name == "%r1") reg = unsigned(i);
  }
};

// GR-Guard geometry: 32 banks of 256 x 128-bit entries; warp slot 0 bound
// at row 3. Returns the bank group of %r1.
struct Rig {
  OneRegKernel k;
  RegisterFile rf{32, 256, 128};
  SmRegs regs{rf, 4};
  func::Warp w;
  reliability::RfFaults faults{32, 256, 128};
  unsigned group = 0;
  Rig() {
    regs.set_kernel(k.fn);
    w.frames.resize(1);
    regs.reserve(0, unsigned(k.fn->regs.size()));
    regs.bind(0, &w, 3, 1);
    unsigned p, width;
    EXPECT_TRUE(regs.phys(0, k.reg, p, width));
    group = regs.group_of(0, p);
  }
  void write_all(uint64_t v, uint32_t mask = ~0u) {
    uint64_t in[32];
    for (auto& x : in) x = v;
    regs.write(0, k.reg, mask, in);
  }
  std::vector<uint64_t> read() {
    uint64_t out[32];
    regs.read(0, k.reg, out);
    return std::vector<uint64_t>(out, out + 32);
  }
};

TEST(SmRfFaults, StuckBitsCorruptWritesSecdedCorrectsOne) {
  Rig r;
  // Entry 2 of the warp register (lanes 8..11): one bad cell, stuck at 1, in lane 9 bit 4.
  r.faults.add_bad_cell(r.group * 8 + 2, 3, 32 + 4, true);
  // Entry 5 (lanes 20..23): two bad cells, lane 20 bit 0 and lane 23 bit 31, stuck at 1.
  r.faults.add_bad_cell(r.group * 8 + 5, 3, 0, true);
  r.faults.add_bad_cell(r.group * 8 + 5, 3, 127, true);
  r.regs.set_faults(&r.faults, true);
  r.write_all(0);
  auto v = r.read();
  for (unsigned l = 0; l < 32; ++l) {
    uint64_t want = l == 20 ? 1 : l == 23 ? 0x80000000u : 0;  // entry 2 corrected, entry 5 not
    EXPECT_EQ(v[l], want) << "lane " << l;
  }
  EXPECT_EQ(r.regs.fault_counts().corrected, 1u);
  EXPECT_EQ(r.regs.fault_counts().corrupting, 1u);
  // Writing the stuck values themselves is no error.
  r.write_all(0xFFFFFFFFu);
  EXPECT_EQ(r.regs.fault_counts().corrected, 1u);
  EXPECT_EQ(r.regs.fault_counts().corrupting, 1u);
  // A write of only lanes 0..7 touches neither faulty entry.
  r.write_all(0, 0xFFu);
  EXPECT_EQ(r.regs.fault_counts().corrupting, 1u);
  // Without SEC-DED the single stuck bit lands too.
  r.regs.set_faults(&r.faults, false);
  r.regs.reset_fault_counts();
  r.write_all(0);
  v = r.read();
  EXPECT_EQ(v[9], 1u << 4);
  EXPECT_EQ(r.regs.fault_counts().corrected, 0u);
  EXPECT_EQ(r.regs.fault_counts().corrupting, 2u);
}

TEST(SmRfFaults, BindAndReadsAreNotCorrupted) {
  Rig r;
  r.faults.add_bad_cell(r.group * 8, 3, 1, true);
  r.faults.add_bad_cell(r.group * 8, 3, 2, true);
  r.regs.set_faults(&r.faults, true);
  r.regs.bind(0, &r.w, 3, 1);  // zeroing at launch: plain
  EXPECT_EQ(r.read()[0], 0u);
  EXPECT_EQ(r.regs.fault_counts().corrupting, 0u);
  // nullptr: fault free again.
  r.regs.set_faults(nullptr, true);
  r.write_all(0);
  EXPECT_EQ(r.read()[0], 0u);
}

TEST(SmRfFaults, PlacementPicksTheCells) {
  Rig r;
  // Entry 0's own cells are bad; a patch location (bank 31, row 200) is good.
  r.faults.add_bad_cell(r.group * 8, 3, 1, true);
  r.faults.add_bad_cell(r.group * 8, 3, 2, true);
  r.regs.set_faults(&r.faults, true);
  unsigned calls = 0;
  r.regs.set_placement([&](unsigned g, unsigned row, unsigned e) {
    ++calls;
    EXPECT_EQ(g, r.group);
    EXPECT_EQ(row, 3u);
    return e == 0 ? EntryLoc{31, 200} : EntryLoc{int32_t(g * 8 + e), int32_t(row)};
  });
  r.write_all(0);
  EXPECT_EQ(r.read()[0], 0u);
  EXPECT_EQ(calls, 8u);
  // Placed back on its own cells it is corrupted; outside the banks (-1) it is not.
  r.regs.set_placement([&](unsigned g, unsigned row, unsigned e) { return EntryLoc{int32_t(g * 8 + e), int32_t(row)}; });
  r.write_all(0);
  EXPECT_EQ(r.read()[0], 6u);
  r.regs.set_placement([](unsigned, unsigned, unsigned) { return EntryLoc{}; });
  r.write_all(0);
  EXPECT_EQ(r.read()[0], 0u);
}

TEST(SmRfFaults, GeometryMustMatch) {
  RegisterFile rf(32, 256, 128);
  SmRegs regs(rf, 4);
  reliability::RfFaults other(16, 64, 1024);
  EXPECT_THROW(regs.set_faults(&other, true), std::invalid_argument);
}

}  // namespace
}  // namespace relgpu::sm
