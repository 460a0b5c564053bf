// The banked register file: geometry, the (warp + reg) % banks mapping,
// values stored in the physical entries, and the fault API.
#include <gtest/gtest.h>

#include "func/exec.h"
#include "ptx/analysis.h"
#include "ptx/parser.h"
#include "sm/regfile.h"

namespace relgpu::sm {
namespace {

TEST(SmRegfile, Geometry) {
  RegisterFile gr(32, 256, 128);  // GR-Guard: 8-bank warp registers, 4 bank groups
  EXPECT_EQ(gr.span(), 8u);
  EXPECT_EQ(gr.groups(), 4u);
  EXPECT_EQ(gr.words_per_entry(), 4u);
  EXPECT_EQ(gr.first_lane(13), 20u);  // bank 13 = group 1, 6th bank: lanes 20..23
  RegisterFile pv(16, 64, 1024);  // PV/NBTI: one bank per warp register
  EXPECT_EQ(pv.span(), 1u);
  EXPECT_EQ(pv.groups(), 16u);
  EXPECT_THROW(RegisterFile(12, 256, 128), std::invalid_argument);  // 12 banks cannot hold 8-bank registers
  EXPECT_THROW(RegisterFile(32, 256, 96), std::invalid_argument);
  EXPECT_THROW(gr.entry(32, 0), std::out_of_range);
}

// A kernel with a 32-bit, a 64-bit and a predicate register.
struct Kernel {
  std::unique_ptr<ptx::Module> mod;
  const ptx::Function* fn = nullptr;
  Kernel() {
    mod = ptx::parse(R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry k() {
  .reg .pred %p<2>; .reg .b32 %r<3>; .reg .b64 %rd<2>;
  mov.u32 %r1, 1;
  mov.u32 %r2, 2;
  mov.u64 %rd1, 3;
  setp.eq.u32 %p1, %r1, %r2;
  @%p1 add.u32 %r1, %r1, %r2;
  cvt.u32.u64 %r2, %rd1;
  add.u32 %r1, %r1, %r2;
  ret;
})", "t.ptx");
    ptx::analyse(*mod);
    fn = mod->find("k");
  }
  int32_t reg(const std::string& n) const {
    for (size_t i = 0; i < fn->regs.size(); ++i)
      if (fn->regs[i].name == n) return int32_t(i);
    return -1;
  }
};

TEST(SmRegfile, MappingAndStorage) {
  Kernel k;
  RegisterFile rf(16, 64, 1024);
  SmRegs regs(rf, 8);
  regs.set_kernel(k.fn);
  func::Warp w;
  w.frames.resize(1);
  regs.reserve(5, unsigned(k.fn->regs.size()));
  regs.bind(5, &w, 2, 1);  // warp slot 5, row 2
  // bank = (warp + reg) % banks, row = base + reg / banks
  for (unsigned p = 0; p < 16; ++p) {
    EXPECT_EQ(regs.group_of(5, p), (5 + p) % 16);
    EXPECT_EQ(regs.row_of(5, p), 2u);
  }
  int32_t r1 = k.reg("%r1"), rd1 = k.reg("%rd1"), p1 = k.reg("%p1");
  unsigned p, width;
  ASSERT_TRUE(regs.phys(5, unsigned(r1), p, width));
  EXPECT_EQ(width, 1u);
  EXPECT_EQ(p, unsigned(k.fn->phys_reg[size_t(r1)]));
  ASSERT_TRUE(regs.phys(5, unsigned(rd1), p, width));
  EXPECT_EQ(width, 2u);
  EXPECT_FALSE(regs.phys(5, unsigned(p1), p, width));  // predicates are not in the banks

  uint64_t in[32], out[32];
  for (unsigned l = 0; l < 32; ++l) in[l] = 0x1234'5678'9abc'def0ull + l;
  regs.write(5, unsigned(rd1), 0xffffffffu, in);
  regs.read(5, unsigned(rd1), out);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], in[l]);
  // The low word of lane 3 sits in entry (bank of phys p, row 2), word 3.
  regs.phys(5, unsigned(rd1), p, width);
  EXPECT_EQ(rf.entry(regs.group_of(5, p), 2)[3], uint32_t(in[3]));
  EXPECT_EQ(rf.entry(regs.group_of(5, p + 1), 2)[3], uint32_t(in[3] >> 32));
  rf.flip_bit(regs.group_of(5, p + 1), 2, 3 * 32 + 31);
  regs.read(5, unsigned(rd1), out);
  EXPECT_EQ(out[3], in[3] ^ (uint64_t(1) << 63));
  // Masked writes keep the other lanes; predicates keep one bit per lane.
  for (unsigned l = 0; l < 32; ++l) in[l] = l & 1;
  regs.write(5, unsigned(p1), 0x0000ffffu, in);
  regs.read(5, unsigned(p1), out);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], l < 16 ? (l & 1) : 0u) << l;
  // Binding the slot again starts from zero, as functional mode does.
  regs.bind(5, &w, 2, 1);
  regs.read(5, unsigned(rd1), out);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], 0u);
}

// Lane compaction (SmRegs::set_lanes): with a permutation, lane l's values
// live in slot slot_of[l] of each warp register (slots 0-15 in the sub-bank
// on lanes 0-15), masked writes keep the other lanes, 64-bit registers move
// both halves, a non-permutation is refused, and bind() restores the identity.
TEST(SmRegfile, LanePermutationPlacesEachThreadInItsSlot) {
  struct Halves final : BankMap {
    void halves(unsigned, unsigned g, unsigned& a, unsigned& b) const override { a = 2 * g, b = 2 * g + 1; }
  } map;
  Kernel k;
  RegisterFile rf(16, 64, 1024);
  SmRegs regs(rf, 8);
  regs.set_kernel(k.fn);
  func::Warp w;
  w.frames.resize(1);
  regs.reserve(2, unsigned(k.fn->regs.size()));
  uint8_t slot_of[32];
  for (unsigned l = 0; l < 32; ++l) slot_of[l] = uint8_t(31 - l);
  EXPECT_THROW(regs.set_lanes(2, slot_of), std::logic_error);  // no bank map
  regs.set_bank_map(&map);
  regs.bind(2, &w, 0, 1);
  regs.set_lanes(2, slot_of);
  EXPECT_EQ(regs.slots(2, 0x1u), 0x80000000u);
  EXPECT_EQ(regs.slots(2, 0xffffu), 0xffff0000u);
  const int32_t rd1 = k.reg("%rd1");
  unsigned p, width;
  ASSERT_TRUE(regs.phys(2, unsigned(rd1), p, width));
  uint64_t in[32], out[32];
  for (unsigned l = 0; l < 32; ++l) in[l] = 0x1111'0000'0000'0000ull * (l % 15) + l;
  regs.write(2, unsigned(rd1), 0xffffffffu, in);
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(rf.wreg(regs.group_of(2, p), 0)[31 - l], uint32_t(in[l])) << l;
    EXPECT_EQ(rf.wreg(regs.group_of(2, p + 1), 0)[31 - l], uint32_t(in[l] >> 32)) << l;
  }
  uint64_t more[32];
  for (unsigned l = 0; l < 32; ++l) more[l] = 7 + l;
  regs.write(2, unsigned(rd1), 0x00000005u, more);  // lanes 0 and 2
  regs.read(2, unsigned(rd1), out);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], l == 0 || l == 2 ? more[l] : in[l]) << l;
  rf.wreg(regs.group_of(2, p), 0)[31] ^= 1;  // slot 31: lane 0
  regs.read(2, unsigned(rd1), out);
  EXPECT_EQ(out[0], more[0] ^ 1);
  EXPECT_EQ(out[31], in[31]);
  slot_of[1] = slot_of[0];
  EXPECT_THROW(regs.set_lanes(2, slot_of), std::logic_error);
  regs.bind(2, &w, 0, 1);
  EXPECT_EQ(regs.slots(2, 0x1u), 0x1u);
  regs.write(2, unsigned(rd1), 0xffffffffu, in);
  EXPECT_EQ(rf.wreg(regs.group_of(2, p), 0)[0], uint32_t(in[0]));
}

TEST(SmRegfile, WarpRegisterSpansEightBanks) {
  Kernel k;
  RegisterFile rf(32, 256, 128);
  SmRegs regs(rf, 48);
  regs.set_kernel(k.fn);
  func::Warp w;
  w.frames.resize(1);
  regs.reserve(1, unsigned(k.fn->regs.size()));
  regs.bind(1, &w, 10, 1);
  int32_t r2 = k.reg("%r2");
  unsigned p, width;
  ASSERT_TRUE(regs.phys(1, unsigned(r2), p, width));
  uint64_t in[32];
  for (unsigned l = 0; l < 32; ++l) in[l] = 100 + l;
  regs.write(1, unsigned(r2), 0xffffffffu, in);
  unsigned g = regs.group_of(1, p);
  EXPECT_EQ(g, (1 + p) % 4);
  for (unsigned b = 0; b < 8; ++b)
    for (unsigned k2 = 0; k2 < 4; ++k2) EXPECT_EQ(rf.entry(g * 8 + b, 10)[k2], 100 + b * 4 + k2);
}


// ---- Uniform vectors (SmRegs::set_scalar; spec 001 token design) ----
// GTX480 geometry: 128-bit entries, lane 16 in entry 4 of its warp register.
struct ScalarRegs {
  Kernel k;
  RegisterFile rf{32, 256, 128};
  SmRegs regs{rf, 8};
  func::Warp w;
  explicit ScalarRegs(unsigned copies) {
    regs.set_scalar(16, copies);
    regs.set_kernel(k.fn);
    w.frames.resize(1);
    regs.reserve(1, unsigned(k.fn->regs.size()));
    regs.bind(1, &w, 0, 2);
  }
  unsigned phys(const char* name) {
    unsigned p, width;
    EXPECT_TRUE(regs.phys(1, unsigned(k.reg(name)), p, width));
    return p;
  }
  uint32_t* lanes(unsigned p) { return rf.wreg(regs.group_of(1, p), regs.row_of(1, p)); }
  // A uniform instruction's writeback of v to register slot r.
  void write_uniform(unsigned r, uint64_t v) {
    uint64_t in[32];
    for (auto& x : in) x = v;
    regs.scalar_write(true);
    regs.write(1, r, ~0u, in);
    regs.scalar_write(false);
  }
  // Bank and bit of lane l's cells of physical register p.
  void flip(unsigned p, unsigned lane) {
    rf.flip_bit(regs.group_of(1, p) * rf.span() + lane / 4, regs.row_of(1, p), (lane % 4) * 32);
  }
};

// A uniform result is stored in the scalar slot only and read back in every
// lane from there: a fault in that slot's cells reaches all 32 lanes, one in
// another lane's (stale) cells reaches none.
TEST(SmRegfileUniform, ScalarSlotHoldsTheValueForEveryLane) {
  ScalarRegs t(1);
  const unsigned r1 = unsigned(t.k.reg("%r1")), p = t.phys("%r1");
  uint64_t out[32];
  t.write_uniform(r1, 7);
  EXPECT_TRUE(t.regs.token(1, p));
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(t.lanes(p)[l], l == 16 ? 7u : 0u) << "lane " << l;
  t.regs.read(1, r1, out);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], 7u) << l;
  t.flip(p, 3);  // a stale lane
  t.regs.read(1, r1, out);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], 7u) << l;
  t.flip(p, 16);  // the scalar slot
  t.regs.read(1, r1, out);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], 6u) << l;
  EXPECT_EQ(t.regs.scalar_counts().scalar_writes, 1u);
  EXPECT_EQ(t.regs.scalar_counts().broadcast_reads, 3u);
}

// A divergent write to a uniform register spreads the scalar first (the
// paper's copy-on-write), so the lanes it leaves keep the uniform value; a
// full write simply replaces it.
TEST(SmRegfileUniform, DivergentWriteSpreadsTheScalarFirst) {
  ScalarRegs t(1);
  const unsigned r1 = unsigned(t.k.reg("%r1")), p = t.phys("%r1");
  uint64_t in[32], out[32];
  t.write_uniform(r1, 7);
  for (unsigned l = 0; l < 32; ++l) in[l] = 100 + l;
  t.regs.write(1, r1, 0x0000ffffu, in);
  EXPECT_FALSE(t.regs.token(1, p));
  EXPECT_EQ(t.regs.scalar_counts().expands, 1u);
  t.regs.read(1, r1, out);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], l < 16 ? 100 + l : 7u) << l;
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(t.lanes(p)[l], out[l]) << "stored, lane " << l;
  for (unsigned l = 0; l < 32; ++l) in[l] = 200 + l;
  t.regs.write(1, r1, ~0u, in);
  t.regs.read(1, r1, out);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], 200 + l) << l;
  EXPECT_EQ(t.regs.scalar_counts().expands, 1u);
}

// 64-bit registers keep both halves in the slot; predicates get a token
// (detection only) from a full uniform write, and lose it on a partial one.
TEST(SmRegfileUniform, WideRegistersAndPredicates) {
  ScalarRegs t(1);
  const unsigned rd1 = unsigned(t.k.reg("%rd1")), p1 = unsigned(t.k.reg("%p1")), p = t.phys("%rd1");
  uint64_t in[32], out[32];
  t.write_uniform(rd1, 0x0123'4567'89ab'cdefull);
  t.write_uniform(p1, 1);
  for (auto& v : in) v = 1;
  EXPECT_TRUE(t.regs.token(1, p) && t.regs.token(1, p + 1));
  EXPECT_TRUE(t.regs.pred_token(1, p1));
  EXPECT_EQ(t.lanes(p + 1)[0], 0u);
  t.regs.read(1, rd1, out);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], 0x0123'4567'89ab'cdefull) << l;
  t.regs.write(1, p1, 0x1u, in);
  EXPECT_FALSE(t.regs.pred_token(1, p1));
  t.regs.bind(1, &t.w, 0, 2);  // a new warp: zeroed registers are full vectors
  EXPECT_FALSE(t.regs.token(1, p));
}

// Two copies (the paper's opportunistic reliability): lanes 16 and 17 hold
// the scalar, and a read that finds them different counts a detected error.
TEST(SmRegfileUniform, TwoCopiesDetectAFaultInEither) {
  ScalarRegs t(2);
  const unsigned r1 = unsigned(t.k.reg("%r1")), p = t.phys("%r1");
  uint64_t out[32];
  t.write_uniform(r1, 9);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(t.lanes(p)[l], l == 16 || l == 17 ? 9u : 0u) << l;
  t.regs.read(1, r1, out);
  EXPECT_EQ(t.regs.scalar_counts().copy_mismatches, 0u);
  t.flip(p, 17);
  t.regs.read(1, r1, out);
  EXPECT_EQ(t.regs.scalar_counts().copy_mismatches, 1u);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], 9u) << l;
  EXPECT_THROW(t.regs.set_scalar(31, 2), std::invalid_argument);
  EXPECT_THROW(t.regs.set_scalar(0, 3), std::invalid_argument);
}

// The same through the bank organization table's map and a lane
// permutation (1024-bit entries, the PV chapter's RF): the scalar and its
// spread go where the map and the permutation put each lane.
TEST(SmRegfileUniform, CopyOnWriteThroughTheBankMap) {
  struct Swapped final : BankMap {
    void halves(unsigned, unsigned g, unsigned& a, unsigned& b) const override { a = 2 * g + 1, b = 2 * g; }
  } map;
  Kernel k;
  RegisterFile rf(16, 64, 1024);
  SmRegs regs(rf, 8);
  regs.set_scalar(16, 1);
  regs.set_kernel(k.fn);
  regs.set_bank_map(&map);
  func::Warp w;
  w.frames.resize(1);
  regs.reserve(3, unsigned(k.fn->regs.size()));
  regs.bind(3, &w, 0, 1);
  uint8_t slot_of[32];
  for (unsigned l = 0; l < 32; ++l) slot_of[l] = uint8_t(31 - l);
  regs.set_lanes(3, slot_of);
  const unsigned r1 = unsigned(k.reg("%r1"));
  uint64_t in[32], out[32];
  for (auto& v : in) v = 7;
  regs.scalar_write(true);
  regs.write(3, r1, ~0u, in);
  regs.scalar_write(false);
  for (unsigned l = 0; l < 32; ++l) in[l] = 100 + l;
  regs.write(3, r1, 0x0000ffffu, in);
  regs.read(3, r1, out);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], l < 16 ? 100 + l : 7u) << l;
  EXPECT_EQ(regs.scalar_counts().expands, 1u);
}

}  // namespace
}  // namespace relgpu::sm
