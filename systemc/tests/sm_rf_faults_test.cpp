// Register-file faults in the timed register file (sm/regfile.h): writes
// land with the stuck-at bits of the cells they are stored in, SEC-DED
// corrects one wrong bit per entry, GR-Guard's placement stores entries in
// other cells (or an L1D line) and reads them from there, bind() is not
// corrupted, and the counters say what happened.
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

// A placement as GR-Guard sets it: the entries in `mv.mask` of the rig's
// register are stored elsewhere; `held` entries of (200, group 3) belong to
// another register.
struct FakePlacement final : Placement {
  unsigned group = 0, row = 3;
  Moved mv;
  uint32_t held_mask = 0;
  Moved moved(unsigned g, unsigned r) const override { return g == group && r == row ? mv : Moved{}; }
  uint32_t held(unsigned g, unsigned r) const override { return g == 3 && r == 200 ? held_mask : 0; }
};

// Moved entries are stored in the patch's cells and read from there: what
// happens to the patch's cells (their faults, a flipped bit) shows in the
// register, what happens to its own cells does not.
TEST(SmRfFaults, MovedEntriesLiveInThePatch) {
  Rig r;
  FakePlacement pl;
  pl.group = r.group;
  pl.mv = Moved{0x21, 3, 200, nullptr};  // entries 0 and 5 at warp register (group 3, row 200)
  // Entry 0's own cells are bad (two stuck cells), the patch's entry 5 too.
  r.faults.add_bad_cell(r.group * 8, 3, 1, true);
  r.faults.add_bad_cell(r.group * 8, 3, 2, true);
  r.faults.add_bad_cell(3 * 8 + 5, 200, 0, true);
  r.faults.add_bad_cell(3 * 8 + 5, 200, 127, true);
  r.regs.set_faults(&r.faults, true);
  r.regs.set_placement(&pl);
  r.write_all(0x10);
  EXPECT_EQ(r.rf.wreg(3, 200)[0], 0x10u);       // lane 0 in the patch
  EXPECT_EQ(r.rf.wreg(r.group, 3)[0], 0u);      // not at home
  EXPECT_EQ(r.rf.wreg(r.group, 3)[4], 0x10u);   // entry 1 at home
  auto v = r.read();
  EXPECT_EQ(v[0], 0x10u);                        // its own bad cells do not matter
  EXPECT_EQ(v[20], 0x11u);                       // the patch's do: lane 20 bit 0,
  EXPECT_EQ(v[23], 0x80000010u);                 // lane 23 bit 31
  EXPECT_EQ(r.regs.fault_counts().corrupting, 1u);
  // A bit flipped in the patch's cells is read; one in its own cells is not.
  r.rf.flip_bit(3 * 8, 200, 4);
  r.rf.flip_bit(r.group * 8, 3, 8);
  v = r.read();
  EXPECT_EQ(v[0], 0x00u);
  EXPECT_EQ(v[1], 0x10u);
  // Without the placement the register reads its own cells again.
  r.regs.set_placement(nullptr);
  EXPECT_EQ(r.read()[0], 0x100u);
}

// A spilled entry lives in the L1D line (no RF cells): changing the line
// changes the register.
TEST(SmRfFaults, SpilledEntriesLiveInTheLine) {
  Rig r;
  uint32_t line[32] = {};
  FakePlacement pl;
  pl.group = r.group;
  pl.mv = Moved{0x80, -1, -1, line};  // entry 7: lanes 28..31
  r.faults.add_bad_cell(r.group * 8 + 7, 3, 1, true);
  r.faults.add_bad_cell(r.group * 8 + 7, 3, 2, true);
  r.regs.set_faults(&r.faults, true);
  r.regs.set_placement(&pl);
  r.write_all(0x40);
  EXPECT_EQ(line[28], 0x40u);
  EXPECT_EQ(line[0], 0u);
  EXPECT_EQ(r.regs.fault_counts().corrupting, 0u);
  line[31] ^= 0x8000;
  auto v = r.read();
  EXPECT_EQ(v[30], 0x40u);
  EXPECT_EQ(v[31], 0x8040u);
}

// bind() zeroes the register where it is stored, but not the entries of
// its own cells that hold another register's patch.
TEST(SmRfFaults, BindKeepsOtherRegistersPatches) {
  Rig r;
  FakePlacement pl;
  pl.group = r.group;
  pl.mv = Moved{0x01, 3, 200, nullptr};
  pl.held_mask = 0x0F;
  r.regs.set_placement(&pl);
  for (unsigned l = 0; l < 32; ++l) r.rf.wreg(3, 200)[l] = 5, r.rf.wreg(r.group, 3)[l] = 6;
  r.regs.bind(0, &r.w, 3, 1);
  EXPECT_EQ(r.rf.wreg(3, 200)[0], 0u);   // its moved entry 0: zeroed in the patch
  EXPECT_EQ(r.rf.wreg(r.group, 3)[0], 6u);  // ... not at home
  EXPECT_EQ(r.rf.wreg(r.group, 3)[4], 0u);  // entry 1 at home
  EXPECT_EQ(r.read()[0], 0u);
  pl.mv = Moved{};
  pl.group = 3, pl.row = 200;  // the same for the register bound at row 200, group 3: entries 0..3 are held
  r.regs.bind(1, &r.w, 200, 1);
  EXPECT_EQ(r.rf.wreg(3, 200)[4], 5u);
  EXPECT_EQ(r.rf.wreg(3, 200)[16], 0u);
}

// While a latch is set, the instruction's RF operands come from the
// collector's copy; other registers are counted as misses.
TEST(SmRfFaults, LatchServesTheOperands) {
  Rig r;
  r.write_all(3);
  unsigned p, width;
  ASSERT_TRUE(r.regs.phys(0, r.k.reg, p, width));
  std::vector<uint32_t> words(64, 9);
  words[7] = 11;
  const uint16_t phys[2] = {uint16_t(p), uint16_t(p + 1)};
  Latch l{0, 0, phys, 2, words.data()};
  r.regs.set_latch(&l);
  auto v = r.read();
  EXPECT_EQ(v[0], 9u);
  EXPECT_EQ(v[7], 11u);
  EXPECT_EQ(r.regs.latch_misses(), 0u);
  l.phys = phys + 1;  // p not in it: read from storage
  l.n = 1;
  EXPECT_EQ(r.read()[0], 3u);
  EXPECT_EQ(r.regs.latch_misses(), 1u);
  r.regs.set_latch(nullptr);
  EXPECT_EQ(r.read()[7], 3u);
}

TEST(SmRfFaults, GeometryMustMatch) {
  RegisterFile rf(32, 256, 128);
  SmRegs regs(rf, 4);
  reliability::RfFaults other(16, 64, 1024);
  EXPECT_THROW(regs.set_faults(&other, true), std::invalid_argument);
}

}  // namespace
}  // namespace relgpu::sm
