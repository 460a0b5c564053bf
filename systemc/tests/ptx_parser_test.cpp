// Parser: hand-written PTX covering the grammar nvcc emits, and real nvcc 13
// output (tests/data/ptx) that must load.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "ptx/parser.h"
#include "test_paths.h"

using namespace relgpu::ptx;
namespace testpaths = relgpu::testpaths;

namespace {

std::string data_path(const std::string& name) {
  return testpaths::source_path("systemc/tests/data/ptx/" + name);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << path;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const char* kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

int reg(const Function& f, const std::string& name) {
  for (size_t i = 0; i < f.regs.size(); ++i)
    if (f.regs[i].name == name) return int(i);
  return -1;
}

int sym(const Function& f, const std::string& name) {
  for (size_t i = 0; i < f.symbols.size(); ++i)
    if (f.symbols[i].name == name) return int(i);
  return -1;
}

const Symbol& global(const Module& m, const std::string& name) {
  for (const Symbol& s : m.globals)
    if (s.name == name) return s;
  throw std::runtime_error("no global " + name);
}

// Parses a kernel body and returns its first instruction.
std::unique_ptr<Module> one(const std::string& decls, const std::string& body) {
  return parse(std::string(kHeader) + ".visible .entry k(.param .u64 p)\n{\n" + decls + "\n" + body + "\n}\n", "t.ptx");
}

}  // namespace

TEST(PtxParser, ModuleHeaderAndGlobals) {
  std::string src = std::string(kHeader) + R"(
// line comment
/* block
   comment */
.const .align 4 .b8 cvals[8] = {0, 0, 128, 63, 0, 0, 0, 64};
.global .align 4 .u32 gcount = 7;
.global .align 8 .u64 gptr = generic(gcount);
.global .align 8 .u64 tbl[3] = {gcount, gcount+8};
.global .f32 fone = 0f3F800000;
.global .f64 dtwo = 0d4000000000000000;
.global .s32 mat[2][2] = {{1, -2}, {3, 0x10}};
.global .u8 oct[2] = {017, 0b101};
.global .f32 fdec[2] = {1.5, -2};
.extern .shared .align 16 .b8 dyn[];
)";
  auto m = parse(src, "g.ptx");
  EXPECT_EQ(m->version, "9.0");
  EXPECT_EQ(m->target, "sm_75");
  EXPECT_EQ(m->address_size, 64u);
  const Symbol& c = global(*m, "cvals");
  EXPECT_EQ(c.space, Space::const_);
  EXPECT_EQ(c.size, 8u);
  EXPECT_EQ(c.align, 4u);
  float f;
  std::memcpy(&f, c.init.data(), 4);
  EXPECT_EQ(f, 1.0f);
  const Symbol& g = global(*m, "gcount");
  ASSERT_EQ(g.init.size(), 4u);
  EXPECT_EQ(g.init[0], 7);
  const Symbol& p = global(*m, "gptr");
  ASSERT_EQ(p.relocs.size(), 1u);
  EXPECT_TRUE(p.relocs[0].generic);
  EXPECT_EQ(m->globals[p.relocs[0].target].name, "gcount");
  const Symbol& t = global(*m, "tbl");
  EXPECT_EQ(t.size, 24u);
  ASSERT_EQ(t.relocs.size(), 2u);
  EXPECT_EQ(t.relocs[1].offset, 8u);
  EXPECT_EQ(t.relocs[1].addend, 8);
  EXPECT_FALSE(t.relocs[1].generic);
  std::memcpy(&f, global(*m, "fone").init.data(), 4);
  EXPECT_EQ(f, 1.0f);
  double d;
  std::memcpy(&d, global(*m, "dtwo").init.data(), 8);
  EXPECT_EQ(d, 2.0);
  int32_t mat[4];
  std::memcpy(mat, global(*m, "mat").init.data(), 16);
  EXPECT_EQ(mat[0], 1);
  EXPECT_EQ(mat[1], -2);
  EXPECT_EQ(mat[2], 3);
  EXPECT_EQ(mat[3], 16);
  EXPECT_EQ(global(*m, "oct").init[0], 15);
  EXPECT_EQ(global(*m, "oct").init[1], 5);
  float fd[2];
  std::memcpy(fd, global(*m, "fdec").init.data(), 8);
  EXPECT_EQ(fd[0], 1.5f);
  EXPECT_EQ(fd[1], -2.0f);
  const Symbol& dyn = global(*m, "dyn");
  EXPECT_TRUE(dyn.extern_);
  EXPECT_EQ(dyn.size, 0u);
  EXPECT_EQ(dyn.space, Space::shared);
}

TEST(PtxParser, KernelParamsRegsLabelsAndOperands) {
  std::string src = std::string(kHeader) + R"(
.visible .entry k(
	.param .u64 k_param_0,
	.param .u32 k_param_1,
	.param .align 8 .b8 k_param_2[16],
	.param .u8 k_param_3,
	.param .u64 .ptr .global .align 16 k_param_4
)
.maxntid 256, 1, 1
.minnctapersm 2
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<4>;
	.reg .f32   %f1, %f2;
	.local .align 8 .b8 	__local_depot0[24];
	.pragma "nounroll";
	.loc 1 2 3
	ld.param.u64 	%rd1, [k_param_0];
	ld.param.f64 	%rd2, [k_param_2+8];
	mov.u32 	%r1, %tid.y;
	mov.u32 	%r2, %ctaid.x;
	setp.ge.s32 	%p1|%p2, %r1, %r2;
	@!%p1 bra 	$L__BB0_2;
	add.s32 	%r3, %r1, -4;
	ld.global.v2.u32 	{%r4, _}, [%rd1+-4];
$L__BB0_2:
	st.global.u32 	[%rd1+8], 0x10;
	mov.b32 	%f1, 0f3F800000;
	mov.f32 	%f2, 0.5;
	selp.b32 	%r5, 12U, 010, !%p2;
	ld.shared.u32 	%r6, [0x100];
	mov.u64 	%rd3, __local_depot0;
	ret;
}
)";
  auto m = parse(src, "k.ptx");
  ASSERT_EQ(m->functions.size(), 1u);
  const Function& f = *m->functions[0];
  EXPECT_TRUE(f.is_entry);
  EXPECT_TRUE(f.defined);
  EXPECT_EQ(f.maxntid[0], 256u);
  EXPECT_EQ(f.maxntid[1], 1u);
  EXPECT_EQ(f.minnctapersm, 2u);
  ASSERT_EQ(f.params.size(), 5u);
  const Symbol& p0 = f.symbols[f.params[0]];
  const Symbol& p1 = f.symbols[f.params[1]];
  const Symbol& p2 = f.symbols[f.params[2]];
  const Symbol& p3 = f.symbols[f.params[3]];
  const Symbol& p4 = f.symbols[f.params[4]];
  EXPECT_EQ(p0.offset, 0u);
  EXPECT_EQ(p1.offset, 8u);
  EXPECT_EQ(p2.offset, 16u);  // aligned to 8
  EXPECT_EQ(p2.size, 16u);
  EXPECT_EQ(p3.offset, 32u);
  EXPECT_EQ(p4.offset, 48u);  // .align 16
  EXPECT_EQ(f.param_bytes, 56u);
  EXPECT_EQ(f.local_bytes, 24u);
  EXPECT_EQ(f.regs.size(), 3u + 10u + 4u + 2u);
  EXPECT_EQ(f.regs[reg(f, "%r9")].type, Type::b32);
  EXPECT_EQ(f.regs[reg(f, "%p0")].type, Type::pred);
  ASSERT_EQ(f.instrs.size(), 15u);
  EXPECT_EQ(f.labels.at("$L__BB0_2"), 8);
  const Instr& ld = f.instrs[0];
  EXPECT_EQ(ld.op, Opcode::ld);
  EXPECT_EQ(ld.m.space, Space::param);
  EXPECT_EQ(ld.m.type, Type::u64);
  EXPECT_EQ(ld.ops[1].kind, Operand::Kind::addr);
  EXPECT_EQ(ld.ops[1].sym, f.params[0]);
  EXPECT_EQ(ld.ops[1].reg, -1);
  EXPECT_EQ(ld.line, 22u);
  EXPECT_EQ(ld.col, 2u);
  EXPECT_EQ(ld.text, "ld.param.u64 %rd1, [k_param_0]");
  EXPECT_EQ(f.instrs[1].ops[1].imm, 8);
  EXPECT_EQ(f.instrs[2].ops[1].kind, Operand::Kind::sreg);
  EXPECT_EQ(f.instrs[2].ops[1].sreg, Sreg::tid);
  EXPECT_EQ(f.instrs[2].ops[1].comp, 1);
  const Instr& sp = f.instrs[4];
  EXPECT_EQ(sp.m.cmp, Cmp::ge);
  EXPECT_EQ(sp.m.type, Type::s32);
  EXPECT_EQ(sp.ops[0].reg, reg(f, "%p1"));
  EXPECT_EQ(sp.pair_dst, reg(f, "%p2"));
  const Instr& br = f.instrs[5];
  EXPECT_EQ(br.guard, reg(f, "%p1"));
  EXPECT_TRUE(br.guard_neg);
  EXPECT_EQ(br.ops[0].kind, Operand::Kind::label);
  EXPECT_EQ(br.ops[0].imm, 8);
  EXPECT_EQ(br.text, "@!%p1 bra $L__BB0_2");
  EXPECT_EQ(f.instrs[6].ops[2].imm, -4);
  const Instr& v = f.instrs[7];
  EXPECT_EQ(v.m.vec, 2);
  ASSERT_EQ(v.ops[0].kind, Operand::Kind::vec);
  EXPECT_EQ(v.ops[0].vregs, (std::vector<int32_t>{reg(f, "%r4"), -1}));
  EXPECT_EQ(v.ops[1].reg, reg(f, "%rd1"));
  EXPECT_EQ(v.ops[1].imm, -4);
  EXPECT_EQ(f.instrs[8].ops[1].imm, 16);
  EXPECT_TRUE(f.instrs[9].ops[1].fimm);
  EXPECT_EQ(f.instrs[9].ops[1].imm, 0x3F800000);
  double half;
  std::memcpy(&half, &f.instrs[10].ops[1].imm, 8);
  EXPECT_EQ(half, 0.5);
  EXPECT_TRUE(f.instrs[10].ops[1].fimm);
  const Instr& sel = f.instrs[11];
  EXPECT_EQ(sel.ops[1].imm, 12);
  EXPECT_EQ(sel.ops[2].imm, 8);  // octal
  EXPECT_TRUE(sel.ops[3].neg);
  EXPECT_EQ(sel.ops[3].reg, reg(f, "%p2"));
  EXPECT_EQ(f.instrs[12].ops[1].reg, -1);
  EXPECT_EQ(f.instrs[12].ops[1].sym, -1);
  EXPECT_EQ(f.instrs[12].ops[1].imm, 0x100);
  EXPECT_EQ(f.instrs[13].ops[1].kind, Operand::Kind::sym);
  EXPECT_EQ(f.symbols[f.instrs[13].ops[1].sym].space, Space::local);
  EXPECT_EQ(f.instrs[14].op, Opcode::ret);
}

TEST(PtxParser, Modifiers) {
  struct Case { const char* text; void (*check)(const Instr&); };
  const Case cases[] = {
      {"cvt.rn.f32.s32 %f1, %r1;", [](const Instr& i) { EXPECT_EQ(i.m.rnd, Rnd::rn); EXPECT_EQ(i.m.type, Type::f32); EXPECT_EQ(i.m.type2, Type::s32); }},
      {"cvt.rzi.sat.s32.f32 %r1, %f1;", [](const Instr& i) { EXPECT_EQ(i.m.rnd, Rnd::rzi); EXPECT_TRUE(i.m.sat); }},
      {"setp.ltu.and.f32 %p1, %f1, %f2, %p2;", [](const Instr& i) { EXPECT_EQ(i.m.cmp, Cmp::ltu); EXPECT_EQ(i.m.bop, BoolOp::and_); }},
      {"set.lt.u32.f32 %r1, %f1, %f2;", [](const Instr& i) { EXPECT_EQ(i.m.type, Type::u32); EXPECT_EQ(i.m.type2, Type::f32); }},
      {"mul.wide.s32 %rd1, %r1, 4;", [](const Instr& i) { EXPECT_EQ(i.m.mul, MulMode::wide); }},
      {"mad.lo.cc.u32 %r1, %r2, %r3, %r1;", [](const Instr& i) { EXPECT_EQ(i.m.mul, MulMode::lo); EXPECT_TRUE(i.m.cc); }},
      {"ex2.approx.ftz.f32 %f1, %f2;", [](const Instr& i) { EXPECT_TRUE(i.m.approx); EXPECT_TRUE(i.m.ftz); }},
      {"div.full.f32 %f1, %f1, %f2;", [](const Instr& i) { EXPECT_TRUE(i.m.full); }},
      {"atom.global.cas.b32 %r1, [%rd1], 0, %r2;", [](const Instr& i) { EXPECT_EQ(i.m.atom, AtomOp::cas); EXPECT_EQ(i.m.space, Space::global); }},
      {"atom.relaxed.gpu.shared.add.f32 %f1, [%rd1], %f2;", [](const Instr& i) { EXPECT_TRUE(i.m.relaxed); EXPECT_EQ(i.m.scope, Scope::gpu); EXPECT_EQ(i.m.atom, AtomOp::add); EXPECT_EQ(i.m.space, Space::shared); }},
      {"red.global.or.b32 [%rd1], %r1;", [](const Instr& i) { EXPECT_EQ(i.m.atom, AtomOp::or_); }},
      {"vote.sync.ballot.b32 %r1, %p1, -1;", [](const Instr& i) { EXPECT_EQ(i.m.vote, VoteMode::ballot); EXPECT_TRUE(i.m.sync); }},
      {"vote.uni.pred %p1, %p2;", [](const Instr& i) { EXPECT_EQ(i.m.vote, VoteMode::uni); EXPECT_FALSE(i.m.uni); }},
      {"shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;", [](const Instr& i) { EXPECT_EQ(i.m.shfl, ShflMode::bfly); EXPECT_GE(i.pair_dst, 0); }},
      {"prmt.b32.rc16 %r1, %r2, %r3, 0;", [](const Instr& i) { EXPECT_EQ(i.m.prmt, PrmtMode::rc16); }},
      {"shf.r.wrap.b32 %r1, %r2, %r3, 5;", [](const Instr& i) { EXPECT_EQ(i.m.shf, ShfMode::r_wrap); }},
      {"shf.l.clamp.b32 %r1, %r2, %r3, 5;", [](const Instr& i) { EXPECT_EQ(i.m.shf, ShfMode::l_clamp); }},
      {"bar.sync 0;", [](const Instr& i) { EXPECT_EQ(i.m.bar, BarMode::sync); }},
      {"barrier.sync.aligned 0, 64;", [](const Instr& i) { EXPECT_EQ(i.m.bar, BarMode::sync); EXPECT_TRUE(i.m.aligned); }},
      {"bar.warp.sync -1;", [](const Instr& i) { EXPECT_TRUE(i.m.warp); EXPECT_EQ(i.m.bar, BarMode::none); }},
      {"bar.red.popc.u32 %r1, 0, %p1;", [](const Instr& i) { EXPECT_EQ(i.m.bar, BarMode::red_popc); }},
      {"bar.red.and.pred %p1, 0, %p2;", [](const Instr& i) { EXPECT_EQ(i.m.bar, BarMode::red_and); }},
      {"ld.global.nc.L1::no_allocate.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];", [](const Instr& i) { EXPECT_TRUE(i.m.nc); EXPECT_EQ(i.m.vec, 4); EXPECT_EQ(i.m.hints, ".L1::no_allocate"); }},
      {"st.global.cs.f32 [%rd1], %f1;", [](const Instr& i) { EXPECT_EQ(i.m.hints, ".cs"); }},
      {"ld.volatile.shared::cta.u32 %r1, [%r2];", [](const Instr& i) { EXPECT_TRUE(i.m.volatile_); EXPECT_EQ(i.m.space, Space::shared); }},
      {"ld.acquire.sys.global.u32 %r1, [%rd1];", [](const Instr& i) { EXPECT_TRUE(i.m.acquire); EXPECT_EQ(i.m.scope, Scope::sys); }},
      {"cvta.to.global.u64 %rd1, %rd2;", [](const Instr& i) { EXPECT_TRUE(i.m.to); EXPECT_EQ(i.m.space, Space::global); }},
      {"bfind.shiftamt.u32 %r1, %r2;", [](const Instr& i) { EXPECT_TRUE(i.m.shiftamt); }},
      {"min.NaN.f32 %f1, %f2, %f3;", [](const Instr& i) { EXPECT_TRUE(i.m.nan); }},
      {"max.xorsign.abs.f32 %f1, %f2, %f3;", [](const Instr& i) { EXPECT_TRUE(i.m.xorsign); EXPECT_TRUE(i.m.abs); }},
      {"membar.gl;", [](const Instr& i) { EXPECT_EQ(i.m.scope, Scope::gpu); }},
      {"fence.acq_rel.gpu;", [](const Instr& i) { EXPECT_TRUE(i.m.acquire); EXPECT_TRUE(i.m.release); }},
      {"bra.uni $L;", [](const Instr& i) { EXPECT_TRUE(i.m.uni); }},
      {"match.any.sync.b32 %r1, %r2, -1;", [](const Instr& i) { EXPECT_EQ(i.m.vote, VoteMode::any); }},
      {"redux.sync.add.u32 %r1, %r2, -1;", [](const Instr& i) { EXPECT_EQ(i.m.atom, AtomOp::add); }},
      {"atom.global.add.noftz.f16 %h1, [%rd1], %h2;", [](const Instr& i) { EXPECT_TRUE(i.m.noftz); EXPECT_EQ(i.m.type, Type::f16); }},
      {"cvt.rn.relu.f16x2.f32 %r1, %f1, %f2;", [](const Instr& i) { EXPECT_TRUE(i.m.relu); EXPECT_EQ(i.m.type, Type::f16x2); }},
      {"testp.finite.f32 %p1, %f1;", [](const Instr& i) { EXPECT_EQ(i.m.unknown, ".finite"); EXPECT_TRUE(i.undecoded); }},
      {"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3}, {%f1, %f2, %f3, %f4};", [](const Instr& i) { EXPECT_TRUE(i.undecoded); EXPECT_TRUE(i.m.unknown.empty()); }},
      {"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tref, {%f1, %f2}];", [](const Instr& i) { EXPECT_TRUE(i.undecoded); EXPECT_TRUE(i.ops.empty()); }},
  };
  const char* decls = ".reg .pred %p<3>; .reg .b32 %r<4>; .reg .b64 %rd<3>; .reg .f32 %f<5>; .reg .b16 %h<3>;";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    auto m = one(decls, std::string("$L: ") + c.text);
    const Function& f = *m->functions[0];
    ASSERT_EQ(f.instrs.size(), 1u);
    c.check(f.instrs[0]);
  }
}

TEST(PtxParser, CallSequenceAndFuncLayout) {
  std::string src = std::string(kHeader) + R"(
.func  (.param .align 8 .b8 func_retval0[16]) helper
(
	.param .b64 helper_param_0,
	.param .b32 helper_param_1
)
;
.visible .entry k(.param .u64 k_param_0)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd1;
	.param .b32 param1;
	st.param.b32 	[param1+0], %r1;
	.param .align 8 .b8 retval0[16];
	call.uni (retval0),
	helper,
	(
	param0,
	param1
	);
	ld.param.b32 	%r2, [retval0+8];
	} // callseq 0
	{ // a second sequence reuses the names
	.param .b64 param0;
	.param .b32 param1;
	.param .align 8 .b8 retval0[16];
	call.uni (retval0), helper, (param0, param1);
	}
	ret;
}
.func  (.param .align 8 .b8 func_retval0[16]) helper(
	.param .b64 helper_param_0,
	.param .b32 helper_param_1
)
{
	.reg .b32 %r<2>;
	ld.param.b32 %r1, [helper_param_1];
	st.param.b32 [func_retval0+8], %r1;
	ret;
}
)";
  auto m = parse(src, "c.ptx");
  ASSERT_EQ(m->functions.size(), 2u);
  const Function& h = *m->find("helper");
  EXPECT_TRUE(h.defined);
  EXPECT_FALSE(h.is_entry);
  ASSERT_EQ(h.rets.size(), 1u);
  EXPECT_EQ(h.symbols[h.params[0]].offset, 0u);
  EXPECT_EQ(h.symbols[h.params[1]].offset, 8u);
  EXPECT_EQ(h.symbols[h.rets[0]].offset, 16u);
  EXPECT_EQ(h.symbols[h.rets[0]].size, 16u);
  EXPECT_EQ(h.param_bytes, 32u);
  const Function& k = *m->find("k");
  const Instr& call = k.instrs[2];
  ASSERT_EQ(call.op, Opcode::call);
  EXPECT_TRUE(call.m.uni);
  ASSERT_EQ(call.ops.size(), 3u);
  EXPECT_EQ(call.ops[1].kind, Operand::Kind::func);
  EXPECT_EQ(m->functions[call.ops[1].sym]->name, "helper");
  ASSERT_EQ(call.ops[0].vregs.size(), 1u);
  ASSERT_EQ(call.ops[2].vregs.size(), 2u);
  EXPECT_EQ(k.symbols[call.ops[0].vregs[0]].name, "retval0");
  EXPECT_EQ(k.symbols[call.ops[2].vregs[1]].name, "param1");
  EXPECT_EQ(call.ops[2].vregs[0], k.instrs[0].ops[0].sym);  // the st.param's param0
  const Instr& call2 = k.instrs[4];
  EXPECT_NE(call2.ops[2].vregs[0], call.ops[2].vregs[0]);  // a new scope, a new param0
  EXPECT_EQ(k.symbols[call2.ops[2].vregs[0]].name, "param0");
}

TEST(PtxParser, SharedLayout) {
  std::string src = std::string(kHeader) + R"(
.shared .align 4 .b8 common_arr[100];
.extern .shared .align 16 .b8 dyn[];
.func f()
{
	.reg .b32 %r<2>;
	.shared .align 8 .b8 fsh[8];
	mov.u32 %r1, common_arr;
	mov.u32 %r1, dyn;
	mov.u32 %r1, fsh;
	ret;
}
.visible .entry k1()
{
	.reg .b32 %r<2>;
	.shared .align 4 .b8 tile[40];
	mov.u32 %r1, tile;
	call f;
	ret;
}
.visible .entry k2()
{
	.reg .b32 %r<2>;
	.shared .align 4 .b8 tile2[64];
	mov.u32 %r1, tile2;
	mov.u32 %r1, dyn;
	ret;
}
)";
  auto m = parse(src, "s.ptx");
  const Function& f = *m->find("f");
  const Function& k1 = *m->find("k1");
  const Function& k2 = *m->find("k2");
  // The common area: common_arr [0,100), f's fsh hoisted at [104,112).
  EXPECT_EQ(f.symbols[sym(f, "common_arr")].offset, 0u);
  EXPECT_EQ(f.symbols[sym(f, "fsh")].offset, 104u);
  EXPECT_GE(f.symbols[sym(f, "fsh")].module_sym, 0);
  // k1 uses the common area through f: its own tile follows it.
  EXPECT_EQ(k1.symbols[sym(k1, "tile")].offset, 112u);
  EXPECT_EQ(k1.shared_bytes, 152u);
  EXPECT_EQ(k1.dyn_shared_offset, 160u);
  EXPECT_EQ(f.symbols[sym(f, "dyn")].offset, 160u);  // inherited from k1, its only caller
  // k2 uses no common symbol: its tile starts at 0.
  EXPECT_EQ(k2.symbols[sym(k2, "tile2")].offset, 0u);
  EXPECT_EQ(k2.shared_bytes, 64u);
  EXPECT_EQ(k2.symbols[sym(k2, "dyn")].offset, 64u);
  EXPECT_EQ(k2.symbols[sym(k2, "dyn")].module_sym, sym(k2, "dyn") >= 0 ? k2.symbols[sym(k2, "dyn")].module_sym : -1);
  EXPECT_EQ(m->globals[k2.symbols[sym(k2, "dyn")].module_sym].name, "dyn");
}

TEST(PtxParser, InlineAsmScopesAndVectorImmediates) {
  auto m = one(".reg .b32 %r<4>; .reg .f32 %f<3>; .reg .b16 %rs<3>;", R"(
	{.reg .f16 low,high;
	mov.b32 {low,high}, %r1;
	$L1: add.s32 %r2, %r2, 1;
	bra $L1;
	}
	{.reg.b32 low;
	mov.b32 low, %r1;
	$L1: bra $L1;
	}
	{ mov.b32 %f1, {0,%rs2};}
	ret;)");
  const Function& f = *m->functions[0];
  // Both blocks declare `low`: two distinct registers.
  int n_low = 0;
  for (const Reg& r : f.regs) n_low += r.name == "low";
  EXPECT_EQ(n_low, 2);
  EXPECT_EQ(f.instrs[2].ops[0].imm, 1);  // first $L1
  EXPECT_EQ(f.instrs[4].ops[0].imm, 4);  // second $L1
  // {0,%rs2}: an inserted mov.b16 of 0 into a temporary, then the mov.
  ASSERT_EQ(f.instrs.size(), 8u);
  const Instr& ins = f.instrs[5];
  EXPECT_EQ(ins.op, Opcode::mov);
  EXPECT_EQ(ins.m.type, Type::b16);
  EXPECT_EQ(ins.ops[1].imm, 0);
  EXPECT_EQ(f.instrs[6].ops[1].vregs[0], ins.ops[0].reg);
  EXPECT_EQ(f.regs[ins.ops[0].reg].type, Type::b16);
}

TEST(PtxParser, NvccOutputParses) {
  struct F { const char* file; size_t min_funcs; const char* kernel; };
  const F files[] = {{"nvcc_a_O3.ptx", 7, "_Z6k_mathPfPKfi1S"},
                     {"nvcc_a_G.ptx", 30, "_Z6k_atomPiPjP6float4S2_"},
                     {"nvcc_b_O3.ptx", 3, "_Z3redPfPKfi"},
                     {"nvcc_c_O3_lineinfo.ptx", 6, "_Z2k3Pii"}};
  for (const F& x : files) {
    SCOPED_TRACE(x.file);
    std::string text = read_file(data_path(x.file));
    std::unique_ptr<Module> m;
    ASSERT_NO_THROW(m = parse(text, x.file));
    EXPECT_GE(m->functions.size(), x.min_funcs);
    const Function* k = m->find(x.kernel);
    ASSERT_NE(k, nullptr);
    EXPECT_TRUE(k->is_entry);
    EXPECT_FALSE(k->instrs.empty());
    for (auto& f : m->functions)
      for (const Instr& in : f->instrs) {
        EXPECT_FALSE(in.undecoded) << f->name << ": " << in.text;
        EXPECT_LT(in.op, Opcode::count_);
        for (const Operand& o : in.ops)
          if (o.kind == Operand::Kind::label) {
            EXPECT_GE(o.imm, 0);
            EXPECT_LE(o.imm, int64_t(f->instrs.size()));
          }
      }
  }
  // Details of nvcc_a_O3: the demoted shared tile, the relocated gptr, the
  // kernel's struct parameter, and the printf call.
  auto m = parse(read_file(data_path("nvcc_a_O3.ptx")), "a.ptx");
  const Function& km = *m->find("_Z6k_mathPfPKfi1S");
  EXPECT_EQ(km.shared_bytes, 1024u);
  EXPECT_EQ(km.local_bytes, 28u);
  EXPECT_EQ(km.param_bytes, 40u);  // u64, u64, u32, then the 16-byte struct at 24
  EXPECT_EQ(global(*m, "gptr").relocs.size(), 1u);
  const Function& ka = *m->find("_Z6k_atomPiPjP6float4S2_");
  EXPECT_EQ(ka.shared_bytes, 0u);
  EXPECT_EQ(ka.dyn_shared_offset, 0u);
  const Function* vp = m->find("vprintf");
  ASSERT_NE(vp, nullptr);
  EXPECT_FALSE(vp->defined);
}

TEST(PtxParser, LargeFileParsesInMilliseconds) {
  std::string body;
  for (int i = 0; i < 1000; ++i) {
    std::string l = "$L__BB0_" + std::to_string(i);
    body += l + ":\n\tld.global.f32 %f1, [%rd1+4];\n\tfma.rn.f32 %f2, %f1, 0f3F800000, %f2;\n"
            "\tsetp.lt.s32 %p1, %r1, " + std::to_string(i) + ";\n\t@%p1 bra " + l + ";\n";
  }
  std::string src = std::string(kHeader) + ".visible .entry big(.param .u64 p)\n{\n.reg .pred %p<2>; .reg .f32 %f<3>;"
                    ".reg .b32 %r<2>; .reg .b64 %rd<2>;\n" + body + "ret;\n}\n";
  auto t0 = std::chrono::steady_clock::now();
  auto m = parse(src, "big.ptx");
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(m->functions[0]->instrs.size(), 4001u);
  EXPECT_LT(ms, 500.0);  // typically ~5 ms; generous for a loaded machine
}
