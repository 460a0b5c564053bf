// BankOrgTableModel alone: parameters from config, and the re-organization
// at a small size (the RTL lockstep covers the paper size).
#include <gtest/gtest.h>

#include "blocks/bank_org_table/bank_org_table.h"
#include "test_paths.h"
#include "common/error.h"

using namespace relgpu;
using namespace relgpu::blocks;
using relgpu::testpaths::source_path;

TEST(BankOrgTableModel, ParamsFromConfigFiles) {
  config::Config cfg;
  cfg.load_file(source_path("configs/blocks/bank_org_table.json"));
  auto p = BankOrgTableParams::from(cfg);
  EXPECT_EQ(p.num_sbs(), 32u);
  EXPECT_EQ(p.reorg_latency(), 34u);
  cfg.set("blocks.bank_org_table.num_vbs=12");
  EXPECT_THROW(BankOrgTableParams::from(cfg), InputError);
}

// 4 vbs / 8 sbs: codes put sbs 7,6,5 fastest; 5 fast sbs (odd) leave a
// natural hybrid; nhyb=2 makes one swap.
TEST(BankOrgTableModel, ReorgSortsAndSwaps) {
  BankOrgTableParams p{4, 2, 4, 1, 1};
  BankOrgTableModel m(p);
  BankOrgTableIn in;
  in.reorg_i = true;
  const uint32_t codes[8] = {9, 8, 7, 6, 3, 2, 1, 0};
  for (unsigned s = 0; s < 8; ++s)
    for (unsigned b = 0; b < 4; ++b) set_wide_bit(in.sensors_i, s * 4 + b, (codes[s] >> b) & 1);
  in.slow_thr_i = 6;  // sbs 7,6,5,4,3 fast
  in.nhyb_i = 2;
  m.cycle(in);
  unsigned cycles = 1;
  while (m.busy()) m.cycle(BankOrgTableIn{}), ++cycles;
  EXPECT_EQ(cycles, p.reorg_latency());
  using E = BankOrgTableModel::Entry;
  // Sorted: 7 6 | 5 4 | 3 2 | 1 0 -> F=2, C=3: vb1 <-> vb3 swap.
  EXPECT_TRUE((m.bot(0) == E{7, 6, false, false}));
  EXPECT_TRUE((m.bot(1) == E{5, 1, false, true}));
  EXPECT_TRUE((m.bot(2) == E{3, 2, false, true}));  // natural hybrid
  EXPECT_TRUE((m.bot(3) == E{4, 0, false, true}));
  EXPECT_EQ(m.num_fast(), 4u);
  EXPECT_EQ(m.last_swaps(), 1u);
}

// Ties at the threshold: by code every sb with code 5 is fast (all 8); with
// nslow_min_i = 3 the last 3 picks (ties go to the lower id first, so sbs
// 5, 6, 7) are slow by rank.
TEST(BankOrgTableModel, RankLimitsFastSubBanksWhereCodesTie) {
  BankOrgTableParams p{4, 2, 4, 1, 1};
  using E = BankOrgTableModel::Entry;
  for (uint32_t nslow : {0u, 3u}) {
    BankOrgTableModel m(p);
    BankOrgTableIn in;
    in.reorg_i = true;
    for (unsigned s = 0; s < 8; ++s)
      for (unsigned b = 0; b < 4; ++b) set_wide_bit(in.sensors_i, s * 4 + b, (5u >> b) & 1);
    in.slow_thr_i = 5;
    in.nslow_min_i = nslow;
    m.cycle(in);
    while (m.busy()) m.cycle(BankOrgTableIn{});
    EXPECT_TRUE((m.bot(0) == E{0, 1, false, false}));
    EXPECT_TRUE((m.bot(2) == E{4, 5, false, nslow == 3}));
    EXPECT_TRUE((m.bot(3) == E{6, 7, nslow == 3, nslow == 3}));
    EXPECT_EQ(m.num_fast(), nslow ? 3u : 4u);
  }
}
