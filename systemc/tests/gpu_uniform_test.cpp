// Uniform-vector detection on a directed kernel (sm/uniform_unit.h): what is
// uniform (kernel parameters, %ctaid, a load from one global address, and
// what is computed from them, through a uniform predicate too) and what is
// not (%tid, a thread's local memory); the paper's copy-on-write case
// counted for each divergent write to a register it reads; a uniform SFU
// instruction takes its unit one cycle. One CTA of 32 threads, so every
// warp instruction before the branch has a full mask.
#include <cstring>

#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

const char* kPtx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry uni(.param .u64 p_out, .param .u64 p_in) {
  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .f32 %f<3>; .reg .b64 %rd<8>;
  .local .align 4 .b8 loc[4];
  ld.param.u64 %rd1, [p_out];
  ld.param.u64 %rd2, [p_in];
  cvta.to.global.u64 %rd3, %rd2;
  cvta.to.global.u64 %rd4, %rd1;
  mov.u32 %r1, %ctaid.x;
  ld.global.u32 %r2, [%rd3];
  mov.u32 %r3, %tid.x;
  st.local.u32 [loc], %r3;
  ld.local.u32 %r4, [loc];
  add.u32 %r5, %r1, 1;
  cvt.rn.f32.u32 %f1, %r5;
  ex2.approx.f32 %f2, %f1;
  setp.eq.u32 %p1, %r1, 0;
  selp.u32 %r6, 7, 9, %p1;
  setp.lt.u32 %p0, %r3, 16;
  @%p0 add.u32 %r2, %r2, 1;
  @%p0 add.u32 %r5, %r5, 2;
  mul.wide.u32 %rd5, %r3, 20;
  add.s64 %rd6, %rd4, %rd5;
  st.global.u32 [%rd6], %r2;
  st.global.u32 [%rd6+4], %r4;
  st.global.f32 [%rd6+8], %f2;
  st.global.u32 [%rd6+12], %r5;
  st.global.u32 [%rd6+16], %r6;
  ret;
}
)";

struct Out {
  std::string error;
  std::vector<uint32_t> words;  // per thread: r2, r4, f2 bits, r5, r6
  config::json uniform;
};

Out run(const std::vector<std::string>& sets) {
  const std::string s = in_child([&] {
    config::Config cfg = make_config("gtx480");
    for (auto& x : sets) cfg.set(x);
    TimingDevice t(cfg);
    runtime::Device& dev = t.dev;
    const ptx::Module& m = dev.load_module(kPtx, "uniform.ptx");
    const uint32_t in = 41;
    uint64_t din = dev.malloc(4), dout = dev.malloc(32 * 20);
    dev.memcpy_to_device(din, &in, 4);
    void* args[] = {&dout, &din};
    dev.launch(dev.kernel(m, "uni"), {1, 1, 1}, {32, 1, 1}, 0, args);
    std::vector<uint32_t> w(32 * 5);
    dev.memcpy_to_host(w.data(), dout, w.size() * 4);
    config::json j = {{"words", w}, {"uniform", dev.launches().back().detail["uniform"]}};
    return j.dump();
  });
  if (s.rfind("error", 0) == 0) return {s, {}, {}};
  config::json j = config::json::parse(s);
  return {"", j["words"].get<std::vector<uint32_t>>(), j["uniform"]};
}

TEST(GpuUniform, DetectsWhatIsUniformAndOnlyThat) {
  Out o = run({"uniform.enable=true"});
  ASSERT_EQ(o.error, "");
  float two = 2.0f;
  uint32_t two_bits;
  std::memcpy(&two_bits, &two, 4);
  for (unsigned t = 0; t < 32; ++t) {
    const uint32_t* w = &o.words[5 * t];
    EXPECT_EQ(w[0], t < 16 ? 42u : 41u) << "thread " << t << ": a divergent add to a uniform register";
    EXPECT_EQ(w[1], t) << "thread " << t << ": its own local memory";
    EXPECT_EQ(w[2], two_bits) << "thread " << t << ": ex2(ctaid + 1)";
    EXPECT_EQ(w[3], t < 16 ? 3u : 1u) << "thread " << t;
    EXPECT_EQ(w[4], 7u) << "thread " << t << ": selp on a uniform predicate";
  }
  const config::json& u = o.uniform;
  EXPECT_EQ(u["unsound_writes"].get<uint64_t>(), 0u);
  EXPECT_EQ(u["uniform_loads"].get<uint64_t>(), 3u) << "two parameters and one global word; not the local load";
  // cvta x2, mov %ctaid, add, cvt, ex2, setp and selp on %ctaid; not what reads %tid.
  EXPECT_EQ(u["uniform_alu_insts"].get<uint64_t>(), 8u);
  EXPECT_EQ(u["alu_thread_ops"].get<uint64_t>(), 14u * 32) << "14 ALU instructions, full masks";
  EXPECT_EQ(u["uniform_alu_by_class"]["sfu"].get<uint64_t>(), 1u);
  EXPECT_EQ(u["scalar_issues"].get<uint64_t>(), 1u) << "ex2 on the SFU, one cycle instead of sm.sfu_ii";
  EXPECT_EQ(u["unit_cycles_saved"].get<uint64_t>(), 7u) << "sm.sfu_ii = 8";
  EXPECT_EQ(u["cow_dst_src_insts"].get<uint64_t>(), 2u) << "@p add r, r, k with r uniform, twice";
  EXPECT_EQ(u["cow_same_ptx_reg_insts"].get<uint64_t>(), 2u) << "both name r twice in the PTX";
  EXPECT_EQ(u["expands"].get<uint64_t>(), 2u);
}

// Two copies need two lanes: lane 31 is refused, naming both keys; lane 30
// is the last that fits.
TEST(GpuUniform, ASecondCopyPastTheLastLaneIsRefused) {
  Out o = run({"uniform.enable=true", "uniform.copies=2", "uniform.scalar_lane=31"});
  EXPECT_NE(o.error.find("uniform.scalar_lane=31"), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("uniform.copies=2"), std::string::npos) << o.error;
  Out last = run({"uniform.enable=true", "uniform.copies=2", "uniform.scalar_lane=30"});
  EXPECT_EQ(last.error, "");
  EXPECT_EQ(last.uniform["copy_mismatches"].get<uint64_t>(), 0u);
}

}  // namespace
