// GR-Guard's patches carry the data (sm/grguard.h): a redirected register's
// moved entries are stored in the patch WRG's cells or in the L1D spill line
// and read from there, so whatever happens to those cells shows in the
// results, and whatever happens to the register's own faulty cells does not.
// A wrong death (the grguard.debug_false_dead mutant) corrupts a workload.
#include <cstdio>
#include <cstring>

#include "gpu_test_util.h"
#include "sm/grguard.h"
#include "sm/l1d.h"
#include "sm_test_rig.h"

using namespace relgpu;

namespace {

// One warp holds 16 values (lane + k<<16) across a loop of `iters` and then
// stores them: out[lane * 16 + k].
std::string hold_kernel(int iters) {
  std::string s = std::string(sm::test::kHead) +
                  ".visible .entry k(.param .u64 out) {\n"
                  "  .reg .b32 %r<40>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p;\n"
                  "  ld.param.u64 %rd1, [out];\n  mov.u32 %r0, %tid.x;\n";
  for (int k = 0; k < 16; ++k) s += "  add.u32 %r" + std::to_string(k + 2) + ", %r0, " + std::to_string((k + 1) << 16) + ";\n";
  s += "  mov.u32 %r30, 0;\nLOOP:\n  add.u32 %r30, %r30, 1;\n  setp.lt.u32 %p, %r30, " + std::to_string(iters) +
       ";\n  @%p bra LOOP;\n  mul.wide.u32 %rd2, %r0, 64;\n  add.u64 %rd3, %rd1, %rd2;\n";
  for (int k = 0; k < 16; ++k)
    s += "  st.global.u32 [%rd3+" + std::to_string(4 * k) + "], %r" + std::to_string(k + 2) + ";\n";
  return s + "  ret;\n}\n";
}

uint32_t expected(unsigned lane, unsigned k) { return lane + ((k + 1) << 16); }

// Runs hold_kernel with GR-Guard at `rate` (4:1) and, once, after the
// values are written, lets `touch` change the cells of one held register
// that GR-Guard moved (`spill`: to the L1D, else to a patch WRG). Returns
// the output; `lanes` gets the lanes `touch` changed (per k, bit per lane).
struct Touch {
  unsigned k = 0;           // which value
  unsigned entry = 0;       // which of its moved entries
  uint32_t patch_lane = 0;  // lane flipped where the entry is stored (bit 0)
  int home_lane = -1;       // lane flipped in the register's own cells of an unmoved entry (bit 1), or -1
};
std::vector<uint32_t> run_touched(const std::string& rate, bool spill, Touch& t, bool& touched) {
  sm::test::TRig r;
  for (const std::string& s : std::vector<std::string>{"grguard.enable=true", "pv.sigma_ratio=4:1", "rf.cell_failure_rate=" + rate})
    r.cfg.set(s);
  r.load(hold_kernel(300));
  std::vector<uint32_t> zeros(32 * 16, 0);
  uint64_t out = r.upload(zeros);
  const ptx::Function* fn = r.mod->find("k");
  touched = false;
  r.before_cycle = [&](uint64_t now) {
    if (now > 200000) throw std::runtime_error("runaway: the loop counter was lost");  // a few thousand when right
    if (touched || now < 600) return;
    sm::Core& c = *r.sm;
    for (unsigned k = 0; k < 16 && !touched; ++k) {
      unsigned slot = 0, p = 0, width = 0;
      while (fn->regs[slot].name != "%r" + std::to_string(k + 2)) ++slot;
      if (!c.regs().phys(0, slot, p, width)) continue;
      const unsigned g = c.regs().group_of(0, p), row = c.regs().row_of(0, p);
      const sm::Moved mv = c.grguard()->moved(g, row);
      if (!mv.mask || (mv.spill != nullptr) != spill) continue;
      touched = true;
      t.k = k;
      t.entry = unsigned(__builtin_ctz(mv.mask));
      t.patch_lane = t.entry * 4;
      uint32_t* where = spill ? mv.spill : c.regfile().wreg(unsigned(mv.group), unsigned(mv.row));
      where[t.patch_lane] ^= 1;
      c.regfile().wreg(g, row)[t.patch_lane] ^= 4;  // its own cells of the moved entry: unused
      const uint32_t home = ~mv.mask & 0xFF;
      if (home) {
        t.home_lane = int(__builtin_ctz(home) * 4);
        c.regfile().wreg(g, row)[t.home_lane] ^= 2;
      }
    }
  };
  r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {out});
  EXPECT_EQ(r.sm->regs().latch_misses(), 0u);  // every operand came from the collector's copy
  return r.download<uint32_t>(out, 32 * 16);
}

void check_touched(const std::string& rate, bool spill) {
  Touch t;
  bool touched = false;
  std::vector<uint32_t> v = run_touched(rate, spill, t, touched);
  ASSERT_TRUE(touched) << "no held register was " << (spill ? "spilled" : "patched") << " at " << rate;
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned k = 0; k < 16; ++k) {
      uint32_t want = expected(lane, k);
      if (k == t.k && lane == t.patch_lane) want ^= 1;
      if (k == t.k && int(lane) == t.home_lane) want ^= 2;
      EXPECT_EQ(v[lane * 16 + k], want) << "lane " << lane << " value " << k;
    }
}

// At 1% (4:1) nearly every WRG has a faulty entry and the one warp leaves
// most WRGs dead: the held values are patched into other WRGs' cells.
TEST(GrGuardData, PatchedRegisterIsReadFromThePatchCells) { check_touched("0.01", false); }

// At 30% every entry is faulty: no WRG can patch, every write spills, and
// the held values live in the L1D's reserved way.
TEST(GrGuardData, SpilledRegisterIsReadFromTheL1dLine) { check_touched("0.3", true); }

// The spill line is the reserved way's data: fills leave it while the way
// is reserved and overwrite it after it is given back.
TEST(GrGuardData, SpillLineLostToACacheFillAfterRelease) {
  sm::L1D l1(2, 2, 4, 4);
  uint8_t data[mem::kLineBytes];
  std::memset(data, 0xAB, sizeof data);
  l1.reserve_last_way(true);
  uint32_t* line = l1.spill_line(1);
  for (unsigned i = 0; i < 32; ++i) line[i] = i;
  for (uint64_t a = 1; a < 8; a += 2) l1.fill(a * mem::kLineBytes, data);  // set 1, three lines
  for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(line[i], i);
  l1.reserve_last_way(false);
  l1.fill(9 * mem::kLineBytes, data);  // set 1: the LRU way is the free last one
  EXPECT_EQ(line[0], 0xABABABABu);
}

// The mutant: a wrong death now and then (grguard.debug_false_dead) lets a
// live register lose its patch or be patched over. On a run where GR-Guard
// patches, the output is then wrong (or the kernel faults), while the same
// run without the mutant is bit-exact.
struct Result {
  std::string what;  // "pass", "fail: ...", "error: ..."
  uint64_t corrupted = 0, redirected = 0;
};
Result run_nbody(std::initializer_list<std::string> extra) {
  std::vector<std::string> sets = {"gpu.num_sms=1", "rf.cell_failure_rate=0.012", "grguard.enable=true"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  std::string out = gputest::in_child([&] {
    config::Config cfg = gputest::make_config("gtx480", {});
    for (auto& s : sets) cfg.set(s);
    gputest::TimingDevice t(cfg);
    std::string what;
    try {
      gputest::WorkloadRun w = gputest::run_workload(t.dev, "nbody", 1);
      what = w.result.pass ? "pass" : "fail: " + w.result.message;
    } catch (const std::exception& e) {
      what = std::string("error: ") + e.what();
    }
    uint64_t corrupted = 0, redirected = 0;
    for (auto& l : t.dev.launches()) {
      corrupted += l.detail["sm_total"]["rf_faults"]["corrupting_writes"].get<uint64_t>();
      for (const char* k : {"normal_patch", "patch_occupied", "spill"})
        redirected += l.detail["grguard"]["accesses"][k].get<uint64_t>();
    }
    return std::to_string(corrupted) + " " + std::to_string(redirected) + " " + what;
  });
  Result r;
  unsigned long long c = 0, d = 0;
  int n = 0;
  if (std::sscanf(out.c_str(), "%llu %llu %n", &c, &d, &n) < 2) return Result{"child: " + out};
  return Result{out.substr(size_t(n)), c, d};
}

TEST(GrGuardData, WrongDeathsCorruptAWorkload) {
  Result good = run_nbody({});
  EXPECT_EQ(good.what, "pass");
  EXPECT_EQ(good.corrupted, 0u);
  EXPECT_GT(good.redirected, 0u);
  // One read in 200 dies wrongly: with the values stored where
  // the placement says, nbody faults or fails its check; with every value
  // at home (the model before patches carried data) it passed.
  Result bad = run_nbody({"grguard.debug_false_dead=200"});
  EXPECT_TRUE(bad.what.rfind("fail: ", 0) == 0 || bad.what.rfind("error: kernel ", 0) == 0) << bad.what;
  EXPECT_EQ(bad.corrupted, 0u);  // no write met bad cells: the data path lost it
}

// Dead marking is only for non-divergent reads (spec §6.3.1): a register read
// for the last time on one side of a branch is still live in the lanes of the
// other side. Each side holds V = lane + 0x10000 across two chains of fresh
// registers (each write needs a patch at 1% 4:1) and reads it between them;
// with the paper's patch order (lowest rows first) a WRG wrongly marked dead on
// the first side is soon a patch, and the other side reads another register's data.
std::string diverge_kernel() {
  std::string s = std::string(sm::test::kHead) +
                  ".visible .entry k(.param .u64 out) {\n"
                  "  .reg .b32 %r<64>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p;\n"
                  "  ld.param.u64 %rd1, [out];\n  mov.u32 %r0, %tid.x;\n  add.u32 %r1, %r0, 65536;\n"
                  "  and.b32 %r2, %r0, 1;\n  setp.eq.u32 %p, %r2, 0;\n  @%p bra EVEN;\n";
  auto side = [&s](int base, const char* use) {
    for (int k = 0; k < 8; ++k)  // chain A: fresh registers, none reading %r1
      s += "  add.u32 %r" + std::to_string(base + k) + ", %r" + std::to_string(k ? base + k - 1 : 0) + ", " +
           std::to_string(k + 1) + ";\n";
    s += std::string("  ") + use + "\n";  // the side's only read of %r1: dead after it on this path
    for (int k = 8; k < 16; ++k)  // chain B
      s += "  add.u32 %r" + std::to_string(base + k) + ", %r" + std::to_string(base + k - 1) + ", 1;\n";
  };
  side(10, "add.u32 %r3, %r1, 7;");
  s += "  add.u32 %r3, %r3, %r25;\n  bra.uni JOIN;\nEVEN:\n";
  side(30, "mul.lo.u32 %r3, %r1, 3;");
  s += "  add.u32 %r3, %r3, %r45;\nJOIN:\n  mul.wide.u32 %rd2, %r0, 4;\n  add.u64 %rd3, %rd1, %rd2;\n"
       "  st.global.u32 [%rd3], %r3;\n  ret;\n}\n";
  return s;
}

TEST(GrGuardData, DivergentLastReadKeepsTheOtherLanesValue) {
  sm::test::TRig r;
  for (const char* s : {"grguard.enable=true", "pv.sigma_ratio=4:1", "rf.cell_failure_rate=0.01",
                        "grguard.patch_order=paper"})
    r.cfg.set(s);
  r.load(diverge_kernel());
  uint64_t out = r.upload(std::vector<uint32_t>(32, 0));
  r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {out});
  std::vector<uint32_t> v = r.download<uint32_t>(out, 32);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t V = lane + 0x10000, chain = lane + 36 + 8;  // 1 + ... + 8 on %r0, then eight +1
    EXPECT_EQ(v[lane], lane & 1 ? V + 7 + chain : V * 3 + chain) << "lane " << lane;
  }
  EXPECT_GT(r.stats()["grguard"]["patch_selections"].get<uint64_t>(), 0u);
}

}  // namespace
