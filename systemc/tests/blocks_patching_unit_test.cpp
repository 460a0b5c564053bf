// PatchingUnitModel alone: parameters from config, and the patch life cycle
// at a small size (the RTL lockstep covers the paper size).
#include <gtest/gtest.h>

#include "blocks/patching_unit/patching_unit.h"
#include "test_paths.h"
#include "common/error.h"

using namespace relgpu;
using namespace relgpu::blocks;
using relgpu::testpaths::source_path;

namespace {
PatchingUnitParams small() { return PatchingUnitParams{8, 16, 4, 4}; }

// Loads the Faulty map (WRG, faulty entries) and starts a kernel.
void start(PatchingUnitModel& m, std::initializer_list<std::pair<uint32_t, uint32_t>> faulty) {
  PatchingUnitIn fm;
  fm.fm_we_i = true;
  for (auto [w, f] : faulty) {
    fm.fm_wrg_i = w;
    fm.fm_data_i = f;
    m.cycle(fm);
  }
  PatchingUnitIn ks;
  ks.kernel_start_i = true;
  m.cycle(ks);
}

// A write port 0 request for row `row`.
PatchingUnitIn write_row(uint64_t row) {
  PatchingUnitIn wr;
  wr.wr_valid_i = 1;
  wr.wr_row_i = row;
  return wr;
}
}  // namespace

TEST(PatchingUnitModel, ParamsFromConfigFiles) {
  config::Config cfg;
  cfg.load_file(source_path("configs/blocks/patching_unit.json"));
  auto p = PatchingUnitParams::from(cfg);
  EXPECT_EQ(p.num_wrg(), 1024u);
  EXPECT_EQ(p.tgt_w(), 10u);
  config::Config s;
  s.load_file(source_path("configs/blocks/patching_unit.small.json"));
  EXPECT_EQ(PatchingUnitParams::from(s).num_wrg(), 32u);
  cfg.set("blocks.patching_unit.rows=100");
  EXPECT_THROW(PatchingUnitParams::from(cfg), InputError);
  cfg.set("blocks.patching_unit.rows=256");
  cfg.set("blocks.patching_unit.group_banks=32");  // one group only
  EXPECT_THROW(PatchingUnitParams::from(cfg), InputError);
}

// Write of a faulty WRG -> same-group patch; read redirects; death releases
// and the patch WRG becomes a candidate again.
TEST(PatchingUnitModel, PatchLifeCycle) {
  auto p = small();
  PatchingUnitModel m(p);
  start(m, {{2, 0b0100}});
  const PatchingUnitIn wr = write_row(2);
  auto o = m.cycle(wr);
  EXPECT_EQ(o.wr_kind_o & 3, uint64_t(PatchingUnitModel::kSame));
  EXPECT_EQ(o.wr_mask_o & 0xF, 0b0100u);
  EXPECT_EQ(o.wr_tgt_o & 0x1F, 0u);
  EXPECT_TRUE(m.patch(0));
  EXPECT_FALSE(m.dead(2));
  PatchingUnitIn rd;
  rd.rd_valid_i = 1;
  rd.rd_row_i = 2;
  o = m.cycle(rd);
  EXPECT_EQ(o.rd_kind_o & 3, uint64_t(PatchingUnitModel::kSame));
  rd.rd_dead_i = 1;
  m.cycle(rd);
  EXPECT_TRUE(m.dead(2));
  EXPECT_FALSE(m.patch(0));
  EXPECT_FALSE(m.index_valid(2));
  o = m.cycle(wr);  // same choice again
  EXPECT_EQ(o.wr_tgt_o & 0x1F, 0u);
  EXPECT_EQ(m.stats().release_death, 1u);
}

// A write to an occupied WRG: "whole" (the RTL) moves all its entries,
// "occupied_entries" (the paper's wording, an ablation) only its faulty
// ones and those that hold the other WRG's; reads redirect the same.
TEST(PatchingUnitModel, OccupiedWriteMovesWholeOrEntries) {
  for (bool entries : {false, true}) {
    auto p = small();
    p.occupied_entries = entries;
    EXPECT_EQ(p.describe().find("occupied_entries") != std::string::npos, entries);
    PatchingUnitModel m(p);
    start(m, {{2, 0b0100}, {0, 0b0001}});  // the patch WRG 0 has a faulty entry of its own
    m.cycle(write_row(2));                 // WRG 2's entry 2 -> WRG 0
    ASSERT_TRUE(m.patch(0));
    auto o = m.cycle(write_row(0));        // WRG 0's owner writes it
    const uint64_t want = entries ? 0b0101 : 0b1111;
    EXPECT_EQ(o.wr_mask_o & 0xF, want) << entries;
    EXPECT_EQ(o.wr_tgt_o & 0x1F, 1u);
    PatchingUnitIn rd;
    rd.rd_valid_i = 1;
    rd.rd_row_i = 0;
    o = m.cycle(rd);
    EXPECT_EQ(o.rd_mask_o & 0xF, want) << entries;
    EXPECT_EQ(m.stats().whole_selections, 1u);
  }
}

// Two writes needing a patch in one cycle: one selection per cycle (the RTL)
// retries the second; per_group_select (an ablation) serves both, each in its
// own group.
TEST(PatchingUnitModel, PerGroupSelectServesTwoWritesInOneCycle) {
  for (bool per_group : {false, true}) {
    auto p = small();  // 2 groups x 16 rows
    p.per_group_select = per_group;
    EXPECT_EQ(p.describe().find("per_group_select") != std::string::npos, per_group);
    PatchingUnitModel m(p);
    start(m, {{2, 0b0100}, {16 + 3, 0b0010}});  // WRG 2 (group 0) and WRG 19 (group 1) faulty
    PatchingUnitIn wr;
    wr.wr_valid_i = 0b11;
    wr.wr_row_i = 2 | (3u << 4);  // 4-bit rows
    auto o = m.cycle(wr);
    EXPECT_EQ(o.wr_kind_o & 3, uint64_t(PatchingUnitModel::kSame));
    EXPECT_EQ(o.wr_retry_o, per_group ? 0u : 0b10u);
    EXPECT_EQ(m.index_valid(19), per_group);
    if (per_group) {
      EXPECT_EQ(o.wr_kind_o >> 2 & 3, uint64_t(PatchingUnitModel::kSame));
      EXPECT_EQ(m.index(19).tgt / 16, 1u);  // a patch in its own group
      EXPECT_TRUE(m.patch(m.index(19).tgt));
    }
    EXPECT_EQ(m.stats().retry_serial, per_group ? 0u : 1u);
  }
}
