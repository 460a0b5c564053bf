// Executor semantics on hand-written PTX: special registers, memory spaces,
// generic addressing, vectors, sub-word loads, warp ops, barriers, errors.
#include "func_test_rig.h"

namespace relgpu::func::test {
namespace {

const char* kHead = ".version 9.0\n.target sm_75\n.address_size 64\n";

std::string ptx(const std::string& body) { return std::string(kHead) + body; }

TEST(FuncExec, SpecialRegisters) {
  Rig r;
  r.load(ptx(R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<20>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %ntid.x; mov.u32 %r4, %ntid.y;
  mov.u32 %r5, %ctaid.x; mov.u32 %r6, %nctaid.x; mov.u32 %r7, %laneid; mov.u32 %r8, %warpid;
  mov.u32 %r9, %lanemask_lt; mov.u32 %r10, %dynamic_smem_size; mov.u32 %r11, %ctaid.y;
  mad.lo.u32 %r12, %r2, %r3, %r1;          // linear tid
  mul.lo.u32 %r13, %r3, %r4;
  mad.lo.u32 %r14, %r5, %r13, %r12;        // global linear id (grid is 2x1)
  mul.lo.u32 %r15, %r14, 48;
  cvt.u64.u32 %rd2, %r15;
  add.u64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};
  st.global.v2.u32 [%rd3+32], {%r9, %r10};
  ret;
})"));
  const int bx = 8, by = 5, n = 2 * bx * by;
  uint64_t out = r.upload(std::vector<uint32_t>(n * 12, 77));
  r.run("k", {2, 1, 1}, {bx, by, 1}, {out}, 96);
  auto g = r.download<uint32_t>(out, n * 12);
  for (int c = 0; c < 2; ++c)
    for (int y = 0; y < by; ++y)
      for (int x = 0; x < bx; ++x) {
        int lin = y * bx + x, id = c * bx * by + lin;
        const uint32_t* o = &g[id * 12];
        EXPECT_EQ(o[0], uint32_t(x));
        EXPECT_EQ(o[1], uint32_t(y));
        EXPECT_EQ(o[2], uint32_t(bx));
        EXPECT_EQ(o[3], uint32_t(by));
        EXPECT_EQ(o[4], uint32_t(c));
        EXPECT_EQ(o[5], 2u);
        EXPECT_EQ(o[6], uint32_t(lin % 32));
        EXPECT_EQ(o[7], uint32_t(lin / 32));
        EXPECT_EQ(o[8], (1u << (lin % 32)) - 1);
        EXPECT_EQ(o[9], 96u);
      }
}

TEST(FuncExec, SubwordLoadsVectorsAndPack) {
  Rig r;
  r.load(ptx(R"(
.visible .entry k(.param .u64 in, .param .u64 out) {
  .reg .b16 %rs<3>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.global.s8 %r1, [%rd1];        // 0xF0 -> -16
  ld.global.u8 %r2, [%rd1];        // 240
  ld.global.s16 %r3, [%rd1+2];     // 0x8001 -> -32767
  ld.global.u16 %rs1, [%rd1+2];
  cvt.u32.u16 %r4, %rs1;
  ld.global.v4.u8 {%r5, %r6, %r7, %r8}, [%rd1+4];
  ld.global.s8 %rd3, [%rd1];       // sign-extended into 64 bits
  mov.b64 %rd4, {%r5, %r6};        // pack
  mov.b64 {%r9, %r10}, %rd3;       // unpack
  st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd2+16], {%r5, %r6, %r7, %r8};
  st.global.u64 [%rd2+32], %rd3;
  st.global.u64 [%rd2+40], %rd4;
  st.global.v2.u32 [%rd2+48], {%r9, %r10};
  st.global.u8 [%rd2+56], %r2;
  st.global.u16 [%rd2+58], %r3;
  ret;
})"));
  std::vector<uint8_t> in = {0xF0, 0, 0x01, 0x80, 1, 2, 3, 250};
  uint64_t din = r.upload(in), dout = r.upload(std::vector<uint32_t>(15, 0xdeadbeef));
  r.run("k", {1, 1, 1}, {1, 1, 1}, {din, dout});
  auto g = r.download<uint32_t>(dout, 15);
  EXPECT_EQ(int32_t(g[0]), -16);
  EXPECT_EQ(g[1], 240u);
  EXPECT_EQ(int32_t(g[2]), -32767);
  EXPECT_EQ(g[3], 0x8001u);
  EXPECT_EQ(g[4], 1u);
  EXPECT_EQ(g[7], 250u);
  EXPECT_EQ(int64_t(uint64_t(g[8]) | uint64_t(g[9]) << 32), -16);
  EXPECT_EQ(g[10], 1u);
  EXPECT_EQ(g[11], 2u);
  EXPECT_EQ(g[12], 0xfffffff0u);
  EXPECT_EQ(g[13], 0xffffffffu);
  EXPECT_EQ(g[14], 0x8001BEF0u);  // u8 240 at +56, u16 0x8001 at +58; byte 57 keeps 0xbe
}

TEST(FuncExec, GenericAddressingAndSpaces) {
  Rig r;
  r.load(ptx(R"(
.global .align 4 .u32 gv[2] = {5, 6};
.const .align 4 .u32 cv[2] = {70, 80};
.visible .entry k(.param .u64 out) {
  .reg .pred %p<6>; .reg .b32 %r<20>; .reg .b64 %rd<12>;
  .shared .align 4 .u32 sm[64];
  .local .align 4 .b8 depot[16];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, sm;
  cvta.shared.u64 %rd3, %rd2;                 // generic pointer to sm
  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd5, %rd3, %rd4;
  add.u32 %r2, %r1, 1000;
  st.u32 [%rd5], %r2;                         // generic store into shared
  bar.sync 0;
  xor.b32 %r3, %r1, 1;
  mul.wide.u32 %rd6, %r3, 4;
  add.u64 %rd7, %rd2, %rd6;
  ld.shared.u32 %r4, [%rd7];                  // neighbour's value
  isspacep.shared %p1, %rd5;
  isspacep.global %p2, %rd5;
  isspacep.global %p3, %rd1;
  selp.u32 %r5, 1, 0, %p1;
  selp.u32 %r6, 2, 0, %p2;
  selp.u32 %r7, 4, 0, %p3;
  or.b32 %r8, %r5, %r6;
  or.b32 %r8, %r8, %r7;
  mov.u64 %rd8, depot;
  cvta.local.u64 %rd9, %rd8;
  st.local.u32 [%rd8+8], %r1;
  ld.u32 %r9, [%rd9+8];                       // generic load from local
  cvta.to.local.u64 %rd10, %rd9;
  ld.local.u32 %r10, [%rd10+8];
  ld.global.u32 %r11, [gv+4];
  ld.const.u32 %r12, [cv+4];
  mov.u64 %rd11, cv;
  ld.const.u32 %r13, [%rd11];
  add.u32 %r14, %r11, %r12;
  add.u32 %r14, %r14, %r13;
  mul.wide.u32 %rd6, %r1, 16;
  add.u64 %rd6, %rd1, %rd6;
  st.global.v4.u32 [%rd6], {%r4, %r8, %r9, %r10};
  st.global.u32 [%rd6+256], %r14;
  ret;
})"));
  uint64_t out = r.upload(std::vector<uint32_t>(128, 0));
  r.run("k", {1, 1, 1}, {16, 1, 1}, {out});
  auto g = r.download<uint32_t>(out, 128);
  for (uint32_t t = 0; t < 16; ++t) {
    EXPECT_EQ(g[t * 4 + 0], 1000 + (t ^ 1)) << t;
    EXPECT_EQ(g[t * 4 + 1], 1u | 4u) << t;
    EXPECT_EQ(g[t * 4 + 2], t);
    EXPECT_EQ(g[t * 4 + 3], t);
    EXPECT_EQ(g[64 + 4 * t], 6u + 80u + 70u);
  }
}

// [%r+off] with a 32-bit base register wraps modulo 2^32, as nvcc's code for
// a public Needleman-Wunsch kernel needs (base - 64, then [a+68]).
TEST(FuncExec, ThirtyTwoBitAddressArithmeticWraps) {
  Rig r;
  r.load(ptx(R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<6>; .reg .b64 %rd<3>;
  .shared .align 4 .b8 buf[64];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, buf;
  mov.u32 %r2, 1234;
  st.shared.u32 [%r1+4], %r2;
  sub.u32 %r3, %r1, 64;
  ld.shared.u32 %r4, [%r3+68];
  st.global.u32 [%rd1], %r4;
  ret;
})"));
  uint64_t out = r.upload(std::vector<uint32_t>(1, 0));
  r.run("k", {1, 1, 1}, {1, 1, 1}, {out});
  EXPECT_EQ(r.download<uint32_t>(out, 1)[0], 1234u);
}

TEST(FuncExec, DynamicSharedMemory) {
  Rig r;
  r.load(ptx(R"(
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<6>; .reg .b64 %rd<6>;
  .shared .align 4 .u32 st0;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, dyn;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd2, %rd3;
  mul.lo.u32 %r2, %r1, %r1;
  st.shared.u32 [%rd4], %r2;
  st.shared.u32 [st0], 9;
  bar.sync 0;
  sub.u32 %r3, 63, %r1;
  mul.wide.u32 %rd3, %r3, 4;
  add.u64 %rd4, %rd2, %rd3;
  ld.shared.u32 %r4, [%rd4];
  ld.shared.u32 %r5, [st0];
  add.u32 %r4, %r4, %r5;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd5, %rd1, %rd3;
  st.global.u32 [%rd5], %r4;
  ret;
})"));
  uint64_t out = r.upload(std::vector<uint32_t>(64, 0));
  r.run("k", {1, 1, 1}, {64, 1, 1}, {out}, 256);
  auto g = r.download<uint32_t>(out, 64);
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(g[t], (63 - t) * (63 - t) + 9) << t;
  // 255 bytes of dynamic shared memory is one word short: the last thread faults.
  std::string e = kernel_error([&] { r.run("k", {1, 1, 1}, {64, 1, 1}, {out}, 252); });
  EXPECT_NE(e.find("out-of-bounds shared store of 4 bytes"), std::string::npos) << e;
}

TEST(FuncExec, MatchReduxAndBallotUnderDivergence) {
  Rig r;
  r.load(ptx(R"(
.visible .entry k(.param .u64 out) {
  .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  match.any.sync.b32 %r3, %r2, -1;
  redux.sync.add.u32 %r4, %r1, -1;
  redux.sync.max.s32 %r5, %r1, -1;
  setp.lt.u32 %p1, %r1, 10;
  mov.u32 %r6, 0;
  mov.u32 %r7, 0;
  @!%p1 bra SKIP;
  activemask.b32 %r6;
  vote.sync.ballot.b32 %r7, %p1, %r6;
SKIP:
  mul.wide.u32 %rd2, %r1, 16;
  add.u64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};
  ret;
})"));
  uint64_t out = r.upload(std::vector<uint32_t>(32 * 4, 0));
  r.run("k", {1, 1, 1}, {32, 1, 1}, {out});
  auto g = r.download<uint32_t>(out, 128);
  for (uint32_t t = 0; t < 32; ++t) {
    EXPECT_EQ(g[t * 4], 0x11111111u << (t & 3)) << t;
    EXPECT_EQ(g[t * 4 + 1], 496u);
    EXPECT_EQ(g[t * 4 + 2], 31u);
    EXPECT_EQ(g[t * 4 + 3], t < 10 ? 0x3ffu : 0u) << t;
  }
}

TEST(FuncExec, BarrierReductionAndNamedBarriers) {
  Rig r;
  r.load(ptx(R"(
.visible .entry k(.param .u64 out) {
  .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<4>;
  .shared .align 4 .u32 flag;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 70;
  bar.red.popc.u32 %r2, 0, %p1;
  bar.red.and.pred %p2, 0, %p1;
  bar.red.or.pred %p3, 0, %p1;
  selp.u32 %r3, 1, 0, %p2;
  selp.u32 %r4, 1, 0, %p3;
  // producer (warp 0) / consumer (warps 1..3) on barrier 1 with 128 threads
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra CONS;
  st.shared.u32 [flag], 4242;
  bar.arrive 1, 128;
  bra DONE;
CONS:
  bar.sync 1, 128;
  ld.shared.u32 %r5, [flag];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3+2048], %r5;
DONE:
  mul.wide.u32 %rd2, %r1, 16;
  add.u64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r2, %r3, %r4, %r1};
  ret;
})"));
  uint64_t out = r.upload(std::vector<uint32_t>(128 * 4 + 128, 0));
  r.run("k", {1, 1, 1}, {128, 1, 1}, {out});
  auto g = r.download<uint32_t>(out, 128 * 5);
  for (uint32_t t = 0; t < 128; ++t) {
    EXPECT_EQ(g[t * 4], 70u) << t;
    EXPECT_EQ(g[t * 4 + 1], 0u);
    EXPECT_EQ(g[t * 4 + 2], 1u);
    if (t >= 32) {
      EXPECT_EQ(g[512 + t], 4242u) << t;
    }
  }
}

TEST(FuncExec, NestedDivergentLoopsWithEarlyExit) {
  // for (i = 0; i < tid % 7; ++i) { if (tid == 13 && i == 2) exit; for (j = 0; j < i; ++j) acc += j + i; }
  Rig r;
  r.load(ptx(R"(
.visible .entry k(.param .u64 out) {
  .reg .pred %p<6>; .reg .b32 %r<12>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 7;
  mov.u32 %r3, 0;            // i
  mov.u32 %r4, 0;            // acc
OUTER:
  setp.ge.u32 %p1, %r3, %r2;
  @%p1 bra END;
  setp.eq.u32 %p2, %r1, 13;
  setp.eq.u32 %p3, %r3, 2;
  and.pred %p4, %p2, %p3;
  @%p4 exit;
  mov.u32 %r5, 0;            // j
INNER:
  setp.ge.u32 %p5, %r5, %r3;
  @%p5 bra NEXT;
  add.u32 %r6, %r5, %r3;
  add.u32 %r4, %r4, %r6;
  add.u32 %r5, %r5, 1;
  bra INNER;
NEXT:
  add.u32 %r3, %r3, 1;
  bra OUTER;
END:
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
})"));
  uint64_t out = r.upload(std::vector<int>(40, -1));
  r.run("k", {1, 1, 1}, {40, 1, 1}, {out});
  auto g = r.download<int>(out, 40);
  for (int t = 0; t < 40; ++t) {
    int acc = 0;
    bool exited = false;
    for (int i = 0; i < t % 7 && !exited; ++i) {
      if (t == 13 && i == 2) exited = true;
      else
        for (int j = 0; j < i; ++j) acc += j + i;
    }
    EXPECT_EQ(g[t], exited ? -1 : acc) << t;
  }
}

}  // namespace
}  // namespace relgpu::func::test
