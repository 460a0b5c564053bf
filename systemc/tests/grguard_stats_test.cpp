// GR-Guard's stats and its limits: the access mix adds up to the RF accesses
// the SM counts, the energy account prices them, the spill way is used when
// patches run out, a write that never finds one stops the run with a clear
// message, and grguard.enable=false changes nothing.
//
// A one-SM GPU spreads 1% failing cells over one register file (about 30% of
// its entries faulty, the paper's range), where a 15-SM chip at 1:1 puts
// more of them into a few SMs.
#include "gpu/stats.h"
#include "gpu_test_util.h"
#include "sm/l1d.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

struct Outcome {
  std::string error;        // InputError text, "" if the run finished
  bool pass = false;
  uint64_t thread_insn = 0;
  std::vector<config::json> launches;  // each launch's detail, as far as it got
};

Outcome run(const std::string& name, std::initializer_list<std::string> sets) {
  std::string out = in_child([&] {
    config::Config cfg = make_config("gtx480", sets);
    TimingDevice t(cfg);
    config::json j = config::json::object();
    try {
      WorkloadRun w = run_workload(t.dev, name, 1);
      j["pass"] = w.result.pass;
      j["thread_insn"] = w.thread_insn;
    } catch (const InputError& e) {
      j["error"] = e.what();
    }
    j["launches"] = config::json::array();
    for (auto& l : t.dev.launches()) j["launches"].push_back(l.detail);
    return j.dump();
  });
  config::json j = config::json::parse(out.rfind("error: ", 0) == 0 ? "{}" : out);
  Outcome r;
  if (!j.contains("launches")) {
    r.error = out;
    return r;
  }
  r.error = j.value("error", "");
  r.pass = j.value("pass", false);
  r.thread_insn = j.value("thread_insn", uint64_t(0));
  for (auto& l : j["launches"]) r.launches.push_back(l);
  return r;
}

uint64_t sum(const config::json& o) {
  uint64_t s = 0;
  for (auto& v : o) s += v.get<uint64_t>();
  return s;
}

TEST(GrGuardStats, AccessMixAddsUpAndEnergyFalls) {
  Outcome g = run("nbody", {"gpu.num_sms=1", "rf.cell_failure_rate=0.012", "grguard.enable=true"});
  Outcome base = run("nbody", {"gpu.num_sms=1"});
  ASSERT_EQ(g.error, "");
  ASSERT_TRUE(g.pass);
  ASSERT_TRUE(base.pass);
  config::json tg, tb;
  for (auto& d : g.launches) {
    const config::json& gr = d["grguard"];
    const config::json& rf = d["sm_total"]["rf"];
    // Every register read the arbitrator granted went through the unit once,
    // and every accepted write; patch accesses are the extra bank entries.
    EXPECT_EQ(sum(gr["reads"]) * 8, sum(rf["reads"]) - gr["patch_read_entries"].get<uint64_t>());
    EXPECT_EQ(sum(gr["writes"]) * 8, sum(rf["writes"]) - gr["patch_write_entries"].get<uint64_t>());
    EXPECT_EQ(sum(gr["reads"]), sum(gr["read_kinds"]));
    EXPECT_EQ(sum(gr["accesses"]), sum(gr["reads"]) + sum(gr["writes"]));
    // One map lookup per port presented: accepted or retried.
    EXPECT_EQ(d["energy"]["patching_unit"]["events"]["lookup"]["count"].get<uint64_t>(),
              sum(gr["accesses"]) + gr["selection_failures"].get<uint64_t>());
    // Map updates: selections, warp-exit deaths and deferred deaths (not RF
    // reads, not lookups).
    EXPECT_EQ(d["energy"]["patching_unit"]["events"]["update"]["count"].get<uint64_t>(),
              gr["patch_selections"].get<uint64_t>() + gr["exit_deaths"].get<uint64_t>() +
                  gr["deferred_deaths"].get<uint64_t>());
    gpu::add_json(tg, d);
  }
  for (auto& d : base.launches) gpu::add_json(tb, d);
  EXPECT_GT(tg["grguard"]["accesses"]["normal_patch"].get<uint64_t>(), 0u);
  EXPECT_GT(tg["grguard"]["patch_selections"].get<uint64_t>(), 0u);
  EXPECT_FALSE(tb.contains("grguard"));
  // Same instructions; the undervolted RF with its patches spends less.
  EXPECT_EQ(g.thread_insn, base.thread_insn);
  double eg = tg["energy"]["rf"]["total_nj"].get<double>(), eb = tb["energy"]["rf"]["total_nj"].get<double>();
  EXPECT_LT(eg, eb);
  EXPECT_GT(tg["energy"]["patching_unit"]["total_nj"].get<double>(), 0.0);
}

// At 2% of one RF's cells, nbody's writes find no dead good WRG at times:
// their entries go to the reserved L1D way, which then serves no cache
// line, and come back from it intact.
TEST(GrGuardStats, SpillsWhenPatchesRunOut) {
  Outcome r = run("nbody", {"gpu.num_sms=1", "rf.cell_failure_rate=0.02", "grguard.enable=true"});
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.pass);
  config::json t;
  for (auto& d : r.launches) gpu::add_json(t, d);
  EXPECT_GT(t["grguard"]["accesses"]["spill"].get<uint64_t>(), 0u);
  EXPECT_GT(t["grguard"]["spilled_entries"].get<uint64_t>(), 0u);
  EXPECT_GT(t["grguard"]["l1d_spill_accesses"].get<uint64_t>(), 0u);
  EXPECT_GT(t["grguard"]["spill_way_active_cycles"].get<uint64_t>(), 0u);
  EXPECT_GT(t["energy"]["patching_unit"]["events"]["l1d_spill_access"]["count"].get<uint64_t>(), 0u);
  EXPECT_EQ(t["sm_total"]["rf_faults"]["corrupting_writes"].get<uint64_t>(), 0u);
}

// vecops at 1% of one RF's cells needs more patches than there are dead
// good WRGs and spill lines: its writes wait, and the run stops, naming the
// operating point, rather than store a value in faulty cells.
TEST(GrGuardStats, StopsWhenNoPatchIsLeft) {
  Outcome r = run("vecops", {"gpu.num_sms=1", "rf.cell_failure_rate=0.01", "grguard.enable=true",
                             "grguard.stall_limit=20000"});
  EXPECT_NE(r.error.find("cannot run at rf.vdd="), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("rf.cell_failure_rate=0.01"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("for 20001 cycles"), std::string::npos) << r.error;
  for (auto& d : r.launches) EXPECT_EQ(d["sm_total"]["rf_faults"]["corrupting_writes"].get<uint64_t>(), 0u);
}

TEST(GrGuardStats, DisabledChangesNothing) {
  for (const char* rate : {"0", "0.01"}) {
    std::string r = std::string("rf.cell_failure_rate=") + rate;
    Outcome a = run("matmul", {r}), b = run("matmul", {r, "grguard.enable=false"});
    ASSERT_EQ(a.launches.size(), b.launches.size());
    for (size_t i = 0; i < a.launches.size(); ++i) {
      config::json x = a.launches[i], y = b.launches[i];
      EXPECT_EQ(x.dump(), y.dump()) << rate;
      EXPECT_FALSE(x.contains("grguard"));
      EXPECT_TRUE(x["energy"].contains("rf"));  // the baseline's RF energy, for comparisons
    }
  }
}

// Warp-exit deaths: scan's kernels run several waves of CTAs on one SM at
// 1%, and the registers of warps that exited become patch candidates for the
// later warps' writes. Off, the run is the paper's (compiler dead bits
// only) and sends none.
TEST(GrGuardStats, ExitDeathsFreeFinishedWarpsRegisters) {
  auto total = [](const Outcome& r, const char* k) {
    uint64_t n = 0;
    for (auto& d : r.launches) n += d["grguard"][k].get<uint64_t>();
    return n;
  };
  Outcome on = run("scan", {"gpu.num_sms=1", "rf.cell_failure_rate=0.01", "grguard.enable=true"});
  Outcome off = run("scan", {"gpu.num_sms=1", "rf.cell_failure_rate=0.01", "grguard.enable=true",
                             "grguard.exit_deaths=false"});
  ASSERT_EQ(on.error, "");
  ASSERT_EQ(off.error, "");
  EXPECT_TRUE(on.pass);
  EXPECT_TRUE(off.pass);
  EXPECT_GT(total(on, "exit_deaths"), 0u);
  EXPECT_EQ(total(off, "exit_deaths"), 0u);
  // The freed registers change where writes are placed. Whether that means
  // fewer failed selections depends on timing: it did with the old memory
  // model; with the GPGPU-Sim-correlated one scan gives 2,005 vs 2,001, so
  // the test asserts only that the mechanism acts (issue 13 measures it).
  EXPECT_NE(total(on, "selection_failures"), total(off, "selection_failures"));
  for (auto* r : {&on, &off})
    for (auto& d : r->launches) EXPECT_EQ(d["sm_total"]["rf_faults"]["corrupting_writes"].get<uint64_t>(), 0u);
}

// The spill way: reserving it drops its lines and fills avoid it.
TEST(GrGuardStats, ReservedWayHoldsNoCacheLine) {
  sm::L1D l1(1, 4, 4, 4);
  uint8_t data[mem::kLineBytes] = {};
  for (uint64_t a = 0; a < 4; ++a) l1.fill(a * mem::kLineBytes, data);
  for (uint64_t a = 0; a < 4; ++a) EXPECT_NE(l1.probe(a * mem::kLineBytes), nullptr);
  l1.reserve_last_way(true);
  int hits = 0;
  for (uint64_t a = 0; a < 4; ++a) hits += l1.probe(a * mem::kLineBytes) != nullptr;
  EXPECT_EQ(hits, 3);
  for (uint64_t a = 4; a < 12; ++a) l1.fill(a * mem::kLineBytes, data);  // LRU among 3 ways only
  hits = 0;
  for (uint64_t a = 0; a < 12; ++a) hits += l1.probe(a * mem::kLineBytes) != nullptr;
  EXPECT_EQ(hits, 3);
  l1.reserve_last_way(false);
  for (uint64_t a = 12; a < 16; ++a) l1.fill(a * mem::kLineBytes, data);
  hits = 0;
  for (uint64_t a = 12; a < 16; ++a) hits += l1.probe(a * mem::kLineBytes) != nullptr;
  EXPECT_EQ(hits, 4);
}

}  // namespace

// The ablation switches act (issue 13 measures them): with the paper's
// patch order the first candidates are dead registers of live warps, whose
// next writes move them ("patch-occupied"); moving only the occupied and
// faulty entries of such a WRG ("entries") moves fewer than all of them.
TEST(GrGuardStats, PatchOrderAndOccupiedMoveSwitches) {
  auto total = [](const Outcome& r) {
    config::json t;
    for (auto& d : r.launches) gpu::add_json(t, d);
    return t["grguard"];
  };
  const std::string sms = "gpu.num_sms=1", rate = "rf.cell_failure_rate=0.012", on = "grguard.enable=true";
  Outcome ours = run("nbody", {sms, rate, on});
  Outcome whole = run("nbody", {sms, rate, on, "grguard.patch_order=paper"});
  Outcome entries = run("nbody", {sms, rate, on, "grguard.patch_order=paper", "grguard.occupied_move=entries"});
  for (auto* r : {&ours, &whole, &entries}) {
    ASSERT_EQ(r->error, "");
    EXPECT_TRUE(r->pass);
  }
  config::json o = total(ours), w = total(whole), e = total(entries);
  EXPECT_GT(w["accesses"]["patch_occupied"].get<uint64_t>(), 10 * o["accesses"]["patch_occupied"].get<uint64_t>() + 100);
  auto per_access = [](const config::json& g) {
    return double(g["moved_entries"].get<uint64_t>()) /
           double(g["accesses"]["normal_patch"].get<uint64_t>() + g["accesses"]["patch_occupied"].get<uint64_t>());
  };
  EXPECT_LT(per_access(e), per_access(w));
}
