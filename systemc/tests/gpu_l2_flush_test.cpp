// The L2 flush is timed (l2.flush): dirty lines go back through the DRAM
// controllers, so DRAM writes count them, and the launch they end counts
// the cycles.
#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

// fill: thread i writes v to x[i]; a warp writes one whole 128-byte line.
const char* kPtx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry fill(.param .u64 p_x, .param .u32 p_v) {
  .reg .b32 %r<6>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p_x];
  ld.param.u32 %r1, [p_v];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.u32 %r5, %r2, %r3, %r4;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";

constexpr uint32_t kLines = 64;  // 2048 threads

struct Flush {
  uint64_t writes = 0, lines = 0, evictions = 0, cycles = 0, flush_cycles = 0;
};

Flush of(const runtime::LaunchRecord& r) {
  const auto& d = r.detail;
  return {d["dram"]["writes"].get<uint64_t>(), d["l2_flush"]["lines"].get<uint64_t>(),
          d["l2"]["writebacks"].get<uint64_t>(), d["gpu_sim_cycle"].get<uint64_t>(),
          d["l2_flush"]["cycles"].get<uint64_t>()};
}

// Two launches writing the same lines (1 then 2); the host reads after each.
std::string run(const std::string& when) {
  return in_child([when] {
    TimingDevice t(make_config("gtx480", {"l2.flush=" + when}));
    const ptx::Module& m = t.dev.load_module(kPtx, "flush.ptx");
    uint64_t x = t.dev.malloc(kLines * 128);
    std::vector<uint32_t> h(kLines * 32);
    std::string out;
    for (uint32_t v : {1u, 2u}) {
      void* args[] = {&x, &v};
      t.dev.launch(t.dev.kernel(m, "fill"), {kLines, 1, 1}, {32, 1, 1}, 0, args);
      t.dev.memcpy_to_host(h.data(), x, h.size() * 4);  // sees the L2's data, flushed or not
      for (uint32_t e : h)
        if (e != v) return std::string("error: host read ") + std::to_string(e) + ", want " + std::to_string(v);
    }
    Flush before = of(t.dev.launches().back());
    t.dev.finish();
    t.dev.finish();  // a second finish adds nothing
    Flush a = of(t.dev.launches()[0]), b = of(t.dev.launches()[1]);
    // Memory itself (what a later engine would see) holds the last values.
    std::vector<uint32_t> mem(h.size());
    t.dev.memory().read(mem.data(), x, mem.size() * 4, "test");
    for (uint32_t e : mem)
      if (e != 2) return std::string("error: memory holds ") + std::to_string(e);
    auto line = [](const Flush& f) {
      return std::to_string(f.writes) + " " + std::to_string(f.lines) + " " + std::to_string(f.evictions) + " " +
             std::to_string(f.cycles) + " " + std::to_string(f.flush_cycles);
    };
    return line(a) + "\n" + line(before) + "\n" + line(b);
  });
}

std::vector<uint64_t> nums(const std::string& s) {
  std::vector<uint64_t> v;
  std::istringstream in(s);
  for (uint64_t x; in >> x;) v.push_back(x);
  return v;
}

TEST(TimingL2Flush, AtTheEndDramWritesCountTheFlushedLinesOnce) {
  std::string s = run("end");
  ASSERT_EQ(s.find("error"), std::string::npos) << s;
  auto v = nums(s);  // first launch, second before finish, second after finish
  ASSERT_EQ(v.size(), 15u) << s;
  EXPECT_EQ(v[0], 0u) << "no flush between kernels: the first launch writes nothing to DRAM";
  EXPECT_EQ(v[1], 0u);
  EXPECT_EQ(v[5], 0u) << "nor the second, before the program is done";
  EXPECT_EQ(v[10], kLines) << "the final flush writes each dirty line once";
  EXPECT_EQ(v[11], kLines);
  EXPECT_EQ(v[10], v[11] + v[12]) << "DRAM writes = flushed lines + evictions";
  EXPECT_GT(v[14], 0u) << "the flush takes cycles";
  EXPECT_EQ(v[13], v[8] + v[14]) << "counted in the last launch";
}

TEST(TimingL2Flush, AfterEveryKernelEachLaunchWritesItsLines) {
  std::string s = run("kernel");
  ASSERT_EQ(s.find("error"), std::string::npos) << s;
  auto v = nums(s);
  ASSERT_EQ(v.size(), 15u) << s;
  for (size_t launch : {0u, 2u}) {
    EXPECT_EQ(v[5 * launch], kLines) << "launch " << launch;
    EXPECT_EQ(v[5 * launch + 1], kLines);
    EXPECT_GT(v[5 * launch + 4], 0u);
  }
  EXPECT_EQ(s.substr(s.find('\n') + 1, s.rfind('\n') - s.find('\n') - 1), s.substr(s.rfind('\n') + 1))
      << "finish() adds nothing after a per-kernel flush";
}

}  // namespace
