// Analyses on hand-written PTX: CFG and IPDOM, dead bits, def-use chains,
// register allocation, thread-ID taint.
#include <gtest/gtest.h>

#include <algorithm>

#include "ptx/analysis.h"
#include "ptx/parser.h"

using namespace relgpu::ptx;

namespace {

std::unique_ptr<Module> kernel(const std::string& body) {
  std::string src = ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                    ".reg .pred %p<6>; .reg .b32 %r<20>; .reg .b64 %rd<8>; .reg .f32 %f<8>;\n" +
                    body + "\n}\n";
  auto m = parse(src, "a.ptx");
  analyse(*m);
  return m;
}

int reg(const Function& f, const std::string& name) {
  for (size_t i = 0; i < f.regs.size(); ++i)
    if (f.regs[i].name == name) return int(i);
  return -1;
}

bool tainted(const Function& f, const std::string& name) {
  return std::count(f.tainted_regs.begin(), f.tainted_regs.end(), reg(f, name)) > 0;
}

bool programmatic(const Function& f, const std::string& name) {
  return std::count(f.programmatic_regs.begin(), f.programmatic_regs.end(), reg(f, name)) > 0;
}

}  // namespace

TEST(PtxAnalysis, IfElseReconvergesAtJoin) {
  auto m = kernel(R"(
	mov.u32 %r1, %tid.x;            // 0
	setp.lt.u32 %p1, %r1, 16;       // 1
	@%p1 bra $ELSE;                 // 2
	add.s32 %r2, %r1, 1;            // 3
	bra.uni $JOIN;                  // 4
$ELSE:
	add.s32 %r2, %r1, 2;            // 5
$JOIN:
	st.global.u32 [%rd1], %r2;      // 6
	ret;                            // 7
)");
  const Function& f = *m->functions[0];
  ASSERT_EQ(f.blocks.size(), 4u);
  EXPECT_EQ(f.blocks[0].succ, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(f.blocks[1].succ, (std::vector<int32_t>{3}));
  EXPECT_EQ(f.blocks[3].succ, (std::vector<int32_t>{4}));  // the virtual exit
  EXPECT_EQ(f.instrs[2].info.ipdom, 6);
  EXPECT_EQ(f.instrs[4].info.ipdom, 6);
  EXPECT_EQ(f.instrs[5].info.block, 2);
  EXPECT_EQ(f.instrs[0].info.ipdom, -1);  // not a branch
}

TEST(PtxAnalysis, LoopAndEarlyExit) {
  auto m = kernel(R"(
	mov.u32 %r1, 0;                 // 0
$LOOP:
	add.s32 %r1, %r1, 1;            // 1
	setp.eq.s32 %p2, %r1, 7;        // 2
	@%p2 bra $OUT;                  // 3  (break: leaves the loop)
	setp.lt.s32 %p1, %r1, 10;       // 4
	@%p1 bra $LOOP;                 // 5  back edge
	mov.u32 %r3, 1;                 // 6
$OUT:
	setp.eq.s32 %p3, %r1, 3;        // 7
	@%p3 exit;                      // 8  early exit
	st.global.u32 [%rd1], %r1;      // 9
	ret;                            // 10
$DEAD:
	mov.u32 %r4, 5;                 // 11 unreachable
	bra $DEAD;                      // 12
)");
  const Function& f = *m->functions[0];
  // Not taken, the back edge falls to 6, but the break at 3 skips 6: both
  // ways meet at $OUT.
  EXPECT_EQ(f.instrs[5].info.ipdom, 7);
  EXPECT_EQ(f.instrs[3].info.ipdom, 7);   // the break and the loop exit meet at $OUT
  EXPECT_EQ(f.instrs[8].info.ipdom, 13);  // exit or fall through to ret: only the function exit joins them
  EXPECT_EQ(f.instrs[12].info.ipdom, 13);  // unreachable infinite loop: the exit, by convention
  EXPECT_TRUE(f.instrs[12].info.block >= 0);
}

TEST(PtxAnalysis, NestedDivergence) {
  auto m = kernel(R"(
	mov.u32 %r1, %tid.x;            // 0
	setp.lt.u32 %p1, %r1, 16;       // 1
	@!%p1 bra $OUTER_END;           // 2
	setp.lt.u32 %p2, %r1, 8;        // 3
	@!%p2 bra $INNER_END;           // 4
	add.s32 %r2, %r1, 1;            // 5
$INNER_END:
	add.s32 %r3, %r1, 2;            // 6
$OUTER_END:
	ret;                            // 7
)");
  const Function& f = *m->functions[0];
  EXPECT_EQ(f.instrs[2].info.ipdom, 7);
  EXPECT_EQ(f.instrs[4].info.ipdom, 6);
}

TEST(PtxAnalysis, DeadBits) {
  auto m = kernel(R"(
	ld.global.u32 %r1, [%rd1];      // 0: source 0 = %rd1, read again at 3
	add.s32 %r2, %r1, %r1;          // 1: %r1 read again at 2
	add.s32 %r3, %r1, %r2;          // 2: last reads of %r1 and %r2
	st.global.u32 [%rd1], %r3;      // 3: %rd1 and %r3 last reads
	add.s32 %r4, %r4, 1;            // 4: %r4 rewritten by itself: dead
	setp.eq.s32 %p1, %r4, 0;        // 5
	@%p1 mov.u32 %r4, 9;            // 6: guarded write does not kill %r4
	st.global.u32 [%rd2], %r4;      // 7
	ret;
)");
  const Function& f = *m->functions[0];
  auto dead = [&](int i) { return std::string{char('0' + f.instrs[i].info.dead[0]), char('0' + f.instrs[i].info.dead[1])}; };
  EXPECT_EQ(dead(0), "00");
  EXPECT_EQ(dead(1), "00");
  EXPECT_EQ(dead(2), "11");
  EXPECT_EQ(dead(3), "11");
  EXPECT_EQ(dead(4), "10");
  EXPECT_EQ(dead(5), "00");  // %r4 still read at 7 if the guarded mov does not run
  EXPECT_EQ(f.instrs[6].info.dead_mask, 1u);  // the only source, guard %p1, is not read later...
  std::vector<int32_t> uses;
  instr_uses(f.instrs[6], uses);
  ASSERT_EQ(uses.size(), 1u);  // ...but it is the guard
  EXPECT_EQ(uses[0], reg(f, "%p1"));
  EXPECT_EQ(dead(7), "11");
}

TEST(PtxAnalysis, DeadBitsAcrossLoopBackEdge) {
  auto m = kernel(R"(
	mov.u32 %r1, 0;                 // 0
	mov.u32 %r5, 3;                 // 1
$L:
	add.s32 %r1, %r1, %r5;          // 2: %r5 is read again next iteration: not dead
	setp.lt.s32 %p1, %r1, 100;      // 3
	@%p1 bra $L;                    // 4
	st.global.u32 [%rd1], %r1;      // 5
	ret;
)");
  const Function& f = *m->functions[0];
  EXPECT_TRUE(f.instrs[2].info.dead[0]);   // %r1 is rewritten by the add itself
  EXPECT_FALSE(f.instrs[2].info.dead[1]);  // %r5 live around the loop
  EXPECT_FALSE(f.instrs[3].info.dead[0]);  // %r1 read at 2 (next iteration) and 5
}

TEST(PtxAnalysis, DefUseChains) {
  auto m = kernel(R"(
	mov.u32 %r1, 1;                 // 0
	setp.eq.s32 %p1, %r9, 0;        // 1
	@%p1 bra $B;                    // 2
	mov.u32 %r1, 2;                 // 3
$B:
	add.s32 %r2, %r1, 1;            // 4: may read the value of 0 or of 3
	mov.u32 %r1, 3;                 // 5
	add.s32 %r3, %r1, %r2;          // 6
	ret;
)");
  const Function& f = *m->functions[0];
  EXPECT_EQ(f.def_uses[0], (std::vector<int32_t>{4}));
  EXPECT_EQ(f.def_uses[3], (std::vector<int32_t>{4}));
  EXPECT_EQ(f.def_uses[5], (std::vector<int32_t>{6}));
  EXPECT_EQ(f.def_uses[4], (std::vector<int32_t>{6}));
  EXPECT_EQ(f.def_uses[1], (std::vector<int32_t>{2}));
  EXPECT_TRUE(f.def_uses[6].empty());  // written, never read
  EXPECT_TRUE(f.def_uses[2].empty());  // writes nothing
}

TEST(PtxAnalysis, RegisterCount) {
  // Three 32-bit values live at once (%r1, %r2, %r3), one 64-bit value (pair)
  // live across them: 5 registers. Predicates are not counted.
  auto m = kernel(R"(
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r1, [%rd1];
	ld.global.u32 %r2, [%rd1+4];
	ld.global.u32 %r3, [%rd1+8];
	setp.eq.s32 %p1, %r1, 0;
	add.s32 %r4, %r1, %r2;
	add.s32 %r5, %r4, %r3;
	st.global.u32 [%rd1], %r5;
	ret;
)");
  const Function& f = *m->functions[0];
  EXPECT_EQ(f.regs_allocator, 5u);
  int rd1 = f.phys_reg[reg(f, "%rd1")];
  EXPECT_EQ(rd1 % 2, 0);  // aligned pair
  for (const char* r : {"%r1", "%r2", "%r3"}) {
    int p = f.phys_reg[reg(f, r)];
    EXPECT_TRUE(p != rd1 && p != rd1 + 1) << r;
  }
  EXPECT_NE(f.phys_reg[reg(f, "%r1")], f.phys_reg[reg(f, "%r2")]);
  EXPECT_EQ(f.phys_reg[reg(f, "%p1")], -1);
  EXPECT_EQ(f.phys_reg[reg(f, "%r19")], -1);  // declared, never used
}

TEST(PtxAnalysis, RegisterReuseAfterLastUse) {
  // A chain: each value dies as the next is made: 2 registers suffice.
  auto m = kernel(R"(
	mov.u32 %r1, 1;
	add.s32 %r2, %r1, 1;
	add.s32 %r3, %r2, 1;
	add.s32 %r4, %r3, 1;
	add.s32 %r5, %r4, 1;
	st.global.u32 [%rd1], %r5;
	ret;
)");
  const Function& f = *m->functions[0];
  // %rd1 (a pair, live throughout, read before written) + 1 for the chain.
  EXPECT_EQ(f.regs_allocator, 3u);
}

TEST(PtxAnalysis, Taint) {
  auto m = kernel(R"(
	mov.u32 %r1, %tid.x;            // 0
	mov.u32 %r2, %ntid.x;           // 1 (not an ID)
	shl.b32 %r3, %r1, 2;            // 2 tainted through %r1
	setp.lt.u32 %p1, %r2, 64;       // 3 uniform
	@%p1 bra $U;                    // 4 uniform branch
	mov.u32 %r10, 1;                // 5
$U:
	setp.lt.u32 %p2, %r3, 64;       // 6 tainted
	@%p2 bra $T;                    // 7 tainted branch
	add.s32 %r11, %r2, %r12;        // 8 inside the tainted region
	mov.u32 %r13, %r11;             // 9
$T:
	add.s32 %r14, %r2, 1;           // 10 after reconvergence
	ret;
)");
  const Function& f = *m->functions[0];
  EXPECT_FALSE(f.instrs[4].info.tainted_branch);
  EXPECT_TRUE(f.instrs[7].info.tainted_branch);
  EXPECT_EQ(f.instrs[7].info.ipdom, 10);
  EXPECT_TRUE(tainted(f, "%r11"));
  EXPECT_TRUE(tainted(f, "%r12"));
  EXPECT_TRUE(tainted(f, "%r13"));
  EXPECT_TRUE(tainted(f, "%r2"));    // read inside the region
  EXPECT_FALSE(tainted(f, "%r10"));  // under the uniform branch only
  EXPECT_FALSE(tainted(f, "%r14"));
  EXPECT_FALSE(tainted(f, "%r1"));   // tainted data, but not used in the region
  EXPECT_EQ(f.programmatic_regs, f.tainted_regs);  // arithmetic on %tid only
}

TEST(PtxAnalysis, TaintThroughLoadAddressAndGuard) {
  auto m = kernel(R"(
	mov.u32 %r1, %ctaid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.u32 %r2, [%rd3];       // value from a tainted address
	setp.ne.s32 %p1, %r2, 0;
	@%p1 bra $X;
	mov.u32 %r5, 1;
$X:
	ret;
)");
  const Function& f = *m->functions[0];
  EXPECT_TRUE(f.instrs[5].info.tainted_branch);
  EXPECT_TRUE(tainted(f, "%r5"));
  EXPECT_FALSE(programmatic(f, "%r5"));  // the guard is loaded data, not the id
  EXPECT_TRUE(f.programmatic_regs.empty());
}

// A reduction's `if (tid < s)` with s halved each trip: arithmetic on the
// id with a loop variable. Programmatic (the paper's kind of branch), but no
// launch can evaluate it, so lane compaction leaves it alone.
TEST(PtxAnalysis, ProgrammaticBranchesIncludeLoopVariables) {
  auto m = kernel(R"(
	mov.u32 %r1, %tid.x;            // 0
	mov.u32 %r2, 16;                // 1
$LOOP:
	setp.ge.u32 %p1, %r1, %r2;      // 2
	@%p1 bra $SKIP;                 // 3
	add.s32 %r3, %r1, %r2;          // 4
$SKIP:
	shr.u32 %r2, %r2, 1;            // 5
	setp.ne.u32 %p2, %r2, 0;        // 6
	@%p2 bra $LOOP;                 // 7
	ret;
)");
  const Function& f = *m->functions[0];
  EXPECT_TRUE(f.instrs[3].info.tainted_branch);
  EXPECT_TRUE(programmatic(f, "%r3"));
  EXPECT_TRUE(tainted(f, "%r3"));
  EXPECT_TRUE(f.lane_regs.empty());  // %r2 is written twice: a loop variable
}

// Lane compaction's branches (Function::lane_branches): the taint test's
// branch is computed from %tid and an immediate, so a launch can evaluate it
// (slice: instructions 0, 2 and 6); its fall-through path holds 2
// instructions, the taken one none (it jumps to the reconvergence point).
TEST(PtxAnalysis, LaneBranchesAreThoseALaunchCanEvaluate) {
  auto m = kernel(R"(
	mov.u32 %r1, %tid.x;            // 0
	mov.u32 %r2, %ntid.x;           // 1
	shl.b32 %r3, %r1, 2;            // 2
	setp.lt.u32 %p1, %r2, 64;       // 3
	@%p1 bra $U;                    // 4 uniform: not a lane branch
	mov.u32 %r10, 1;                // 5
$U:
	setp.lt.u32 %p2, %r3, 64;       // 6
	@%p2 bra $T;                    // 7
	add.s32 %r11, %r2, %r12;        // 8
	mov.u32 %r13, %r11;             // 9
$T:
	ret;
)");
  const Function& f = *m->functions[0];
  ASSERT_EQ(f.lane_branches.size(), 1u);
  EXPECT_EQ(f.lane_branches[0].at, 7);
  EXPECT_EQ(f.lane_branches[0].slice, (std::vector<int32_t>{0, 2, 6}));
  EXPECT_EQ(f.lane_branches[0].fall_len, 2u);
  EXPECT_EQ(f.lane_branches[0].taken_len, 0u);
  std::vector<int32_t> want{reg(f, "%r2"), reg(f, "%r11"), reg(f, "%r12"), reg(f, "%r13")};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(f.lane_regs, want);
}

// Not evaluable at launch: a condition on loaded data, on a loop variable
// (written twice), or on %clock; a kernel parameter is.
TEST(PtxAnalysis, LaneBranchesSkipDataLoopsAndClocks) {
  auto m = kernel(R"(
	mov.u32 %r1, %tid.x;            // 0
	mul.wide.u32 %rd2, %r1, 4;      // 1
	add.s64 %rd3, %rd1, %rd2;       // 2
	ld.global.u32 %r2, [%rd3];      // 3
	setp.ne.s32 %p1, %r2, 0;        // 4 data
	@%p1 bra $A;                    // 5
	mov.u32 %r5, 1;                 // 6
$A:
	mov.u32 %r6, 0;                 // 7
$L:
	add.u32 %r6, %r6, 1;            // 8 loop variable
	setp.lt.u32 %p2, %r1, %r6;      // 9
	@%p2 bra $B;                    // 10
	mov.u32 %r7, 1;                 // 11
$B:
	setp.lt.u32 %p5, %r6, 4;        // 12
	@%p5 bra $L;                    // 13
	mov.u32 %r8, %clock;            // 14
	add.u32 %r9, %r8, %r1;          // 15
	setp.lt.u32 %p3, %r9, 7;        // 16 clock
	@%p3 bra $C;                    // 17
	mov.u32 %r10, 1;                // 18
$C:
	ld.param.u32 %r11, [p];         // 19
	setp.lt.u32 %p4, %r1, %r11;     // 20 parameter
	@%p4 bra $D;                    // 21
	mov.u32 %r12, 1;                // 22
$D:
	ret;
)");
  const Function& f = *m->functions[0];
  for (int i : {5, 10, 17, 21}) EXPECT_TRUE(f.instrs[size_t(i)].info.tainted_branch) << i;
  ASSERT_EQ(f.lane_branches.size(), 1u);
  EXPECT_EQ(f.lane_branches[0].at, 21);
  EXPECT_EQ(f.lane_branches[0].slice, (std::vector<int32_t>{0, 19, 20}));
  EXPECT_EQ(f.lane_regs, std::vector<int32_t>{reg(f, "%r12")});  // the other branches' registers are tainted only
  EXPECT_GT(f.tainted_regs.size(), 1u);
}

TEST(PtxAnalysis, OperandRoles) {
  auto m = kernel(R"(
	st.global.v2.u32 [%rd1+8], {%r1, %r2};
	ld.global.v2.u32 {%r3, %r4}, [%rd2];
	setp.lt.s32 %p1|%p2, %r5, %r6;
	@%p3 add.s32 %r7, %r8, %r9;
	ret;
)");
  const Function& f = *m->functions[0];
  std::vector<int32_t> u, d;
  instr_uses(f.instrs[0], u);
  EXPECT_EQ(u, (std::vector<int32_t>{reg(f, "%rd1"), reg(f, "%r1"), reg(f, "%r2")}));
  instr_defs(f.instrs[0], d);
  EXPECT_TRUE(d.empty());
  instr_defs(f.instrs[1], d);
  EXPECT_EQ(d, (std::vector<int32_t>{reg(f, "%r3"), reg(f, "%r4")}));
  instr_defs(f.instrs[2], d);
  EXPECT_EQ(d, (std::vector<int32_t>{reg(f, "%p1"), reg(f, "%p2")}));
  instr_uses(f.instrs[3], u);
  EXPECT_EQ(u, (std::vector<int32_t>{reg(f, "%r8"), reg(f, "%r9"), reg(f, "%p3")}));
}

// LESS's lifetime analysis: a value read within `threshold` instructions is
// short; one read later, or inside a loop it outlives, is long.
TEST(PtxAnalysis, LongLivedRegisters) {
  auto m = kernel(R"(
  mov.u32 %r1, 1;
  mov.u32 %r2, 2;
  add.u32 %r3, %r1, 5;
  add.u32 %r4, %r3, 1;
  add.u32 %r4, %r4, 1;
  add.u32 %r4, %r4, 1;
  add.u32 %r4, %r4, 1;
  add.u32 %r4, %r4, 1;
  add.u32 %r4, %r4, 1;
  add.u32 %r4, %r4, 1;
  add.u32 %r4, %r4, 1;
  add.u32 %r5, %r4, %r2;
  mov.u32 %r6, 0;
L:
  add.u32 %r7, %r6, 3;
  add.u32 %r6, %r7, %r1;
  setp.lt.u32 %p1, %r6, 100;
  @%p1 bra L;
  st.global.u32 [%rd1], %r6;
  ret;)");
  const Function& f = *m->functions[0];
  // r2 is written at 1 and read at 11 (10 instructions later): short at 10, long at 9.
  auto lv10 = long_lived_regs(f, 10), lv9 = long_lived_regs(f, 9);
  EXPECT_FALSE(lv10[reg(f, "%r2")]);
  EXPECT_TRUE(lv9[reg(f, "%r2")]);
  EXPECT_FALSE(lv10[reg(f, "%r3")]);  // read by the next instruction
  EXPECT_FALSE(lv10[reg(f, "%r4")]);  // each value read at once (rewritten in place)
  EXPECT_TRUE(lv10[reg(f, "%r1")]);   // read in every iteration of a loop it outlives
  EXPECT_FALSE(lv10[reg(f, "%r7")]);  // read by the next instruction in each iteration
  EXPECT_FALSE(lv10[reg(f, "%r6")]);  // loop-carried, but each value is read within 4 instructions
  EXPECT_FALSE(lv10[reg(f, "%p1")]);  // predicates have no RF register
}
