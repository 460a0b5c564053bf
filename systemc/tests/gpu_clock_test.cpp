// Per-SM clocks (process variation) and the CTA scheduler's placement.
#include "gpu_kernels.h"
#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

std::string clock_list(double sm0, unsigned n, double rest) {
  std::string s = std::to_string(sm0);
  for (unsigned i = 1; i < n; ++i) s += "," + std::to_string(rest);
  return s;
}

TEST(TimingClocks, EachSmRunsAtItsOwnClock) {
  // SM 0 at half the clock of the others; CTA i goes to SM i. Perfect
  // instruction and constant caches: their misses would take memory-clock
  // time, which does not scale with the SM's clock.
  TimingDevice t(make_config("gtx480", {"gpu.sm_clock_mhz_list=" + clock_list(350, 15, 700), "icache.enable=false",
                                        "ccache.enable=false"}));
  Micro m(t.dev);
  const auto& r = m.alu({2, 1, 1}, {32, 1, 1}, 300);
  const auto& sms = r.detail["sms"];
  uint64_t slow = sms[0]["cycles"].get<uint64_t>(), fast = sms[1]["cycles"].get<uint64_t>();
  EXPECT_EQ(sms[0]["ctas"].get<uint64_t>(), 1u);
  EXPECT_EQ(sms[1]["ctas"].get<uint64_t>(), 1u);
  EXPECT_EQ(sms[2]["ctas"].get<uint64_t>(), 0u);
  // The same work takes the same number of its own cycles on each SM ...
  EXPECT_EQ(slow, fast);
  EXPECT_GT(fast, 300u * 2);
  // ... so the slow SM sets the kernel time: twice as long in 700 MHz cycles.
  uint64_t cycles = r.detail["gpu_sim_cycle"].get<uint64_t>();
  EXPECT_NEAR(double(cycles), 2.0 * double(slow), 4.0);
  EXPECT_NEAR(double(sms[0]["kernel_cycles"].get<uint64_t>()), double(slow), 2.0);
  EXPECT_NEAR(double(sms[1]["kernel_cycles"].get<uint64_t>()), 2.0 * double(fast), 4.0);
  EXPECT_NEAR(r.detail["sim_time_ps"].get<double>(), double(slow) * 1e6 / 350.0, 3000.0);
}

TEST(TimingClocks, CtasSpreadRoundRobinAndRefill) {
  // 4 SMs with room for 2 CTAs of 1024 threads at most ... sm.max_threads
  // 1536 allows one: 10 CTAs run in waves over the 4 SMs.
  TimingDevice t(make_config("gtx480", {"gpu.num_sms=4"}));
  Micro m(t.dev);
  const auto& r = m.alu({10, 1, 1}, {1024, 1, 1}, 20);
  uint64_t total = 0;
  for (unsigned s = 0; s < 4; ++s) {
    uint64_t c = r.detail["sms"][s]["ctas"].get<uint64_t>();
    EXPECT_GE(c, 2u) << "SM " << s;
    EXPECT_LE(c, 3u) << "SM " << s;
    total += c;
  }
  EXPECT_EQ(total, 10u);
  EXPECT_EQ(r.thread_insn, 10u * 1024 * (3 + 4 * 20 + 1));
}

}  // namespace
