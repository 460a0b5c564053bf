// What ends LoSCache's prediction phase (loscache.phase_count): "sm", the
// default, each table by its own SM's L2 accesses and predictor CTA; "gpu",
// one phase for every SM, ended by the GPU's accesses or by every predictor
// CTA; "cta", each table by its predictor CTA's own accesses. And the
// distinct predictor PCs of the phase (pcs_seen), counted past a full table.
#include <gtest/gtest.h>

#include "sm/loscache_unit.h"

using namespace relgpu;

namespace {

config::Config phase_cfg(const std::string& count, unsigned limit, unsigned entries = 21) {
  config::Config cfg;
  cfg.set("loscache.phase_count=" + count);
  cfg.set("loscache.predictor_cta=first");
  cfg.set("blocks.loscache_table.phase_limit=" + std::to_string(limit));
  cfg.set("blocks.loscache_table.num_entries=" + std::to_string(entries));
  return cfg;
}

void tick(sm::LoscacheUnit& u, unsigned n = 3) {
  sm::LoscacheUnit::Query q;
  for (unsigned i = 0; i < n; ++i) u.cycle(static_cast<const sm::LoscacheUnit::Op*>(nullptr), true, q);
}

// Two SMs start a launch with one CTA each (slot 0, their predictor).
void start(sm::LoscacheUnit& a, sm::LoscacheUnit& b) {
  for (auto* u : {&a, &b}) {
    u->begin_launch();
    u->cta_added(0);
    tick(*u, 1);
    ASSERT_TRUE(u->predicting());
  }
}

TEST(LoscachePhase, GpuWideAccessesEndEverySmsPhase) {
  config::Config cfg = phase_cfg("gpu", 10);
  sm::LoscacheUnit a(0, cfg), b(1, cfg);
  start(a, b);
  for (int i = 0; i < 9; ++i) a.l2_request_sent();
  tick(a), tick(b);
  EXPECT_TRUE(a.predicting()) << "9 of 10 accesses";
  EXPECT_TRUE(b.predicting());
  a.l2_request_sent();  // the GPU's 10th, all from SM 0
  tick(a), tick(b);
  EXPECT_FALSE(a.predicting());
  EXPECT_FALSE(b.predicting()) << "SM 1 sent nothing, yet the GPU's phase is over";
  EXPECT_FALSE(b.prioritising());

  // The next launch counts from zero again.
  start(a, b);
  for (int i = 0; i < 9; ++i) b.l2_request_sent();
  tick(a), tick(b);
  EXPECT_TRUE(a.predicting());
  EXPECT_TRUE(b.predicting());
}

TEST(LoscachePhase, PerSmCountsOnlyItsOwnAccesses) {
  config::Config cfg = phase_cfg("sm", 10);
  sm::LoscacheUnit a(0, cfg), b(1, cfg);
  start(a, b);
  for (int i = 0; i < 10; ++i) a.l2_request_sent();
  tick(a, 14), tick(b, 14);  // one access per table cycle
  EXPECT_FALSE(a.predicting());
  EXPECT_TRUE(b.predicting()) << "SM 1's own phase has seen none of SM 0's accesses";
  EXPECT_TRUE(b.prioritising());
}

TEST(LoscachePhase, PredictorCountIgnoresOtherCtasAccesses) {
  config::Config cfg = phase_cfg("cta", 10);
  sm::LoscacheUnit a(0, cfg), b(1, cfg);
  start(a, b);
  for (int i = 0; i < 30; ++i) a.l2_request_sent(false);  // other CTAs of SM 0
  for (int i = 0; i < 9; ++i) a.l2_request_sent(true);
  tick(a, 45);
  EXPECT_TRUE(a.predicting()) << "9 of the predictor's 10";
  a.l2_request_sent(true);
  tick(a, 3);
  EXPECT_FALSE(a.predicting());
}

TEST(LoscachePhase, GpuWideWaitsForEveryPredictorCta) {
  config::Config cfg = phase_cfg("gpu", 100);
  sm::LoscacheUnit a(0, cfg), b(1, cfg);
  start(a, b);
  a.cta_finished(0);
  tick(a), tick(b);
  EXPECT_TRUE(a.predicting()) << "SM 1's predictor still runs";
  EXPECT_TRUE(b.predicting());
  EXPECT_FALSE(a.prioritising()) << "SM 0's predictor is gone";
  b.cta_finished(0);
  tick(a), tick(b);
  EXPECT_FALSE(a.predicting());
  EXPECT_FALSE(b.predicting());

  config::Config per = phase_cfg("sm", 100);
  sm::LoscacheUnit c(0, per), d(1, per);
  start(c, d);
  c.cta_finished(0);
  tick(c), tick(d);
  EXPECT_FALSE(c.predicting()) << "per SM: its own predictor ends its phase";
  EXPECT_TRUE(d.predicting());
}

// Two table entries, three distinct PCs (one issued twice): the table holds
// two, pcs_seen records three.
TEST(LoscachePhase, PcsSeenCountsPastAFullTable) {
  config::Config cfg = phase_cfg("sm", 100, 2);
  sm::LoscacheUnit u(0, cfg);
  u.begin_launch();
  u.cta_added(0);
  tick(u, 1);
  int fn = 0;
  sm::LoscacheUnit::Query q;
  for (int32_t pc : {8, 16, 8, 24}) {
    sm::LoscacheUnit::Op op{&fn, pc, 0x1000u + uint64_t(pc) * 128, true};
    u.cycle(&op, true, q);
  }
  config::json s = u.stats();
  EXPECT_EQ(s["inserts"], 4u) << "every predictor instruction offered";
  EXPECT_EQ(s["pcs_seen"], config::json({0, 0, 0, 1}));
  u.cta_finished(0);
  tick(u, 4);
  EXPECT_FALSE(u.predicting());
  s = u.stats();
  EXPECT_EQ(s["queries"], 2u) << "the table held two: one count query per valid entry";
  EXPECT_EQ(s["pcs_seen"], config::json({0, 0, 0, 1})) << "kept after the phase";
}

TEST(LoscachePhase, BadCountIsNamed) {
  config::Config cfg;
  try {
    cfg.set("loscache.phase_count=program");
    sm::LoscacheUnit u(0, cfg);
    FAIL() << "accepted loscache.phase_count=program";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("loscache.phase_count"), std::string::npos) << e.what();
  }
}

}  // namespace
