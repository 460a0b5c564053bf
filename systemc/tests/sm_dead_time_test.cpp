// Register dead time (sm/dead_time.h) on a hand-made access sequence: the
// residency and dead cycles are exact, launch-end tails are apart, the
// per-cycle entry shares use the fault map (2+ bad cells = faulty), and the
// first-read mutant changes the numbers; the dead-bit coverage charges each
// lost dead cycle to why the last read did not declare the register dead.
#include <gtest/gtest.h>

#include "common/error.h"
#include "sm/dead_time.h"

using namespace relgpu;

namespace {

constexpr unsigned kGroups = 2, kRows = 4, kSpan = 8;
constexpr auto kLive = sm::ReadMark::kCompilerLive, kDies = sm::ReadMark::kDies;

void tick(sm::DeadTime& d, uint64_t cycle, uint64_t skipped = 0) {
  sm::Activity a;
  a.cycle = cycle;
  d.on_cycle(a, skipped);
}

// WRG (0,0): written at 100, read at 103 and 107, rewritten at 110 (residency
// 10, dead 3), read at 112, rewritten at 120 (10, 8), rewritten unread at 125
// (5, 5), then open to the end (130). WRG (1,2): written at 101, read at 104,
// open. Cycles 100..129 reported, the last 20 as skipped.
config::json run(const reliability::RfFaults* faults, bool first_read = false,
                 const std::vector<sm::DeadTime::Named>& overlays = {}) {
  sm::DeadTime d(kGroups, kRows, kSpan, faults, first_read, overlays);
  d.begin_launch();
  d.rf_write(0, 0, 100);
  tick(d, 100);
  d.rf_write(1, 2, 101);
  d.rf_read(1, 3, 101, kDies);  // never written: not a residency
  tick(d, 101);
  d.rf_read(0, 0, 103, kLive);
  d.rf_read(1, 2, 104, kLive);
  d.rf_read(0, 0, 107, kDies);
  d.rf_write(0, 0, 110);
  d.rf_read(0, 0, 112, kLive);
  d.rf_write(0, 0, 120);
  d.rf_write(0, 0, 125);
  tick(d, 109, 20);  // cycles 110..129 skipped in one call
  return d.stats();
}

TEST(DeadTime, HandMadeSequenceGivesExactNumbers) {
  config::json j = run(nullptr);
  EXPECT_EQ(j["intervals"], 3u);
  EXPECT_EQ(j["residency_cycles"], 25u);
  EXPECT_EQ(j["dead_cycles"], 16u);  // 3 + 8 + 5
  EXPECT_EQ(j["tail_intervals"], 2u);
  EXPECT_EQ(j["tail_residency_cycles"], 34u);  // (0,0): 125..130; (1,2): 101..130
  EXPECT_EQ(j["tail_dead_cycles"], 31u);       // 5 + 26
  EXPECT_EQ(j["entry_cycles"], 30u * kGroups * kRows * kSpan);
  EXPECT_EQ(j["live_entry_cycles"], (9u + 3u) * kSpan);
  EXPECT_EQ(j["dead_entry_cycles"], (16u + 31u) * kSpan);
  EXPECT_EQ(j["dead_good_entry_cycles"], (16u + 31u) * kSpan);  // no fault map: every entry good
  EXPECT_EQ(j["live_faulty_entry_cycles"], 0u);
  EXPECT_EQ(j["faulty_entry_cycles"], 0u);
}

TEST(DeadTime, FirstReadMutantChangesTheNumbers) {
  config::json exact = run(nullptr), mutant = run(nullptr, true);
  EXPECT_EQ(mutant["residency_cycles"], exact["residency_cycles"]);
  // The first interval's dead time from the read at 103, not 107: 7 + 8 + 5.
  EXPECT_EQ(mutant["dead_cycles"], 20u);
  EXPECT_NE(mutant["dead_cycles"], exact["dead_cycles"]);
  EXPECT_EQ(mutant["tail_dead_cycles"], exact["tail_dead_cycles"]);  // one read each
}

TEST(DeadTime, EntrySharesFollowTheFaultMap) {
  reliability::RfFaults f(kGroups * kSpan, kRows, 128);
  for (unsigned b : {0u, 1u}) f.add_bad_cell(b, 0, 5, true), f.add_bad_cell(b, 0, 77, false);  // WRG (0,0): 2 faulty
  f.add_bad_cell(8, 2, 3, true), f.add_bad_cell(8, 2, 4, true);                               // WRG (1,2): 1 faulty
  f.add_bad_cell(9, 2, 1, true);  // one bad cell: SEC-DED corrects it, the entry is good
  ASSERT_EQ(f.faulty_entries(), 3u);
  config::json j = run(&f);
  // (0,0): dead 16 + 5, live 9; (1,2): dead 26, live 3.
  EXPECT_EQ(j["dead_good_entry_cycles"], 21u * 6 + 26u * 7);
  EXPECT_EQ(j["live_faulty_entry_cycles"], 9u * 2 + 3u * 1);
  EXPECT_EQ(j["faulty_entry_cycles"], 3u * 30);
  EXPECT_EQ(j["dead_entry_cycles"], (16u + 31u) * kSpan);  // the map changes only the split
  // The same map as an overlay (grguard.deadtime_fault_rates) beside a fault-free run.
  config::json o = run(nullptr, false, {{"0.01", &f}});
  EXPECT_EQ(o["live_faulty_entry_cycles"], 0u);
  for (const char* k : {"dead_good_entry_cycles", "live_faulty_entry_cycles", "faulty_entry_cycles"})
    EXPECT_EQ(o["at_rate"]["0.01"][k], j[k]) << k;
  EXPECT_EQ(o["at_rate"]["0.01"]["entry_cycles"], j["entry_cycles"]);
}

TEST(DeadTime, CoverageChargesEachLostCycleToItsReason) {
  config::json j = run(nullptr);
  // (0,0): declared at 107 (its last read): all 3 known; read at 112 without
  // a mark: 8 lost (static liveness); written unread at 120: 5 lost.
  EXPECT_EQ(j["known_dead_cycles"], 3u);
  EXPECT_EQ(j["lost_dead_cycles"]["compiler_live"], 8u);
  EXPECT_EQ(j["lost_dead_cycles"]["never_read"], 5u);
  EXPECT_EQ(j["lost_dead_cycles"]["marked"], 0u);

  sm::DeadTime d(kGroups, kRows, kSpan, nullptr);
  d.begin_launch();
  d.rf_write(0, 0, 10);
  d.rf_read(0, 0, 12, kDies);  // declared; a later read by an older instruction still comes
  d.rf_read(0, 0, 14, kLive);
  d.rf_write(0, 0, 20);        // dead 6, all known (from the last read)
  d.rf_read(0, 0, 21, sm::ReadMark::kDivergent);
  d.rf_write(0, 0, 30);        // dead 9 lost: divergent
  d.rf_read(0, 0, 31, sm::ReadMark::kLaterOperand);
  d.rf_exit(0, 0, 35);         // the warp exits: known from here
  d.rf_write(0, 0, 40);        // dead 9: 5 known, 4 lost to the later operand
  d.rf_exit(0, 1, 41);         // never written: nothing to declare
  tick(d, 10, 40);
  config::json c = d.stats();
  EXPECT_EQ(c["dead_cycles"], 24u);
  EXPECT_EQ(c["known_dead_cycles"], 11u);
  EXPECT_EQ(c["lost_dead_cycles"]["divergent"], 9u);
  EXPECT_EQ(c["lost_dead_cycles"]["later_operand"], 4u);
  EXPECT_EQ(c["lost_dead_cycles"]["compiler_live"], 0u);
  EXPECT_EQ(c["known_dead_good_entry_cycles"], 11u * kSpan);
}

TEST(DeadTime, OverlayRatesAreCheckedAndBuilt) {
  reliability::RfGeometry g;
  g.sms = 1;
  config::Config bad;
  bad.set("grguard.deadtime_fault_rates=0.004,1.5");
  try {
    sm::dead_time_overlays(bad, g);
    FAIL() << "1.5 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("grguard.deadtime_fault_rates"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'1.5'"), std::string::npos) << e.what();
  }
  config::Config cfg;
  cfg.set("grguard.deadtime_fault_rates=0.004, 0.01");
  auto o = sm::dead_time_overlays(cfg, g);
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o[1].rate, "0.01");
  EXPECT_NEAR(o[1].chip->cell_failure_rate(), 0.01, 1e-3);
  EXPECT_LT(o[0].chip->faulty_entries(), o[1].chip->faulty_entries());
}

TEST(DeadTime, BeginLaunchStartsAfresh) {
  sm::DeadTime d(kGroups, kRows, kSpan, nullptr);
  d.begin_launch();
  d.rf_write(0, 1, 5);
  d.rf_read(0, 1, 6, kLive);
  tick(d, 5);
  d.begin_launch();  // the next kernel: nothing carries over
  tick(d, 50);
  d.rf_write(0, 1, 50);
  config::json j = d.stats();
  EXPECT_EQ(j["intervals"], 0u);
  EXPECT_EQ(j["tail_intervals"], 1u);
  EXPECT_EQ(j["tail_residency_cycles"], 1u);
  EXPECT_EQ(j["entry_cycles"], 1u * kGroups * kRows * kSpan);
}

}  // namespace
