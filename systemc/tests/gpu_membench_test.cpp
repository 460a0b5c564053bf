// Memory microbenchmarks through the whole GPU (SM, interconnect, L2,
// DRAM), with answers known from the config: a dependent pointer chase of
// N loads by one thread, where each load's latency adds up.
//   L1: the same N loads as L1 hits (one line) vs L1 misses that hit the L2.
//   DRAM: N L2 misses to one DRAM row (row hits) vs N rows of one bank.
// Each configuration runs in a forked child (SystemC elaborates once per
// process); raising one latency key must move the cycles by exactly that.
#include "gpu_kernels.h"
#include "gpu_test_util.h"

#include "mem/address_map.h"
#include "mem/dram.h"
#include "mem/partition.h"

using namespace relgpu;
using namespace relgpu::gputest;
using config::json;

namespace {

constexpr uint32_t kN = 16;
constexpr uint64_t kEnd = 0x5151;

json summary(const runtime::LaunchRecord& r) {
  const json& d = r.detail;
  return {{"cycles", d["gpu_sim_cycle"]},
          {"l1_hits", d["sm_total"]["l1d"]["hits"]},
          {"l1_misses", d["sm_total"]["l1d"]["misses"]},
          {"l2_hits", d["l2"]["hits"]},
          {"l2_misses", d["l2"]["misses"]},
          {"dram_reads", d["dram"]["reads"]},
          {"row_hits", d["dram"]["row_hits"]},
          {"row_misses", d["dram"]["row_misses"]},
          {"ticked", d["sms"][0]["ticked_cycles"]},
          {"skipped", d["sms"][0]["skipped_cycles"]}};
}

// L1 hits vs L1 misses (L2 hits): each chain runs twice, the second run is
// measured (L1s are invalidated at every launch, the L2 keeps the lines).
json l1_bench(std::initializer_list<std::string> sets) {
  TimingDevice t(make_config("gtx480", sets));
  Micro m(t.dev);
  uint64_t a = t.dev.malloc(kN * 128), b = t.dev.malloc(128), o = t.dev.malloc(256);
  std::vector<uint64_t> lines;
  for (uint32_t i = 0; i < kN; ++i) lines.push_back(a + i * 128);
  m.chain(lines, kEnd);
  m.chain({b}, b);  // b points at itself: every load after the first hits in L1
  m.chase(a, kN, o);
  json miss = summary(m.chase(a, kN, o));
  bool ok = m.read64(o) == kEnd;
  m.chase(b, kN, o + 8);
  json hit = summary(m.chase(b, kN, o + 8));
  ok = ok && m.read64(o + 8) == b;
  return {{"miss", miss}, {"hit", hit}, {"ok", ok}};
}

// N loads to one DRAM row vs N rows of one bank, all L2 misses in partition 0.
json dram_bench(std::initializer_list<std::string> sets) {
  TimingDevice t(make_config("gtx480", sets));
  Micro m(t.dev);
  mem::AddressMap map(t.cfg);
  const uint64_t row_bytes = uint64_t(t.cfg.get(mem::kDramRowBytes));
  const uint64_t span = row_bytes * uint64_t(t.cfg.get(mem::kDramBanks));  // next row, same bank
  const uint64_t size = (kN + 4) * span * map.partitions();
  uint64_t buf = t.dev.malloc(size);
  uint64_t local = (map.local(buf) / span + 1) * span;
  while (map.global(0, local) < buf) local += span;
  std::vector<uint64_t> rows, same_row;
  for (uint32_t i = 0; i < kN; ++i) rows.push_back(map.global(0, local + i * span));
  for (uint32_t i = 0; i < kN; ++i) same_row.push_back(map.global(0, local + kN * span + i * 128));
  // The result goes to a line of partition 1, brought into its L2 first, so
  // the stores touch neither partition 0 nor any DRAM.
  uint64_t out_local = (map.local(buf) / span + 1) * span;
  while (map.global(1, out_local) < buf) out_local += span;
  uint64_t out = map.global(1, out_local);
  for (uint64_t x : rows) EXPECT_LT(x + 128, buf + size);
  for (uint64_t x : same_row) EXPECT_LT(x + 128, buf + size);
  EXPECT_LT(out + 128, buf + size);
  m.chain(rows, kEnd);
  m.chain(same_row, kEnd);
  m.chain({out}, out);
  m.chase(out, 1, out + 8);
  json miss = summary(m.chase(rows[0], kN, out + 8));
  bool ok = m.read64(out + 8) == kEnd;
  json hit = summary(m.chase(same_row[0], kN, out + 16));
  ok = ok && m.read64(out + 16) == kEnd;
  return {{"miss", miss}, {"hit", hit}, {"ok", ok}};
}

json child(const std::function<json()>& fn) {
  std::string s = in_child([&] { return fn().dump(); });
  if (s.rfind("error", 0) == 0) ADD_FAILURE() << s;
  return s.rfind("error", 0) == 0 ? json::object() : json::parse(s);
}

uint64_t u(const json& j, const char* a, const char* b) { return j.at(a).at(b).get<uint64_t>(); }

TEST(TimingMemBench, L1HitVsMiss) {
  json base = child([] { return l1_bench({}); });
  json slow = child([] { return l1_bench({"l2.hit_latency=220"}); });
  ASSERT_TRUE(base.value("ok", false) && slow.value("ok", false)) << base.dump() << slow.dump();
  // Exact event counts.
  EXPECT_EQ(u(base, "miss", "l1_misses"), kN);
  EXPECT_EQ(u(base, "miss", "l1_hits"), 0u);
  EXPECT_EQ(u(base, "miss", "l2_hits"), kN + 1);  // N loads + the store of the result
  EXPECT_EQ(u(base, "miss", "dram_reads"), 0u);
  EXPECT_EQ(u(base, "hit", "l1_hits"), kN - 1);
  EXPECT_EQ(u(base, "hit", "l1_misses"), 1u);
  // Each load of the miss chain costs an L2 round trip (l2.hit_latency = 120
  // L2 cycles = 120 SM cycles at 700 MHz, plus two interconnect traversals)
  // where the hit chain spends one L1-hit iteration (about 20 cycles).
  double per_load = double(int64_t(u(base, "miss", "cycles")) - int64_t(u(base, "hit", "cycles"))) / (kN - 1);
  RecordProperty("l1_miss_minus_hit_cycles_per_load", std::to_string(per_load));
  EXPECT_GE(per_load, 120.0 - 25.0) << base.dump();
  EXPECT_LE(per_load, 120.0 + 40.0) << base.dump();
  double hit_iter = double(u(base, "hit", "cycles")) / kN;
  EXPECT_LT(hit_iter, 60.0) << "an L1 hit is far cheaper than the L2: " << base.dump();
  // +100 L2 cycles of hit latency: +100 cycles per L2 hit, exactly the N
  // loads of the miss chain and the single first load of the hit chain.
  double d_miss = double(u(slow, "miss", "cycles") - u(base, "miss", "cycles")) / kN;
  double d_hit = double(u(slow, "hit", "cycles")) - double(u(base, "hit", "cycles"));
  EXPECT_NEAR(d_miss, 100.0 + 100.0 / kN, 2.0) << "+1 L2 hit of the store";
  EXPECT_NEAR(d_hit, 200.0, 4.0) << "the first load and the store";
  // Idle skipping: a latency-bound warp spends most cycles waiting.
  EXPECT_GT(u(base, "miss", "skipped"), 4 * u(base, "miss", "ticked")) << base.dump();
}

// l1d.cache_global=false (Tan Fig. 7.16's "no L1"): the hit chain's loads
// bypass the L1D and each pays an L2 round trip, like the miss chain.
TEST(TimingMemBench, GlobalLoadsBypassTheL1WhenNotCached) {
  json base = child([] { return l1_bench({}); });
  json nol1 = child([] { return l1_bench({"l1d.cache_global=false"}); });
  ASSERT_TRUE(base.value("ok", false) && nol1.value("ok", false)) << base.dump() << nol1.dump();
  EXPECT_EQ(u(nol1, "hit", "l1_hits"), 0u);
  EXPECT_EQ(u(nol1, "hit", "l1_misses"), 0u) << "not an L1 access at all";
  EXPECT_EQ(u(nol1, "hit", "l2_hits"), kN + 1);
  EXPECT_NEAR(double(u(nol1, "hit", "cycles")), double(u(nol1, "miss", "cycles")), 10.0)
      << "both chains are L2 round trips now: " << nol1.dump();
  EXPECT_GT(u(nol1, "hit", "cycles"), u(base, "hit", "cycles") + (kN - 1) * 60) << base.dump() << nol1.dump();
}

TEST(TimingMemBench, DramRowHitVsRowMiss) {
  // The chains are written by host copies, which would leave them in the L2.
  json base = child([] { return dram_bench({"l2.fill_on_memcpy=false"}); });
  json slow = child([] { return dram_bench({"l2.fill_on_memcpy=false", "dram.tRCD=32"}); });
  ASSERT_TRUE(base.value("ok", false) && slow.value("ok", false)) << base.dump() << slow.dump();
  EXPECT_EQ(u(base, "miss", "dram_reads"), kN);
  EXPECT_EQ(u(base, "miss", "row_hits"), 0u);
  EXPECT_EQ(u(base, "miss", "row_misses"), kN);
  EXPECT_EQ(u(base, "hit", "dram_reads"), kN);
  EXPECT_EQ(u(base, "hit", "row_hits"), kN - 1);
  EXPECT_EQ(u(base, "hit", "row_misses"), 1u);
  // A row miss adds precharge + activate: tRP + tRCD = 24 DRAM cycles at
  // 924 MHz = 18.2 SM cycles at 700 MHz, for each load but the first.
  const double ratio = 700.0 / 924.0;
  double per_load = double(int64_t(u(base, "miss", "cycles")) - int64_t(u(base, "hit", "cycles"))) / (kN - 1);
  RecordProperty("row_miss_minus_hit_cycles_per_load", std::to_string(per_load));
  EXPECT_NEAR(per_load, 24 * ratio, 0.25 * 24 * ratio) << base.dump();
  // tRCD +20: every activate (N in the row-miss chain) costs 20 DRAM cycles more.
  double d = double(u(slow, "miss", "cycles") - u(base, "miss", "cycles")) / kN;
  EXPECT_NEAR(d, 20 * ratio, 0.2 * 20 * ratio) << slow.dump();
}

}  // namespace
