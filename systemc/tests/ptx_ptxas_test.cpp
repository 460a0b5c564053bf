// ptxas's registers per thread (ptx/ptxas.h): reading `ptxas -v`, the
// .ptxinfo format, applying counts to a module, and running ptxas itself
// when it is installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "common/error.h"
#include "ptx/analysis.h"
#include "ptx/parser.h"
#include "ptx/ptxas.h"

using namespace relgpu::ptx;

namespace {

// As ptxas 13.0 prints it: two kernels and a non-inlined function, whose
// properties come without a "Used" line.
const char* kLog = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k_one' for 'sm_75'
ptxas info    : Function properties for k_one
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 58 registers, used 1 barriers, 1024 bytes smem, 376 bytes cmem[0]
ptxas info    : Compile time = 10.477 ms
ptxas info    : Function properties for sinf
    32 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function '_Z3k_tIfEvPT_' for 'sm_75'
ptxas info    : Function properties for _Z3k_tIfEvPT_
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers, 360 bytes cmem[0]
)";

const char* kPtx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .func (.param .b32 r) helper(.param .b32 a) {
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [a];
  add.s32 %r2, %r1, 1;
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry k_one(.param .u64 p) {
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  st.global.u32 [%rd1], %r1;
  ret;
}
.visible .entry k_two() {
  ret;
}
)";

std::string error_of(const std::string& text) {
  try {
    from_json(text, "x.ptxinfo");
  } catch (const relgpu::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(Ptxas, ReadsUsedRegistersPerEntry) {
  PtxasInfo info = parse_ptxas_log(kLog, "ptxas");
  EXPECT_EQ(info.arch, "sm_75");
  ASSERT_EQ(info.registers.size(), 2u);
  EXPECT_EQ(info.registers.at("k_one"), 58u);
  EXPECT_EQ(info.registers.at("_Z3k_tIfEvPT_"), 8u);
  EXPECT_THROW(parse_ptxas_log("ptxas info    : 0 bytes gmem\n", "ptxas"), relgpu::InputError);
  // A malformed count is no count (an InputError, not a crash).
  EXPECT_THROW(parse_ptxas_log("Compiling entry function 'k' for 'sm_75'\nUsed many registers\n", "ptxas"),
               relgpu::InputError);
}

TEST(Ptxas, JsonRoundTripAndErrors) {
  PtxasInfo info = parse_ptxas_log(kLog, "ptxas");
  info.version = "Cuda compilation tools, release 13.0, V13.0.88";
  std::string text = to_json(info);
  PtxasInfo back = from_json(text, "x.ptxinfo");
  EXPECT_EQ(back.version, info.version);
  EXPECT_EQ(back.arch, info.arch);
  EXPECT_EQ(back.registers, info.registers);
  EXPECT_EQ(to_json(back), text);  // stable: the checked-in files compare byte for byte
  EXPECT_NE(error_of("{").find("x.ptxinfo: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of(R"({"ptxas": "v", "arch": "sm_75"})").find("\"registers\" must be an object"), std::string::npos);
  EXPECT_NE(error_of(R"({"ptxas": "v", "arch": "sm_75", "registers": {"k": 300}})")
                .find("registers of 'k' must be an integer from 0 to 255"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"arch": "sm_75", "registers": {"k": 3}})").find("\"ptxas\" must be a string"),
            std::string::npos);
}

TEST(Ptxas, ApplySetsKernelsAndUsesTheLargerCount) {
  auto m = parse(kPtx, "k.ptx");
  analyse(*m);
  const Function& one = *m->find("k_one");
  const Function& two = *m->find("k_two");
  const Function& helper = *m->find("helper");
  ASSERT_GT(one.regs_allocator, 0u);
  EXPECT_EQ(one.regs_ptxas, 0u);
  EXPECT_EQ(one.regs_used(), one.regs_allocator) << "no ptxas count: the allocator's";
  PtxasInfo info;
  info.registers = {{"k_one", 40}, {"k_two", 1}, {"helper", 9}};
  apply(*m, info);
  EXPECT_EQ(one.regs_ptxas, 40u);
  EXPECT_EQ(one.regs_used(), 40u);
  EXPECT_EQ(helper.regs_ptxas, 0u) << "only kernels take ptxas's count";
  // ptxas below our allocator: still ptxas's count (the rest overflow).
  EXPECT_EQ(two.regs_ptxas, 1u);
  m->functions[m->function_index.at("k_two")]->regs_allocator = 5;
  EXPECT_EQ(two.regs_used(), 1u);
}

// A loop over a parameter's array: the parameters and their copies are
// constant operands, the loop's values are not.
const char* kFitPtx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k_fit(.param .u64 pa, .param .u64 pb, .param .u32 pn) {
  .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<3>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u32 %r1, [pn];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, 0;
  setp.eq.u32 %p2, %r2, 0;
  @%p2 mov.u32 %r6, 7;
  cvt.rn.f32.u32 %f1, %r1;
LOOP:
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd3, %rd5;
  ld.global.u32 %r5, [%rd6];
  add.s32 %r4, %r4, %r5;
  add.s32 %r2, %r2, %r3;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  add.s32 %r4, %r4, %r6;
  cvt.rzi.u32.f32 %r7, %f1;
  add.s32 %r4, %r4, %r7;
  st.global.u32 [%rd4], %r4;
  ret;
}
)";

TEST(Ptxas, FitToPtxasPutsConstantOperandsOutsideTheBanks) {
  auto m = parse(kFitPtx, "fit.ptx");
  analyse(*m);
  Function& f = *m->functions[m->function_index.at("k_fit")];
  auto reg = [&](const char* name) {
    for (size_t r = 0; r < f.regs.size(); ++r)
      if (f.regs[r].name == name) return r;
    ADD_FAILURE() << name;
    return size_t(0);
  };
  const std::vector<uint8_t> k = constant_operand_regs(f);
  for (const char* c : {"%rd1", "%rd2", "%r1", "%rd3", "%rd4", "%r3"}) EXPECT_TRUE(k[reg(c)]) << c;
  // %tid, a register also written in the loop, a load, a guarded write, a
  // float conversion, a predicate:
  for (const char* c : {"%r2", "%r4", "%r5", "%rd5", "%rd6", "%r6", "%f1", "%r7", "%p1"}) EXPECT_FALSE(k[reg(c)]) << c;

  // ptxas's count: the most non-constant 32-bit values live at once here.
  const uint32_t plain = f.regs_allocator;
  const uint32_t ptxas = 7;
  ASSERT_GT(plain, ptxas);
  // The plain allocation with ptxas's count: other values cross the line too
  // (what apply did before fit_to_ptxas).
  f.regs_ptxas = ptxas;
  const Outside before = registers_outside(f);
  EXPECT_GT(before.regs, before.constant);
  f.regs_ptxas = 0;

  PtxasInfo info;
  info.registers = {{"k_fit", ptxas}};
  apply(*m, info);
  const Outside after = registers_outside(f);
  EXPECT_GT(after.regs, 0u);
  EXPECT_EQ(after.regs, after.constant) << "only constant operands at or above ptxas's count";
  EXPECT_GE(f.regs_allocator, plain) << "two classes never share a register";
  EXPECT_EQ(f.less_sram_regs, -1) << "not LESS's namespaces";
  // (The workloads' output checks run on such allocations: workloads_registers_test.)

  // A count that already fits leaves the allocation alone.
  auto m2 = parse(kFitPtx, "fit.ptx");
  analyse(*m2);
  const std::vector<int32_t> phys = m2->find("k_fit")->phys_reg;
  info.registers = {{"k_fit", plain}};
  apply(*m2, info);
  EXPECT_EQ(m2->find("k_fit")->phys_reg, phys);
}

TEST(Ptxas, FindHonoursOffAndMissingPaths) {
  std::string why;
  EXPECT_EQ(find_ptxas("off", why), "");
  EXPECT_NE(why.find("off"), std::string::npos);
  EXPECT_EQ(find_ptxas("/nonexistent/ptxas", why), "");
  EXPECT_NE(why.find("'/nonexistent/ptxas' is not an executable file"), std::string::npos);
}

// Needs ptxas (the CUDA toolkit); skipped without it.
TEST(Ptxas, RunsPtxasAndCachesTheResult) {
  std::string why;
  std::string ptxas = find_ptxas("auto", why);
  if (ptxas.empty()) GTEST_SKIP() << why;
  std::string dir = testing::TempDir() + "relgpu_ptxas_cache_test";
  std::system(("rm -rf '" + dir + "'").c_str());
  auto info = run_ptxas(ptxas, kPtx, dir, why);
  ASSERT_TRUE(info) << why;
  EXPECT_EQ(info->arch, "sm_75");
  EXPECT_NE(info->version.find("Cuda compilation tools"), std::string::npos);
  ASSERT_EQ(info->registers.count("k_one"), 1u);
  EXPECT_GE(info->registers.at("k_one"), 4u);
  // The second run reads the cache entry (one file, edited here to tell it apart).
  std::vector<std::filesystem::path> files;
  for (auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u);
  PtxasInfo edited = *info;
  edited.registers["k_one"] = 200;
  std::ofstream(files[0]) << to_json(edited);
  auto again = run_ptxas(ptxas, kPtx, dir, why);
  ASSERT_TRUE(again) << why;
  EXPECT_EQ(again->registers.at("k_one"), 200u);
  std::ofstream(files[0]) << "damaged";
  again = run_ptxas(ptxas, kPtx, dir, why);
  ASSERT_TRUE(again) << why;
  EXPECT_EQ(again->registers, info->registers) << "a damaged entry is replaced";
  EXPECT_FALSE(run_ptxas(ptxas, ".version 9.0\n.target sm_75\nnot ptx\n", "", why));
  EXPECT_NE(why.find("failed on the PTX"), std::string::npos) << why;
}
