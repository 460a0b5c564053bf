// ARGO (sm/argo.h) in one SM: the allocation policy moves a warp's registers
// to other RF rows (same results, and a bad row is met by one policy only),
// power gating zeroes unallocated rows and costs the wake-up latency, and
// the per-row accounting adds up to the cycles rows were held.
#include <gtest/gtest.h>

#include "sm_test_rig.h"

namespace relgpu::sm {
namespace {

using test::kHead;
using test::TRig;

// Each thread writes (ctaid * 1000 + tid) * 3 through a few registers.
const char* const kKernel = R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 1000, %r1;
  mul.lo.u32 %r4, %r3, 3;
  mov.u32 %r5, %ntid.x;
  mad.lo.u32 %r6, %r2, %r5, %r1;
  mul.wide.u32 %rd2, %r6, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
})";

constexpr unsigned kCtas = 160;

struct Out {
  std::vector<uint32_t> data;
  config::json stats;
  uint64_t cycles = 0;
  unsigned rows_per_warp = 0;
  std::string error;  // the kernel failed (bad row)
};

// kCtas CTAs of one warp, two at a time, on the GTX480 RF (256 rows of 4
// bank groups). `bad_row` >= 0: every cell of that row is stuck at 1.
Out run(std::initializer_list<std::string> sets, int bad_row = -1) {
  TRig r;
  r.cfg.set("sm.max_ctas=2");
  for (auto& s : sets) r.cfg.set(s);
  r.load(std::string(kHead) + kKernel);
  uint64_t out = r.upload(std::vector<uint32_t>(kCtas * 32, 0));
  reliability::RfFaults faults(32, 256, 128);
  if (bad_row >= 0)
    for (unsigned b = 0; b < 32; ++b)
      for (unsigned bit = 0; bit < 128; ++bit) faults.add_bad_cell(b, unsigned(bad_row), bit, true);
  bool set = false;
  r.before_cycle = [&](uint64_t) {
    if (!set && bad_row >= 0) r.sm->regs().set_faults(&faults, false);
    set = true;
  };
  Out o;
  try {
    o.cycles = r.run_timing("k", {kCtas, 1, 1}, {32, 1, 1}, {out});
  } catch (const KernelError& e) {  // a corrupted address register
    o.error = e.what();
  }
  o.data = r.download<uint32_t>(out, kCtas * 32);
  o.stats = r.stats();
  o.rows_per_warp = (r.mod->find("k")->regs_used() + 3) / 4;
  return o;
}

std::vector<uint32_t> expected() {
  std::vector<uint32_t> v(kCtas * 32);
  for (unsigned c = 0; c < kCtas; ++c)
    for (unsigned t = 0; t < 32; ++t) v[c * 32 + t] = (c * 1000 + t) * 3;
  return v;
}

// Rows that were ever allocated.
std::vector<unsigned> used_rows(const Out& o) {
  std::vector<unsigned> rows;
  const auto& a = o.stats["argo"]["alloc_row_cycles"];
  for (unsigned r = 0; r < a.size(); ++r)
    if (a[r].get<uint64_t>() > 0) rows.push_back(r);
  return rows;
}

TEST(SmArgo, RotatingMovesRowsSameOutput) {
  Out ff = run({"rf.row_stats=true"}), rot = run({"rf.alloc_policy=rotating"});
  EXPECT_EQ(ff.data, expected());
  EXPECT_EQ(rot.data, expected());
  EXPECT_EQ(ff.cycles, rot.cycles);  // no gating: only the rows differ
  const unsigned rpw = ff.rows_per_warp;
  ASSERT_GE(rpw, 1u);
  // First fit: only the two lowest slots; rotating: every whole slot.
  EXPECT_EQ(used_rows(ff).size(), 2 * rpw);
  EXPECT_EQ(used_rows(ff).back(), 2 * rpw - 1);
  EXPECT_EQ(used_rows(rot).size(), 256 / rpw * rpw);
  EXPECT_EQ(rot.stats["argo"]["allocations"], kCtas);
  // Mutant check: the accounting sees the difference in row use.
  EXPECT_NE(used_rows(ff), used_rows(rot));
}

TEST(SmArgo, BadRowSeenByRotatingOnly) {
  const int bad = 200;  // first fit never gets there with 2 CTAs resident
  Out ff = run({"rf.row_stats=true"}, bad), rot = run({"rf.alloc_policy=rotating"}, bad);
  EXPECT_EQ(ff.error, "");
  EXPECT_EQ(ff.data, expected());
  EXPECT_EQ(ff.stats["rf_faults"]["corrupting_writes"], 0);
  // Rotating: the warp given row 200 stores from an all-ones address (or,
  // with other registers there, stores wrong values).
  EXPECT_GT(rot.stats["rf_faults"]["corrupting_writes"].get<uint64_t>(), 0u);
  EXPECT_TRUE(rot.error.find("address 0xffffffff") != std::string::npos || rot.data != expected()) << rot.error;
}

TEST(SmArgo, WakeupLatencyCostsCycles) {
  Out none = run({"rf.alloc_policy=rotating"});
  Out fast = run({"rf.alloc_policy=rotating", "rf.power_gating=true", "rf.wakeup_cycles=0"});
  Out slow = run({"rf.alloc_policy=rotating", "rf.power_gating=true", "rf.wakeup_cycles=100"});
  for (auto* o : {&none, &fast, &slow}) EXPECT_EQ(o->data, expected());
  EXPECT_EQ(fast.cycles, none.cycles);  // gating with an instant wake-up changes no timing
  // Two CTAs resident, each waits 100 cycles for its rows: most of it shows.
  EXPECT_GT(slow.cycles, none.cycles + kCtas / 2 * 50);
  // Every allocation woke its rows: they were gated when freed.
  EXPECT_EQ(slow.stats["argo"]["wakeups"].get<uint64_t>(), uint64_t(kCtas) * slow.rows_per_warp);
  EXPECT_EQ(none.stats["argo"]["wakeups"], 0);
}

TEST(SmArgo, RowAccountingAddsUp) {
  Out ff = run({"rf.row_stats=true"}), pg = run({"rf.power_gating=true", "rf.wakeup_cycles=0"});
  Out dom = run({"rf.power_gating=true", "rf.wakeup_cycles=0", "rf.gate_rows=64"});
  const auto& a = ff.stats["argo"]["alloc_row_cycles"];
  uint64_t sum = 0;
  for (auto& x : a) sum += x.get<uint64_t>();
  // One or two warps are resident at every busy cycle: each holds rpw rows.
  EXPECT_LE(sum, 2 * ff.rows_per_warp * ff.cycles);
  EXPECT_GE(sum, ff.rows_per_warp * (ff.cycles - 100));
  EXPECT_FALSE(ff.stats["argo"].contains("powered_row_cycles"));  // no gating: always powered
  // Gating per row: powered exactly while allocated.
  EXPECT_EQ(pg.stats["argo"]["powered_row_cycles"], pg.stats["argo"]["alloc_row_cycles"]);
  // 64-row domains: rows 0-63 are powered whenever any of them is held, so
  // more than the allocated cycles of the busiest row, and rows 64+ never.
  const auto& p = dom.stats["argo"]["powered_row_cycles"];
  EXPECT_GE(p[63].get<uint64_t>(), dom.stats["argo"]["alloc_row_cycles"][0].get<uint64_t>());
  EXPECT_EQ(p[63], p[0]);
  EXPECT_EQ(p[64], 0);
}

TEST(SmArgo, GatedRowsLoseTheirData) {
  auto last = [](std::initializer_list<std::string> sets) {
    TRig r;
    for (auto& s : sets) r.cfg.set(s);
    r.load(std::string(kHead) + kKernel);
    uint64_t out = r.upload(std::vector<uint32_t>(32, 0));
    r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {out});
    uint32_t any = 0;  // what row 0 still holds after the kernel
    for (unsigned g = 0; g < r.sm->regfile().groups(); ++g)
      for (unsigned l = 0; l < 32; ++l) any |= r.sm->regfile().wreg(g, 0)[l];
    return any;
  };
  EXPECT_NE(last({}), 0u);
  EXPECT_EQ(last({"rf.power_gating=true"}), 0u);
}

TEST(SmArgo, BadInputIsRejected) {
  TRig r;
  r.cfg.set("rf.gate_rows=3");  // does not divide 256 rows
  r.load(std::string(kHead) + kKernel);
  try {
    r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {r.upload(std::vector<uint32_t>(32, 0))});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rf.gate_rows (3) must divide rf.entries_per_bank (256)"), std::string::npos);
  }
  TRig g;
  g.cfg.set("rf.power_gating=true");
  g.cfg.set("grguard.enable=true");
  g.load(std::string(kHead) + kKernel);
  EXPECT_THROW(g.run_timing("k", {1, 1, 1}, {32, 1, 1}, {g.upload(std::vector<uint32_t>(32, 0))}), InputError);
}

}  // namespace
}  // namespace relgpu::sm
