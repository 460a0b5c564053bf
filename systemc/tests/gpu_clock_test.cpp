// Per-SM clocks (process variation) and the CTA scheduler's placement.
#include <cmath>

#include "gpu_kernels.h"
#include "gpu_test_util.h"
#include "reliability/keys.h"
#include "reliability/rf_delay.h"

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

// pv.sm_clock: each SM at gpu.sm_clock_mhz x its RF's frequency under the
// scheme (reliability/rf_delay.h), per chip; 'nominal', the default, leaves
// the clocks as they were.
TEST(TimingClocks, PvSmClockFollowsEachSmsRf) {
  auto clocks = [](std::initializer_list<std::string> sets) {
    config::Config c = make_config("fermi_16bank", {"gpu.num_sms=3"});
    for (const auto& s : sets) c.set(s);
    return gpu::sm_clocks(c);
  };
  EXPECT_EQ(make_config("fermi_16bank").get(reliability::kSmClock), "nominal");
  for (const auto& c : clocks({})) EXPECT_EQ(c.khz, 700000u);
  auto listed = clocks({"gpu.sm_clock_mhz_list=600,650,700"});
  EXPECT_EQ(listed[1].khz, 650000u);
  auto base = clocks({"pv.sm_clock=baseline"}), sb = clocks({"pv.sm_clock=vl_sb"});
  auto chip2 = clocks({"pv.sm_clock=baseline", "pv.chip_seed=2"});
  reliability::RfGeometry g = reliability::paper_rf_geometry();
  g.sms = 3;
  reliability::RfDelay rf(1, reliability::parse_sigma_ratio("1:1"), g);
  for (unsigned s = 0; s < 3; ++s) {
    EXPECT_EQ(base[s].khz, uint64_t(std::llround(700000 * rf.sm(s).f_base))) << "SM " << s;
    EXPECT_LT(base[s].khz, 700000u);
    EXPECT_GT(sb[s].khz, base[s].khz);
    EXPECT_NE(chip2[s].khz, base[s].khz);
  }
  EXPECT_NE(base[0].khz, base[1].khz);
  try {
    clocks({"pv.sm_clock=vl_sb", "gpu.sm_clock_mhz_list=600,650,700"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("pv.sm_clock"), std::string::npos) << m;
    EXPECT_NE(m.find("gpu.sm_clock_mhz_list"), std::string::npos) << m;
  }
}

// The timing model runs the SM at that clock: its cycles take 1 / (700 MHz x f).
TEST(TimingClocks, PvSmClockDrivesTheSm) {
  TimingDevice t(make_config("fermi_16bank", {"gpu.num_sms=1", "pv.sm_clock=baseline", "icache.enable=false",
                                              "ccache.enable=false"}));
  Micro m(t.dev);
  const auto& r = m.alu({1, 1, 1}, {32, 1, 1}, 100);
  reliability::RfGeometry g = reliability::paper_rf_geometry();
  g.sms = 1;
  const double mhz = 700 * reliability::RfDelay(1, reliability::parse_sigma_ratio("1:1"), g).sm(0).f_base;
  const double cycles = double(r.detail["sms"][0]["cycles"].get<uint64_t>());
  EXPECT_NEAR(r.detail["sim_time_ps"].get<double>(), cycles * 1e6 / mhz, 3000.0);
  EXPECT_GT(double(r.detail["gpu_sim_cycle"].get<uint64_t>()), 1.3 * cycles);  // f_base < 0.77
}

}  // namespace
