// Microbenchmarks with known answers on one SM (see sm/core.h for the
// pipeline timing these formulas come from).
#include <algorithm>
#include <functional>
#include <sstream>

#include "sm_test_rig.h"

namespace relgpu::sm::test {
namespace {

// %r1 = tid; n dependent `op %r2, %r2, %r1`; store.
std::string chain_ptx(int n, const std::string& op = "add.u32") {
  return std::string(kHead) + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 3;
)" + repeat("  " + op + " %r2, %r2, %r1;", n) + R"(
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
})";
}

// A chain's op and what thread t holds after n of them.
struct ChainOp {
  std::string text;
  std::function<uint32_t(uint32_t t, uint32_t n)> out;
};
const ChainOp kAdd{"add.u32", [](uint32_t t, uint32_t n) { return 3 + t * n; }};

struct ChainRun { uint64_t cycles, conflicts; };
ChainRun run_chain(int n, std::vector<std::string> cfg, uint32_t threads = 32, const ChainOp& op = kAdd) {
  TRig r;
  for (auto& c : cfg) r.cfg.set(c);
  r.load(chain_ptx(n, op.text));
  uint64_t out = r.upload(std::vector<uint32_t>(threads, 0));
  r.run_timing("k", {1, 1, 1}, {threads, 1, 1}, {out});
  auto got = r.download<uint32_t>(out, threads);
  unsigned wrong = 0;
  for (uint32_t t = 0; t < threads; ++t) wrong += got[t] != op.out(t, uint32_t(n));
  EXPECT_EQ(wrong, 0u) << op.text << ": threads with a wrong result";
  return {r.cycles, r.stats()["rf"]["conflict_reads"].get<uint64_t>()};
}

// Cycles that 32 more chained ops (40 against 8) add.
uint64_t extra_cycles(const ChainOp& op, std::vector<std::string> cfg, uint32_t threads = 32) {
  return run_chain(40, cfg, threads, op).cycles - run_chain(8, cfg, threads, op).cycles;
}

TEST(SmTiming, DependentAluChainTakesLatencyPlusTwoPerInstruction) {
  for (int lat : {4, 9}) {
    std::vector<std::string> c = {"sm.sp_latency=" + std::to_string(lat)};
    EXPECT_EQ(extra_cycles(kAdd, c), 32u * uint64_t(lat + 2)) << "sp_latency " << lat;
  }
}

// sm.op_latency=gpgpusim takes GPGPU-Sim's per-opcode latencies (add 4, max
// 13, xor 1: its ALU_OP class) and sm.result_delay its longer pipeline: a
// dependent add then issues every 10 cycles and an ALU_OP one every 7, as
// measured in GPGPU-Sim (docs/results/correlation.md, "relgpu ablation").
TEST(SmTiming, GpgpusimOpLatenciesAndResultDelay) {
  const ChainOp max{"max.u32", [](uint32_t t, uint32_t) { return std::max(3u, t); }};
  const ChainOp xr{"xor.b32", [](uint32_t, uint32_t) { return 3u; }};  // an even number of xors
  auto per_insn = [](const ChainOp& op, std::vector<std::string> cfg) { return extra_cycles(op, cfg) / 32; };
  const std::vector<std::string> gs = {"sm.op_latency=gpgpusim"}, both = {"sm.op_latency=gpgpusim", "sm.result_delay=4"};
  EXPECT_EQ(per_insn(xr, {}), 6u);  // relgpu's classes: every SP op sm.sp_latency 4, + 2
  EXPECT_EQ(per_insn(xr, gs), 3u);
  EXPECT_EQ(per_insn(max, gs), 15u);
  EXPECT_EQ(per_insn(kAdd, gs), 6u);
  EXPECT_EQ(per_insn(kAdd, {"sm.result_delay=4"}), 10u);
  EXPECT_EQ(per_insn(kAdd, both), 10u);
  EXPECT_EQ(per_insn(xr, both), 7u);
}

// GPGPU-Sim 3.x runs integer mul on the SFU (one unit here, two SP units):
// 32 warps of mul.lo.u32 chains issue half as fast as under 4.0's table.
TEST(SmTiming, Gpgpusim3RunsIntegerMulOnTheSfu) {
  const ChainOp mul{"mul.lo.u32", [](uint32_t t, uint32_t n) {
                      uint32_t v = 3;
                      for (uint32_t i = 0; i < n; ++i) v *= t;
                      return v;
                    }};
  uint64_t v4 = extra_cycles(mul, {"sm.op_latency=gpgpusim"}, 1024);
  uint64_t v3 = extra_cycles(mul, {"sm.op_latency=gpgpusim3"}, 1024);
  // 32 warps x 32 more muls, initiation interval 2: two SP units take at
  // least 1,024 cycles, the one SFU at least 2,048.
  EXPECT_GE(v4, 1024u);
  EXPECT_LT(v4, 1200u) << "v3 " << v3;
  EXPECT_GE(v3, 2048u);
  EXPECT_LT(v3, 2400u) << "v4 " << v4;
}

// With 8 banks of 128-bit entries a warp register spans all 8 banks: every
// pair of distinct source registers conflicts, costing one cycle each.
TEST(SmTiming, BankConflictCountAndExtraCycles) {
  std::vector<std::string> one_group = {"rf.num_banks=8", "rf.entry_bits=128", "rf.entries_per_bank=256"};
  // The premise for the default RF: %r1 and %r2 sit in different bank groups.
  {
    TRig r;
    r.load(chain_ptx(8));
    const ptx::Function& f = *r.mod->find("k");
    int p1 = -1, p2 = -1;
    for (size_t i = 0; i < f.regs.size(); ++i) {
      if (f.regs[i].name == "%r1") p1 = f.phys_reg[i];
      if (f.regs[i].name == "%r2") p2 = f.phys_reg[i];
    }
    ASSERT_GE(p1, 0);
    ASSERT_GE(p2, 0);
    ASSERT_NE(p1 % 4, p2 % 4);
  }
  ChainRun a8 = run_chain(8, {}), a40 = run_chain(40, {});
  ChainRun b8 = run_chain(8, one_group), b40 = run_chain(40, one_group);
  EXPECT_EQ(a40.conflicts - a8.conflicts, 0u);
  EXPECT_EQ(b40.conflicts - b8.conflicts, 32u);  // one per chained add
  EXPECT_EQ((b40.cycles - b8.cycles) - (a40.cycles - a8.cycles), 32u);  // one extra cycle each
  // The PV/NBTI organisation (16 x 1024-bit banks, one bank per warp register) has no conflict here.
  std::vector<std::string> pv = {"rf.num_banks=16", "rf.entry_bits=1024", "rf.entries_per_bank=64"};
  EXPECT_EQ(run_chain(40, pv).conflicts - run_chain(8, pv).conflicts, 0u);
}

// Pointer chase: each load's address depends on the previous load's value.
std::string chase_ptx(int n) {
  return std::string(kHead) + R"(
.visible .entry k(.param .u64 p, .param .u64 out) {
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd5, [out];
  mov.u64 %rd2, %rd1;
)" + repeat("  ld.global.u64 %rd3, [%rd2];\n  add.u64 %rd2, %rd1, %rd3;", n) + R"(
  st.global.u64 [%rd5], %rd2;
  ret;
})";
}

struct ChaseRun { uint64_t cycles, hits, misses; };
ChaseRun run_chase(int n, bool same_line, uint64_t delay, int hit_lat) {
  TRig r;
  r.delay = delay;
  r.cfg.set("l1d.hit_latency=" + std::to_string(hit_lat));
  r.load(chase_ptx(n));
  std::vector<uint64_t> a(16 * 16, 0);
  for (int k = 0; k < 16; ++k) {
    if (same_line) a[k] = uint64_t(k + 1) * 8;        // next word, same line
    else a[size_t(k) * 16] = uint64_t(k + 1) * 128;  // next line
  }
  uint64_t p = r.upload(a), out = r.upload(std::vector<uint64_t>(1, 0));
  r.run_timing("k", {1, 1, 1}, {1, 1, 1}, {p, out});
  EXPECT_EQ(r.download<uint64_t>(out, 1)[0], p + uint64_t(n) * (same_line ? 8 : 128));
  auto l1 = r.stats()["l1d"];
  return {r.cycles, l1["hits"].get<uint64_t>(), l1["misses"].get<uint64_t>()};
}

TEST(SmTiming, L1HitVersusMissLatency) {
  for (uint64_t delay : {50, 120})
    for (int hit : {1, 4}) {
      ChaseRun h1 = run_chase(1, true, delay, hit), h9 = run_chase(9, true, delay, hit);
      ChaseRun m1 = run_chase(1, false, delay, hit), m9 = run_chase(9, false, delay, hit);
      EXPECT_EQ(h9.hits, 8u);
      EXPECT_EQ(h9.misses, 1u);
      EXPECT_EQ(m9.hits, 0u);
      EXPECT_EQ(m9.misses, 9u);
      uint64_t hop_hit = (h9.cycles - h1.cycles) / 8, hop_miss = (m9.cycles - m1.cycles) / 8;
      EXPECT_EQ((h9.cycles - h1.cycles) % 8, 0u);
      // load (issue, operand read, dispatch, LD/ST: 3) + hit latency + dependent add (4 + 2)
      EXPECT_EQ(hop_hit, 3u + unsigned(hit) + 6u) << "delay " << delay << " hit " << hit;
      // a miss leaves after the L1 access latency and waits the memory round
      // trip plus the fill cycle before its data (the hit's latency) is there
      EXPECT_EQ(hop_miss - hop_hit, delay + 1) << "delay " << delay << " hit " << hit;
    }
}

// m shared stores of 32 lanes at a word stride: each takes `degree` cycles in
// the unit, degree = the most distinct words in one of 32 banks.
std::string smem_ptx(int stride, int m) {
  std::ostringstream s;
  s << kHead << ".visible .entry k() {\n  .reg .b32 %r<4>;\n  .shared .align 4 .b8 sh[16384];\n"
    << "  mov.u32 %r1, %tid.x;\n  mul.lo.u32 %r2, %r1, " << stride * 4 << ";\n"
    << "  mov.u32 %r3, sh;\n  add.u32 %r2, %r2, %r3;\n";
  for (int i = 0; i < m; ++i) s << "  st.shared.u32 [%r2+" << (i % 4) * 4 << "], %r1;\n";
  s << "  ret;\n}\n";
  return s.str();
}

TEST(SmTiming, SharedMemoryBankConflicts) {
  const int m = 32;
  auto run = [&](int stride, uint64_t& conflicts) {
    TRig r;
    r.load(smem_ptx(stride, m));
    r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {});
    conflicts = r.stats()["smem"]["bank_conflicts"].get<uint64_t>();
    EXPECT_EQ(r.stats()["smem"]["accesses"].get<uint64_t>(), uint64_t(m));
    return r.cycles;
  };
  uint64_t c1, base = run(1, c1);
  EXPECT_EQ(c1, 0u);
  for (int stride : {0, 2, 4, 32}) {
    unsigned degree = stride == 0 ? 1 : std::min(32, stride);
    uint64_t c, cyc = run(stride, c);
    EXPECT_EQ(c, uint64_t(m) * (degree - 1)) << "stride " << stride;
    // The unit is the bottleneck: every store occupies it `degree` cycles.
    EXPECT_EQ(cyc - base, uint64_t(m) * (degree - 1)) << "stride " << stride;
  }
}

}  // namespace
}  // namespace relgpu::sm::test
