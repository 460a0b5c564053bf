// Barriers, scheduler order, divergence timing, the data-holding register
// file (fault API), activity observers and idle-cycle skipping.
#include <sstream>

#include "common/error.h"
#include "sm_test_rig.h"

namespace relgpu::sm::test {
namespace {

// Warp 0 runs a 60-add chain, then writes shared memory; every thread waits
// at bar.sync and then reads warp 0's value.
TEST(SmBehaviour, BarrierAcrossWarps) {
  TRig r;
  r.load(std::string(kHead) + R"(
.visible .entry k(.param .u64 out) {
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<4>;
  .shared .align 4 .b32 v;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra WAIT;
  mov.u32 %r2, 0;
)" + repeat("  add.u32 %r2, %r2, 2;", 60) + R"(
  st.shared.u32 [v], %r2;
WAIT:
  bar.sync 0;
  ld.shared.u32 %r3, [v];
  add.u32 %r3, %r3, %r1;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
})");
  uint64_t out = r.upload(std::vector<uint32_t>(128, 0));
  r.run_timing("k", {1, 1, 1}, {128, 1, 1}, {out});
  auto got = r.download<uint32_t>(out, 128);
  for (uint32_t t = 0; t < 128; ++t) EXPECT_EQ(got[t], 120 + t) << t;
  // Scheduler 1 owns warps 1 and 3, which wait at the barrier for the whole chain.
  EXPECT_GE(r.stats()["scheduler_cycles"]["barrier"].get<uint64_t>(), 60u * 6 - 20);
  EXPECT_GE(r.cycles, 60u * 6);
}

// 4 warps of 8 independent movs on one scheduler, with instruction buffers
// that hold them all: GTO keeps issuing the oldest warp, LRR rotates.
std::vector<unsigned> issue_order(const std::string& policy, const std::string& extra = "") {
  TRig r;
  r.cfg.set("sm.schedulers=1");
  r.cfg.set("sm.scheduler=" + policy);
  if (!extra.empty()) r.cfg.set(extra);
  r.cfg.set("sm.ibuffer_entries=16");
  std::string body;
  for (int i = 1; i <= 8; ++i) body += "  mov.u32 %r" + std::to_string(i) + ", " + std::to_string(i) + ";\n";
  for (int i = 2; i <= 8; ++i) body += "  add.u32 %r1, %r1, %r" + std::to_string(i) + ";\n";
  r.load(std::string(kHead) + ".visible .entry k(.param .u64 out) {\n  .reg .b32 %r<10>; .reg .b64 %rd<2>;\n" + body +
         "  ld.param.u64 %rd1, [out];\n  st.global.u32 [%rd1], %r1;\n  ret;\n}\n");
  uint64_t out = r.upload(std::vector<uint32_t>(1, 0));
  std::vector<Core::IssueRecord> trace;
  r.before_cycle = [&](uint64_t) { r.sm->set_issue_trace(&trace); };
  r.run_timing("k", {1, 1, 1}, {128, 1, 1}, {out});
  EXPECT_EQ(r.download<uint32_t>(out, 1)[0], 36u);
  std::vector<unsigned> ws;
  for (auto& t : trace) ws.push_back(t.ws);
  return ws;
}

TEST(SmBehaviour, SchedulerOrderLrrVersusGto) {
  std::vector<unsigned> gto = issue_order("gto"), lrr = issue_order("lrr");
  ASSERT_EQ(gto.size(), 4u * 18);  // 4 warps x (8 movs, 7 adds, ld.param, st, ret)
  ASSERT_EQ(lrr.size(), 4u * 18);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(gto[size_t(i)], 0u) << i;  // greedy on the oldest
  for (int i = 0; i < 16; ++i) EXPECT_EQ(lrr[size_t(i)], unsigned(i % 4)) << i;  // round robin
}

// Fetch groups of 2: warps 0 and 1 take turns over their 8 movs while warps
// 2 and 3 wait (they fill in only when both are stalled on the add chain),
// and group 0 finishes first.
TEST(SmBehaviour, SchedulerOrderFetchGroups) {
  std::vector<unsigned> fg = issue_order("fetch_group", "sm.fetch_group_warps=2");
  ASSERT_EQ(fg.size(), 4u * 18);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(fg[size_t(i)], unsigned(i % 2)) << i;
  std::vector<size_t> last(4, 0);
  for (size_t i = 0; i < fg.size(); ++i) last[fg[i]] = i;
  EXPECT_LT(std::max(last[0], last[1]), std::min(last[2], last[3]));
  // A group of all 4 warps is plain round robin.
  EXPECT_EQ(issue_order("fetch_group", "sm.fetch_group_warps=4"), issue_order("lrr"));
}

// The LD/ST hook point with a hook of the test's own (sm/ldst_hook.h): while
// it prioritises CTA slot 1, that CTA's warp issues its independent movs
// before CTA 0's does; it sees each global store start and leave, and its
// stats land under its key.
struct PrioritiseSlot final : LdstHook {
  unsigned slot = 1;
  uint64_t starts = 0, sent = 0, begins = 0;
  void begin_launch() override { ++begins; }
  bool prioritising() const override { return true; }
  bool prioritised(unsigned s) const override { return s == slot; }
  Tag cycle(const Start* st, bool, Packet&) override {
    starts += st != nullptr;
    return {};
  }
  void request_sent(unsigned) override { ++sent; }
  const char* stats_key() const override { return "test_hook"; }
  config::json stats() const override { return {{"starts", starts}, {"sent", sent}}; }
};

std::vector<unsigned> two_cta_order(bool hook) {
  TRig r;
  r.cfg.set("sm.schedulers=1");
  r.cfg.set("sm.scheduler=lrr");
  r.cfg.set("sm.ibuffer_entries=16");
  std::string body;
  for (int i = 1; i <= 8; ++i) body += "  mov.u32 %r" + std::to_string(i) + ", " + std::to_string(i) + ";\n";
  for (int i = 2; i <= 8; ++i) body += "  add.u32 %r1, %r1, %r" + std::to_string(i) + ";\n";
  r.load(std::string(kHead) + ".visible .entry k(.param .u64 out) {\n  .reg .b32 %r<10>; .reg .b64 %rd<4>;\n" + body +
         "  ld.param.u64 %rd1, [out];\n  mov.u32 %r9, %ctaid.x;\n  mul.wide.u32 %rd2, %r9, 4;\n"
         "  add.u64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r1;\n  ret;\n}\n");
  uint64_t out = r.upload(std::vector<uint32_t>(2, 0));
  PrioritiseSlot* h = nullptr;
  if (hook)
    r.on_core = [&h](Core& c) {
      auto p = std::make_unique<PrioritiseSlot>();
      h = p.get();
      c.attach_ldst_hook(std::move(p));
    };
  std::vector<Core::IssueRecord> trace;
  r.before_cycle = [&](uint64_t) { r.sm->set_issue_trace(&trace); };
  r.run_timing("k", {2, 1, 1}, {32, 1, 1}, {out});
  EXPECT_EQ(r.download<uint32_t>(out, 2), (std::vector<uint32_t>{36, 36}));
  if (hook) {
    EXPECT_EQ(h->begins, 1u);
    EXPECT_EQ(h->starts, 2u);  // one st.global per warp
    EXPECT_EQ(h->sent, 2u);
    EXPECT_EQ(r.stats()["test_hook"]["starts"].get<uint64_t>(), 2u);
  }
  std::vector<unsigned> ws;
  for (auto& t : trace) ws.push_back(t.ws);
  return ws;
}

TEST(SmBehaviour, LdstHookPriorityOrdersIssue) {
  std::vector<unsigned> plain = two_cta_order(false), prio = two_cta_order(true);
  ASSERT_EQ(plain.size(), 2u * 21);
  ASSERT_EQ(prio.size(), 2u * 21);
  // The run of issues by one warp from the second issue on (the first cycle
  // sees only CTA 0's warp ready): round robin alternates, the hook's CTA
  // issues its 8 movs and more back to back.
  auto run = [](const std::vector<unsigned>& v) {
    size_t n = 1;
    while (n + 1 < v.size() && v[n + 1] == v[1]) ++n;
    return n;
  };
  EXPECT_EQ(run(plain), 1u);
  EXPECT_GE(run(prio), 8u);
}

// Warps 0-1 (group 0) load and wait on the load; warps 2-3 (group 1) skip
// it; then every warp runs 600 independent movs. Priority passes to group 1
// when group 0 waits on memory and stays with it while it can issue (group 0
// fills its bubbles only), so group 1 finishes its movs first though group 0
// started first and its load returned long before.
TEST(SmBehaviour, FetchGroupPriorityPassesOnAMemoryWait) {
  TRig r;
  r.cfg.set("sm.schedulers=1");
  r.cfg.set("sm.scheduler=fetch_group");
  r.cfg.set("sm.fetch_group_warps=2");
  r.cfg.set("sm.ibuffer_entries=16");
  std::string movs;
  for (int i = 0; i < 600; ++i) movs += "  mov.u32 %r" + std::to_string(11 + i % 8) + ", " + std::to_string(i) + ";\n";
  r.load(std::string(kHead) + R"(
.visible .entry k(.param .u64 in, .param .u64 out) {
  .reg .pred %p<2>; .reg .b32 %r<20>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r10, %tid.x;
  mul.wide.u32 %rd3, %r10, 4;
  add.u64 %rd4, %rd1, %rd3;
  mov.u32 %r1, 7;
  setp.lt.u32 %p1, %r10, 64;
  @!%p1 bra MOVS;
  ld.global.u32 %r9, [%rd4];
  add.u32 %r1, %r1, %r9;
MOVS:
)" + movs + R"(
  add.u32 %r1, %r1, %r11;
  add.u64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r1;
  ret;
})");
  std::vector<uint32_t> in(128);
  for (uint32_t t = 0; t < 128; ++t) in[t] = t;
  uint64_t din = r.upload(in), dout = r.upload(std::vector<uint32_t>(128, 0));
  std::vector<Core::IssueRecord> trace;
  r.before_cycle = [&](uint64_t) { r.sm->set_issue_trace(&trace); };
  r.run_timing("k", {1, 1, 1}, {128, 1, 1}, {din, dout});
  auto got = r.download<uint32_t>(dout, 128);
  for (uint32_t t = 0; t < 128; ++t) EXPECT_EQ(got[t], 599 + (t < 64 ? t : 0)) << t;
  // pcs: 9 the add waiting on the load, 10-609 the movs.
  uint64_t add0 = 0, last_mov[2] = {0, 0};
  for (auto& t : trace) {
    if (t.ws == 0 && t.pc == 9) add0 = t.cycle;
    if (t.pc >= 10 && t.pc < 610) last_mov[t.ws / 2] = std::max(last_mov[t.ws / 2], t.cycle);
  }
  EXPECT_LT(add0, last_mov[1]);  // group 0 was ready again before group 1 finished
  EXPECT_LT(last_mov[1], last_mov[0]);
}

// if (tid < limit) A adds else B adds; then join. A divergent warp runs both
// paths one after the other and reconverges at the join.
std::string diverge_ptx(int limit, int a, int b) {
  return std::string(kHead) + ".visible .entry k(.param .u64 out) {\n"
         "  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
         "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, 0;\n"
         "  setp.lt.u32 %p1, %r1, " + std::to_string(limit) + ";\n  @%p1 bra THEN;\n" +
         repeat("  add.u32 %r2, %r2, 3;", b) + "  bra.uni JOIN;\nTHEN:\n" + repeat("  add.u32 %r2, %r2, 5;", a) +
         "JOIN:\n  add.u32 %r2, %r2, %r1;\n  mul.wide.u32 %rd2, %r1, 4;\n  add.u64 %rd3, %rd1, %rd2;\n"
         "  st.global.u32 [%rd3], %r2;\n  ret;\n}\n";
}

TEST(SmBehaviour, DivergentBranchReconvergenceTiming) {
  const int a = 10;
  int b = 7;
  auto run = [&](int limit, uint64_t& warp_insn, uint64_t& thread_insn) {
    TRig r;
    r.load(diverge_ptx(limit, a, b));
    uint64_t out = r.upload(std::vector<uint32_t>(32, 0));
    r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {out});
    auto got = r.download<uint32_t>(out, 32);
    for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(got[t], (int(t) < limit ? 5 * a : 3 * b) + t) << t;
    warp_insn = r.stat("warp_insn");
    thread_insn = r.stat("thread_insn");
    return r.cycles;
  };
  uint64_t wu, tu, wd, td;
  uint64_t uniform = run(32, wu, tu), divergent = run(16, wd, td);
  EXPECT_EQ(wd - wu, uint64_t(b) + 1);  // the else path and its bra.uni, once each
  // The paths run one after the other: the else path's b dependent adds
  // cost latency + 2 each, plus a constant for the bra.uni (issued right
  // after the last add, it overlaps that add's latency, then refetches).
  uint64_t w2, t2;
  b = 3;
  uint64_t divergent3 = run(16, w2, t2);
  b = 7;
  uint64_t c7 = divergent - uniform - 7 * 6, c3 = divergent3 - uniform - 3 * 6;
  EXPECT_EQ(c7, c3);
  EXPECT_GE(c7, 1u);
  EXPECT_LE(c7, 8u);
  // Join and after run once with all 32 lanes: the then-path lost 16 lanes,
  // the else path has 16.
  EXPECT_EQ(td, tu - 16u * uint64_t(a) + 16u * uint64_t(b + 1));
}

// The register file holds the values: flipping a bit of the physical entry
// that holds %r1 (lane 0) changes what the final add reads.
TEST(SmBehaviour, FaultInPhysicalEntryIsRead) {
  auto run = [](bool inject, bool unused_entry) {
    TRig r;
    r.load(std::string(kHead) + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<6>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 7;
  mov.u32 %r2, %tid.x;
)" + repeat("  add.u32 %r2, %r2, 1;", 40) + R"(
  add.u32 %r3, %r1, %r2;
  mul.wide.u32 %rd2, %r2, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3-160], %r3;
  ret;
})");
    const ptx::Function& f = *r.mod->find("k");
    int p = -1;
    for (size_t i = 0; i < f.regs.size(); ++i)
      if (f.regs[i].name == "%r1") p = f.phys_reg[i];
    EXPECT_GE(p, 0);
    uint64_t out = r.upload(std::vector<uint32_t>(32, 0));
    bool done = false;
    r.before_cycle = [&](uint64_t now) {
      if (!inject || done || now < 60) return;
      done = true;
      RegisterFile& rf = r.sm->regfile();
      unsigned g = r.sm->regs().group_of(0, unsigned(p)), row = r.sm->regs().row_of(0, unsigned(p));
      if (unused_entry) row = rf.entries() - 1;  // no warp owns the last row
      unsigned bank = g * rf.span();             // lanes 0.. of the warp register
      EXPECT_EQ(rf.first_lane(bank), 0u);
      if (!unused_entry) {
        EXPECT_EQ(rf.entry(bank, row)[0], 7u);  // the value lives there
      }
      rf.flip_bit(bank, row, 4);
    };
    r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {out});
    EXPECT_TRUE(!inject || done);
    return r.download<uint32_t>(out, 32);
  };
  auto clean = run(false, false), faulty = run(true, false), elsewhere = run(true, true);
  for (uint32_t t = 0; t < 32; ++t) {
    EXPECT_EQ(clean[t], 7 + 40 + t);
    EXPECT_EQ(faulty[t], (t == 0 ? 7u ^ 16u : 7u) + 40 + t) << t;
    EXPECT_EQ(elsewhere[t], clean[t]);
  }
}

struct Counter final : ActivityObserver {
  uint64_t cycles = 0, calls = 0, skipped = 0, issued = 0, rf_reads = 0, rf_writes = 0, l1 = 0, reqs = 0;
  void on_cycle(const Activity& a, uint64_t skip) override {
    ++calls;
    if (skip) {
      skipped += skip;
      cycles += skip;
      return;
    }
    ++cycles;
    for (auto v : a.issued) issued += v;
    for (auto v : a.rf_reads) rf_reads += v;
    for (auto v : a.rf_writes) rf_writes += v;
    l1 += a.l1_accesses;
    reqs += a.mem_requests;
  }
};

// Observers see every cycle (skipped ones in bulk) and the same totals as
// the stats; idle cycles while waiting on memory are skipped; a port that
// refuses requests for a while only delays them.
TEST(SmBehaviour, ObserverSkippingAndBackPressure) {
  Counter c;
  TRig r;
  r.delay = 1000;
  r.observers.push_back(&c);
  r.load(std::string(kHead) + R"(
.visible .entry k(.param .u64 p) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mad.lo.u32 %r1, %r3, 128, %r1;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  add.u32 %r2, %r2, 1;
  st.global.u32 [%rd3], %r2;
  ret;
})");
  std::vector<uint32_t> v(256);
  for (uint32_t i = 0; i < 256; ++i) v[i] = i * 3;
  uint64_t p = r.upload(v);
  bool refused = false;
  r.before_cycle = [&](uint64_t) {
    if (!refused) r.port->refuse(5), refused = true;
  };
  r.run_timing("k", {2, 1, 1}, {128, 1, 1}, {p});
  auto got = r.download<uint32_t>(p, 256);
  for (uint32_t i = 0; i < 256; ++i) EXPECT_EQ(got[i], i * 3 + 1);
  config::json s = r.stats();
  EXPECT_EQ(c.cycles, r.cycles);
  EXPECT_GT(c.skipped, 1500u);
  EXPECT_LT(r.calls, r.cycles / 10);  // most cycles were skipped
  EXPECT_EQ(c.issued, s["warp_insn"].get<uint64_t>());
  uint64_t reads = 0, writes = 0;
  for (auto& x : s["rf"]["reads"]) reads += x.get<uint64_t>();
  for (auto& x : s["rf"]["writes"]) writes += x.get<uint64_t>();
  EXPECT_EQ(c.rf_reads, reads);
  EXPECT_EQ(c.rf_writes, writes);
  EXPECT_GT(reads, 0u);
  EXPECT_EQ(c.l1, s["l1d"]["accesses"].get<uint64_t>());
  EXPECT_EQ(c.reqs, r.port->sent);
  EXPECT_EQ(r.port->sent, 16u);  // 8 warps: 4 B x 32 lanes = one line per load and per store
  EXPECT_GT(s["scheduler_cycles"]["memory"].get<uint64_t>(), 1000u);
}

// A barrier that can never release stops the launch with the functional
// engine's message instead of idling forever.
TEST(SmBehaviour, BarrierDeadlockIsReported) {
  TRig r;
  r.load(std::string(kHead) + ".visible .entry k() {\n  bar.sync 0, 64;\n  ret;\n}\n");
  std::string msg;
  try {
    r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {});
  } catch (const KernelError& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("kernel 'k': barrier deadlock in CTA (0,0,0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("waits at barrier 0"), std::string::npos) << msg;
}

// Occupancy: registers, CTA slots and threads limit resident CTAs.
// 8 warps of independent add chains over four registers, on 16 warp-wide
// banks: results are written while other warps read, so a bank port shared
// by reads and writes (rf.shared_port, GPGPU-Sim's arbitration) turns some
// of those reads into conflicts. Returns {cycles, conflicting reads}.
std::pair<uint64_t, uint64_t> add_chains(const std::string& port, std::initializer_list<const char*> extra = {}) {
  TRig r;
  for (const char* k : {"rf.num_banks=16", "rf.entries_per_bank=64", "rf.entry_bits=1024"}) r.cfg.set(k);
  for (const char* k : extra) r.cfg.set(k);
  r.cfg.set("rf.shared_port=" + port);
  r.load(std::string(kHead) + ".visible .entry k(.param .u64 out) {\n  .reg .b32 %r<8>; .reg .b64 %rd<4>;\n"
         "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, 1;\n  mov.u32 %r3, 2;\n  mov.u32 %r4, 3;\n" +
         repeat("  add.u32 %r2, %r2, %r1;\n  add.u32 %r3, %r3, %r4;\n  add.u32 %r4, %r4, %r2;", 40) +
         "  add.u32 %r5, %r3, %r4;\n  ld.param.u64 %rd1, [out];\n  mul.wide.u32 %rd2, %r1, 4;\n"
         "  add.u64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r5;\n  ret;\n}\n");
  uint64_t out = r.upload(std::vector<uint32_t>(256, 0));
  r.run_timing("k", {1, 1, 1}, {256, 1, 1}, {out});
  std::vector<uint32_t> got = r.download<uint32_t>(out, 256);
  for (uint32_t t = 0; t < 256; ++t) {
    uint32_t a = 1, b = 2, c = 3;
    for (int i = 0; i < 40; ++i) a += t, b += c, c += a;
    EXPECT_EQ(got[t], b + c) << t;
  }
  return {r.cycles, r.stats()["rf"]["conflict_reads"].get<uint64_t>()};
}

TEST(SmBehaviour, SharedRfPortMakesWritesBlockReads) {
  auto [cyc1, conf1] = add_chains("false");
  auto [cyc2, conf2] = add_chains("true");
  EXPECT_GT(conf2, conf1 + 20) << "a write must take its bank's read port";
  EXPECT_GT(cyc2, cyc1);
}

TEST(SmBehaviour, SharedRfPortThroughTheBankOrganizationTable) {
  auto [cyc1, conf1] = add_chains("false", {"bot.enable=true"});
  auto [cyc2, conf2] = add_chains("true", {"bot.enable=true"});
  EXPECT_GT(conf2, conf1 + 20) << "a vb written this cycle must read nothing";
  EXPECT_GT(cyc2, cyc1);
}

TEST(SmBehaviour, SharedRfPortRefusedUnderGrGuard) {
  TRig r;
  r.cfg.set("rf.shared_port=true");
  r.cfg.set("grguard.enable=true");
  r.load(std::string(kHead) + ".visible .entry k() {\n  ret;\n}\n");
  try {
    r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rf.shared_port"), std::string::npos) << e.what();
  }
}

TEST(SmBehaviour, OccupancyLimits) {
  TRig r;
  r.load(std::string(kHead) + ".visible .entry k() {\n  ret;\n}\n");
  func::LaunchCtx ctx;
  ctx.mod = r.mod.get();
  ctx.kernel = r.mod->find("k");
  ctx.block = {256, 1, 1};
  std::vector<uint8_t> params;
  ctx.params = &params;
  ctx.gmem = &r.mem;
  FakePort port(r.mem, 10);
  Core sm(0, r.cfg, port);
  sm.begin_launch(ctx);
  CtaShape s{256, 4, 0};
  uint32_t id[3] = {0, 0, 0};
  unsigned n = 0;
  while (sm.can_accept(s)) sm.add_cta(id), ++n;
  EXPECT_EQ(n, 6u);  // 1536 threads / 256
  EXPECT_FALSE(sm.can_accept({32, 4, 0}));
  EXPECT_FALSE(sm.idle());
  // 64 registers per thread: 16 rows per warp of 256 -> 16 warps -> 2 CTAs of 8 warps.
  Core sm2(1, r.cfg, port);
  sm2.begin_launch(ctx);
  EXPECT_TRUE(sm2.can_accept({256, 64, 0}));
  EXPECT_FALSE(sm2.can_accept({256, 64, 49153}));  // shared memory
}

}  // namespace
}  // namespace relgpu::sm::test
