// The LoSCache table's threshold: each under-prediction raises the entry's
// pred by one up to 2^thr_width - 1; thr_width 0 is the naive predictor.
#include <gtest/gtest.h>

#include "blocks/loscache_table/loscache_table.h"

using namespace relgpu::blocks;

namespace {

// pred of PC 7 after its fill of count 2 and `misses` under-predictions.
uint32_t pred_after(unsigned thr_width, unsigned misses) {
  LoscacheTableParams p;
  p.thr_width = thr_width;
  LoscacheTableModel t(p);
  LoscacheTableIn in;
  in.start_i = true;
  t.cycle(in);  // -> PREDICT
  in = {};
  in.insert_valid_i = true, in.insert_pc_i = 7, in.insert_blk_i = 3, in.predictor_done_i = true;
  t.cycle(in);  // -> UPDATE
  in = {};
  in.query_ready_i = true;
  t.cycle(in);  // the query leaves
  in = {};
  in.fill_valid_i = true, in.fill_entry_i = 0, in.fill_count_i = 2;
  t.cycle(in);
  t.cycle(LoscacheTableIn{});  // -> NORMAL
  for (unsigned i = 0; i < misses; ++i) {
    in = {};
    in.mispredict_valid_i = true, in.mispredict_entry_i = 0;
    t.cycle(in);
  }
  in = {};
  in.lookup_valid_i = true, in.lookup_pc_i = 7;
  LoscacheTableOut o = t.cycle(in);
  EXPECT_TRUE(o.lookup_hit_o);
  return o.lookup_pred_o;
}

TEST(LoscacheTableThreshold, AdaptiveRaisesNaiveDoesNot) {
  EXPECT_EQ(pred_after(2, 0), 2u);
  EXPECT_EQ(pred_after(2, 1), 3u);
  EXPECT_EQ(pred_after(2, 9), 5u) << "saturates at 2 + 3";
  EXPECT_EQ(pred_after(0, 9), 2u) << "thr_width 0: the naive count";
}

}  // namespace
