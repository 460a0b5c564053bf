// Lockstep: rtl/loscache_table vs blocks::LoscacheTableModel, paper size.
#include <gtest/gtest.h>

#include <deque>
#include <functional>

#include "Vloscache_table.h"
#include "blocks/loscache_table/loscache_table.h"
#include "lockstep.h"

namespace relgpu::blocks {
RELGPU_TB_GLUE(LoscacheGlue, "loscache_table", Vloscache_table, LoscacheTable, RELGPU_LOSCACHE_TABLE_IN,
               RELGPU_LOSCACHE_TABLE_OUT);
}

using namespace relgpu;
using namespace relgpu::blocks;
using LS = tb::Lockstep<LoscacheGlue>;
using In = LoscacheTableIn;

namespace {

LoscacheTableParams params() { return LoscacheTableParams::from(tb::block_config()); }

In start() { In in; in.start_i = true; return in; }
In insert(uint32_t pc, uint32_t blk) { In in; in.insert_valid_i = true; in.insert_pc_i = pc; in.insert_blk_i = blk; return in; }
In lookup(uint32_t pc) { In in; in.lookup_valid_i = true; in.lookup_pc_i = pc; return in; }
In mispredict(uint32_t e) { In in; in.mispredict_valid_i = true; in.mispredict_entry_i = e; return in; }
uint32_t pc_of(unsigned i) { return 0x100u + 16u * i; }

#define STEP(ls, in) ASSERT_TRUE((ls).step(in)) << (ls).report()

// Answers every query with count(entry) on the following cycle, until NORMAL.
void finish_update(LS& ls, const std::function<uint32_t(uint32_t)>& count) {
  std::deque<uint32_t> q;
  for (int c = 0; c < 1000 && ls.model().phase() != kNormal; ++c) {
    In in;
    in.query_ready_i = true;
    if (!q.empty()) {
      in.fill_valid_i = true;
      in.fill_entry_i = q.front();
      in.fill_count_i = count(q.front());
      q.pop_front();
    }
    STEP(ls, in);
    if (ls.model_out().query_valid_o) q.push_back(ls.model_out().query_entry_o);
  }
  ASSERT_EQ(ls.model().phase(), kNormal);
}

}  // namespace

// More distinct PCs than entries: the extra ones are dropped; duplicates too.
TEST(LoscacheTableLockstep, TableFull) {
  auto p = params();
  LS ls(p, "directed_full");
  STEP(ls, start());
  for (unsigned i = 0; i < p.num_entries + 3; ++i) STEP(ls, insert(pc_of(i), i));
  EXPECT_TRUE(ls.model_out().full_o);
  STEP(ls, insert(pc_of(0), 77));  // duplicate, full
  In done;
  done.predictor_done_i = true;
  STEP(ls, done);
  EXPECT_EQ(ls.model().phase(), kUpdate);
  finish_update(ls, [](uint32_t e) { return e % 5 + 1; });
  for (unsigned i = 0; i < p.num_entries + 3; ++i) {
    STEP(ls, lookup(pc_of(i)));
    EXPECT_EQ(ls.model_out().lookup_hit_o, i < p.num_entries) << i;
    if (i < p.num_entries) EXPECT_EQ(ls.model_out().lookup_pred_o, i % 5 + 1);
  }
}

// The threshold saturates at 2^ThrWidth-1 and pred at 2^CntWidth-1.
TEST(LoscacheTableLockstep, CounterSaturation) {
  auto p = params();
  const uint32_t cntmax = uint32_t(mask(p.cnt_width)), thrmax = uint32_t(mask(p.thr_width));
  LS ls(p, "directed_saturation");
  STEP(ls, start());
  STEP(ls, insert(pc_of(0), 1));
  STEP(ls, insert(pc_of(1), 2));
  In done;
  done.predictor_done_i = true;
  STEP(ls, done);
  finish_update(ls, [&](uint32_t e) { return e == 0 ? cntmax - 1 : 2; });
  for (uint32_t k = 0; k < thrmax + 3; ++k) STEP(ls, mispredict(1));
  EXPECT_EQ(ls.model().entries()[1].thr, thrmax);
  STEP(ls, lookup(pc_of(1)));
  EXPECT_EQ(ls.model_out().lookup_pred_o, std::min(2 + thrmax, cntmax));
  STEP(ls, mispredict(0));
  STEP(ls, mispredict(0));
  STEP(ls, lookup(pc_of(0)));
  EXPECT_EQ(ls.model_out().lookup_pred_o, cntmax);  // cntmax-1 + 2, saturated
}

// PREDICT ends at exactly PhaseLimit L2 accesses, or at predictor_done_i.
TEST(LoscacheTableLockstep, PhaseEnd) {
  auto p = params();
  LS ls(p, "directed_phase_end");
  STEP(ls, start());
  In acc;
  acc.l2_access_i = true;
  for (unsigned i = 0; i + 1 < p.phase_limit; ++i) STEP(ls, acc);
  EXPECT_EQ(ls.model().phase(), kPredict);
  STEP(ls, In{});  // idle cycles do not count
  EXPECT_EQ(ls.model().phase(), kPredict);
  STEP(ls, acc);
  EXPECT_EQ(ls.model().phase(), kUpdate);
  STEP(ls, In{});  // empty table: UPDATE has nothing to ask
  EXPECT_EQ(ls.model().phase(), kNormal);

  STEP(ls, start());
  STEP(ls, insert(pc_of(3), 9));
  In done;
  done.predictor_done_i = true;
  STEP(ls, done);
  EXPECT_EQ(ls.model().phase(), kUpdate);
  EXPECT_TRUE(ls.model().accesses() < p.phase_limit);
  // A count of 0 (line evicted) drops the entry.
  finish_update(ls, [](uint32_t) { return 0u; });
  STEP(ls, lookup(pc_of(3)));
  EXPECT_FALSE(ls.model_out().lookup_hit_o);
}

// Seeded constrained-random kernels: start, PREDICT with inserts from a PC
// pool sometimes larger than the table, UPDATE with a randomly slow L2 that
// answers out of order, NORMAL with lookups and mispredicts.
TEST(LoscacheTableLockstep, Random) {
  auto p = params();
  const uint64_t seed = tb::seed_from_env(7007);
  const uint64_t cycles = 100000;
  std::printf("loscache_table random: seed=%llu cycles=%llu\n", (unsigned long long)seed, (unsigned long long)cycles);
  LS ls(p, "random", seed);
  tb::Rng rng(seed);
  tb::Coverage cov({"insert_new", "insert_dup", "insert_full_drop", "insert_ignored", "lookup_hit", "lookup_miss",
                    "lookup_outside_normal", "pred_saturated", "thr_increment", "thr_saturated",
                    "mispredict_ignored", "phase_end_limit", "phase_end_done", "update_to_normal", "query_stall",
                    "fill", "fill_zero_drop", "fill_ignored", "restart_mid_phase"});
  const unsigned ew = p.entry_width();
  const uint32_t cntmax = uint32_t(mask(p.cnt_width)), thrmax = uint32_t(mask(p.thr_width));
  std::vector<uint32_t> pool;
  std::vector<std::pair<uint32_t, uint64_t>> inflight;  // entry, cycle it may be answered
  double done_rate = 0.01, acc_rate = 0.3;
  uint64_t normal_since = 0;
  for (uint64_t c = 0; c < cycles; ++c) {
    const auto& m = ls.model();
    In in;
    bool new_kernel = c == 0 || (m.phase() == kNormal && c - normal_since > rng.range(50, 600)) ||
                      rng.chance(0.0005);
    if (new_kernel) {
      in.start_i = true;
      pool.assign(rng.range(1, p.num_entries + 8), 0);
      for (auto& pc : pool) pc = uint32_t(rng.bits(p.pc_width));
      done_rate = rng.chance(0.5) ? 0.002 : 0.02;
      acc_rate = rng.chance(0.5) ? 0.2 : 0.9;
      inflight.clear();
    }
    auto any_pc = [&] { return rng.chance(0.85) ? pool[rng.range(0, pool.size() - 1)] : uint32_t(rng.bits(p.pc_width)); };
    in.insert_valid_i = rng.chance(0.5);
    in.insert_pc_i = any_pc();
    in.insert_blk_i = uint32_t(rng.bits(p.blk_width));
    in.l2_access_i = rng.chance(acc_rate);
    in.predictor_done_i = rng.chance(done_rate);
    in.lookup_valid_i = rng.chance(0.6);
    in.lookup_pc_i = any_pc();
    in.query_ready_i = rng.chance(0.7);
    if (!inflight.empty() && rng.chance(0.5)) {
      size_t k = rng.range(0, inflight.size() - 1);
      if (inflight[k].second <= c) {
        in.fill_valid_i = true;
        in.fill_entry_i = inflight[k].first;
        in.fill_count_i = rng.chance(0.15) ? 0 : rng.chance(0.2) ? cntmax : uint32_t(rng.range(1, cntmax));
        inflight.erase(inflight.begin() + long(k));
      }
    } else if (rng.chance(0.02)) {  // a stray fill: must be ignored
      in.fill_valid_i = true;
      in.fill_entry_i = uint32_t(rng.bits(ew));
      in.fill_count_i = uint32_t(rng.bits(p.cnt_width));
    }
    in.mispredict_valid_i = rng.chance(0.3);
    in.mispredict_entry_i = uint32_t(rng.bits(ew));

    // Coverage from the state before the edge.
    const LoscachePhase ph = m.phase();
    const auto entries = m.entries();
    int ins_match = -1;
    for (unsigned i = 0; i < p.num_entries; ++i)
      if (entries[i].valid && entries[i].pc == in.insert_pc_i) ins_match = int(i);
    const unsigned acc_before = m.accesses();
    const bool pending_fill = in.fill_valid_i && in.fill_entry_i < p.num_entries && entries[in.fill_entry_i].pending;

    ASSERT_TRUE(ls.step(in)) << ls.report();
    const auto& o = ls.model_out();
    if (o.query_valid_o && in.query_ready_i && !in.start_i) inflight.emplace_back(o.query_entry_o, c + rng.range(1, 20));
    if (m.phase() == kNormal && ph != kNormal) normal_since = c;

    const bool live = !in.start_i;
    cov.hit("restart_mid_phase", in.start_i && ph != kNormal);
    if (live && ph == kPredict && in.insert_valid_i) {
      cov.hit("insert_new", ins_match < 0 && !o.full_o);
      cov.hit("insert_dup", ins_match >= 0);
      cov.hit("insert_full_drop", ins_match < 0 && o.full_o);
    }
    cov.hit("insert_ignored", live && ph != kPredict && in.insert_valid_i);
    cov.hit("lookup_hit", o.lookup_hit_o);
    cov.hit("lookup_miss", in.lookup_valid_i && ph == kNormal && !o.lookup_hit_o);
    cov.hit("lookup_outside_normal", in.lookup_valid_i && ph != kNormal);
    if (o.lookup_hit_o) {
      auto& e = entries[o.lookup_entry_o];
      cov.hit("pred_saturated", e.cnt + e.thr > cntmax);
    }
    if (live && ph == kNormal && in.mispredict_valid_i) {
      bool ok = in.mispredict_entry_i < p.num_entries && entries[in.mispredict_entry_i].valid;
      cov.hit("mispredict_ignored", !ok);
      cov.hit("thr_increment", ok && entries[in.mispredict_entry_i].thr < thrmax);
      cov.hit("thr_saturated", ok && entries[in.mispredict_entry_i].thr == thrmax);
    }
    if (live && ph == kPredict && m.phase() == kUpdate) {
      bool by_limit = acc_before + in.l2_access_i >= p.phase_limit;
      cov.hit("phase_end_limit", by_limit && !in.predictor_done_i);
      cov.hit("phase_end_done", in.predictor_done_i && !by_limit);
    }
    cov.hit("update_to_normal", live && ph == kUpdate && m.phase() == kNormal);
    cov.hit("query_stall", o.query_valid_o && !in.query_ready_i);
    if (live && ph == kUpdate && in.fill_valid_i) {
      cov.hit("fill", pending_fill);
      cov.hit("fill_zero_drop", pending_fill && in.fill_count_i == 0);
      cov.hit("fill_ignored", !pending_fill);
    }
  }
  std::printf("%s", cov.table("loscache_table random").c_str());
  EXPECT_TRUE(cov.missing().empty()) << "coverage points never hit";
}
