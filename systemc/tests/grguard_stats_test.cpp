// GR-Guard's stats and its limits: the access mix adds up to the RF accesses
// the SM counts, the energy account prices them, the spill way is used when
// patches run out, a write that never finds one stops the run with a clear
// message, and grguard.enable=false changes nothing.
//
// A one-SM GPU spreads 1% failing cells over one register file (about 30% of
// its entries faulty, the paper's range), where a 15-SM chip at 1:1 puts
// more of them into a few SMs.
#include <set>

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
  std::vector<uint32_t> regs;          // each launch's registers per thread
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
    j["regs"] = config::json::array();
    for (auto& l : t.dev.launches()) {
      j["launches"].push_back(l.detail);
      j["regs"].push_back(l.regs_per_thread);
    }
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
  for (auto& n : j["regs"]) r.regs.push_back(n.get<uint32_t>());
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

// The spill-capacity ablation grguard.spill_lines: the same vecops run that
// stops with the paper's 32 lines finishes bit-exact when the unit may use
// more (lines beyond the reserved way sit in a store beside the L1D), and
// its stats say how many it needed at once: its values went through them.
TEST(GrGuardStats, MoreSpillLinesLetAStoppingRunFinish) {
  const std::string sms = "gpu.num_sms=1", rate = "rf.cell_failure_rate=0.01", on = "grguard.enable=true",
                    lim = "grguard.stall_limit=20000";
  Outcome stop = run("vecops", {sms, rate, on, lim});
  EXPECT_NE(stop.error.find("found no patch"), std::string::npos) << stop.error;
  Outcome r = run("vecops", {sms, rate, on, lim, "grguard.spill_lines=1024"});
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.pass);
  config::json t;
  uint64_t most = 0;
  for (auto& d : r.launches) {
    gpu::add_json(t, d);
    most = std::max(most, uint64_t(d["grguard"]["max_spill_lines"].get<double>()));
  }
  EXPECT_GT(most, 32u);
  EXPECT_GT(t["grguard"]["spilled_entries"].get<uint64_t>(), 0u);
  EXPECT_EQ(t["sm_total"]["rf_faults"]["corrupting_writes"].get<uint64_t>(), 0u);
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

// The timing ablations that split GR-Guard's time cost change cycles, not
// results: per-group selections and a free patch port each save cycles, a
// patch access that costs nothing saves more, and every output still passes.
TEST(GrGuardStats, TimeCostAblationsSaveCyclesNotData) {
  const std::string sms = "gpu.num_sms=1", rate = "rf.cell_failure_rate=0.012", on = "grguard.enable=true";
  Outcome full = run("nbody", {sms, rate, on});
  Outcome per_group = run("nbody", {sms, rate, on, "grguard.selections=per_group"});
  Outcome latency = run("nbody", {sms, rate, on, "grguard.patch_cost=latency"});
  Outcome none = run("nbody", {sms, rate, on, "grguard.patch_cost=none"});
  for (auto* r : {&full, &per_group, &latency, &none}) {
    ASSERT_EQ(r->error, "");
    EXPECT_TRUE(r->pass);
  }
  auto cycles = [](const Outcome& r) {
    uint64_t n = 0;
    for (auto& d : r.launches) n += d["gpu_sim_cycle"].get<uint64_t>();
    return n;
  };
  EXPECT_LT(cycles(per_group), cycles(full));
  EXPECT_LT(cycles(latency), cycles(full));
  EXPECT_LT(cycles(none), cycles(latency));
  // Per entry, the good entries of a patched WRG count as normal accesses.
  config::json g;
  for (auto& d : full.launches) gpu::add_json(g, d["grguard"]);
  uint64_t acc = 0, ent = 0;
  for (auto& v : g["accesses"]) acc += v.get<uint64_t>();
  for (auto& v : g["entry_accesses"]) ent += v.get<uint64_t>();
  EXPECT_EQ(ent, 8 * acc);
  EXPECT_GT(g["entry_accesses"]["normal"].get<uint64_t>(), 8 * g["accesses"]["normal"].get<uint64_t>());
}

// Spill capacity (grguard.spill_ways, an ablation): reserving n ways drops
// their lines, fills use the others, and spill line k lives in set k % sets
// of the (k / sets)-th way from the last.
TEST(GrGuardStats, SpillWaysReserveMoreOfTheL1d) {
  sm::L1D l1(2, 4, 4, 4);
  uint8_t data[mem::kLineBytes] = {};
  l1.set_spill_ways(2);
  for (uint64_t a = 0; a < 8; ++a) l1.fill(a * mem::kLineBytes, data);
  l1.reserve_last_way(true);
  int hits = 0;
  for (uint64_t a = 0; a < 8; ++a) hits += l1.probe(a * mem::kLineBytes) != nullptr;
  EXPECT_EQ(hits, 4);
  for (uint64_t a = 8; a < 24; ++a) l1.fill(a * mem::kLineBytes, data);
  hits = 0;
  for (uint64_t a = 0; a < 24; ++a) hits += l1.probe(a * mem::kLineBytes) != nullptr;
  EXPECT_EQ(hits, 4);  // two ways of two sets
  // Line 3 = set 1, way 2; line 0 = set 0, way 3; no two lines share words.
  EXPECT_EQ(l1.spill_line(3) - l1.spill_line(0), std::ptrdiff_t((1 * 4 + 2 - 3) * 32));
  std::set<const uint32_t*> lines;
  for (unsigned k = 0; k < 4; ++k) lines.insert(l1.spill_line(k));
  EXPECT_EQ(lines.size(), 4u);
}

// The ablation switches of the operating point act on a run, and each keeps
// it bit-exact: vecops on one SM at 1% runs out of patches with the paper's
// one spill way and gets further with the whole L1D; SEC-DED per 32-bit
// word leaves fewer faulty entries, so fewer accesses are redirected; the
// allocator's registers per thread replace ptxas's in the launch.
TEST(GrGuardStats, SpillWaysSecdedBitsAndRegsPerThreadSwitches) {
  auto total = [](const Outcome& r) {
    config::json t;
    for (auto& d : r.launches) gpu::add_json(t, d);
    return t;
  };
  const std::string sms = "gpu.num_sms=1", rate = "rf.cell_failure_rate=0.01", on = "grguard.enable=true",
                    lim = "grguard.stall_limit=20000";
  // One way stops; four get further (the stop's census counts the WRGs
  // written, not dead, by then): measured 397 written with one way, and
  // with four the run completes (up to 16a2b4e, whose registers outside the
  // banks were others, both stopped: 351 and 439 written).
  auto written = [](const std::string& e) {
    size_t at = e.find(" written (not dead)");
    if (at == std::string::npos) return 0ul;
    size_t from = e.rfind(", ", at);
    return std::stoul(e.substr(from + 2, at - from - 2));
  };
  Outcome one = run("vecops", {sms, rate, on, lim}), four = run("vecops", {sms, rate, on, lim, "grguard.spill_ways=4"});
  EXPECT_NE(one.error.find("found no patch"), std::string::npos) << one.error;
  EXPECT_GT(written(one.error), 300u) << one.error;
  EXPECT_EQ(four.error, "");
  EXPECT_TRUE(four.pass);
  for (auto* r : {&one, &four})
    for (auto& d : r->launches) EXPECT_EQ(d["sm_total"]["rf_faults"]["corrupting_writes"].get<uint64_t>(), 0u);

  Outcome entry = run("nbody", {sms, "rf.cell_failure_rate=0.012", on});
  Outcome word = run("nbody", {sms, "rf.cell_failure_rate=0.012", on, "rf.secded_bits=32"});
  for (auto* r : {&entry, &word}) {
    ASSERT_EQ(r->error, "");
    EXPECT_TRUE(r->pass);
  }
  config::json e = total(entry), w = total(word);
  EXPECT_LT(w["sm_total"]["rf_faults"]["faulty_entries"].get<double>(),
            0.8 * e["sm_total"]["rf_faults"]["faulty_entries"].get<double>());
  EXPECT_EQ(w["sm_total"]["rf_faults"]["corrupting_writes"].get<uint64_t>(), 0u);
  EXPECT_GT(w["sm_total"]["rf_faults"]["corrected_writes"].get<uint64_t>(), 0u);
  EXPECT_GT(w["grguard"]["accesses"]["normal"].get<uint64_t>(), e["grguard"]["accesses"]["normal"].get<uint64_t>());

  // nbody_accel, nbody_integrate: ptxas 58, 22; the allocator 25, 25 (docs/registers.md).
  Outcome alloc = run("nbody", {sms, "gpu.regs_per_thread=allocator"});
  ASSERT_EQ(alloc.error, "");
  EXPECT_TRUE(alloc.pass);
  ASSERT_EQ(entry.regs.size(), alloc.regs.size());
  ASSERT_GE(alloc.regs.size(), 2u);
  EXPECT_EQ(entry.regs[0], 58u);
  EXPECT_EQ(alloc.regs[0], 25u);
  EXPECT_EQ(alloc.regs[1], 25u);
}

TEST(GrGuardStats, AblationSwitchErrorsNameTheKey) {
  Outcome ways = run("vecops", {"gpu.num_sms=1", "rf.cell_failure_rate=0.01", "grguard.enable=true",
                                "grguard.spill_ways=5"});
  EXPECT_NE(ways.error.find("grguard.spill_ways=5"), std::string::npos) << ways.error;
  EXPECT_NE(ways.error.find("l1d.ways"), std::string::npos) << ways.error;
  Outcome lines = run("vecops", {"gpu.num_sms=1", "rf.cell_failure_rate=0.01", "grguard.enable=true",
                                 "grguard.spill_lines=16"});
  EXPECT_NE(lines.error.find("grguard.spill_lines=16"), std::string::npos) << lines.error;
  EXPECT_NE(lines.error.find("32 lines"), std::string::npos) << lines.error;
  Outcome same = run("nbody", {"gpu.num_sms=1", "rf.cell_failure_rate=0.012", "grguard.enable=true",
                               "grguard.spill_lines=32"});  // as many as the reserved way: allowed
  EXPECT_EQ(same.error, "");
  EXPECT_TRUE(same.pass);
  Outcome bits = run("vecops", {"gpu.num_sms=1", "rf.cell_failure_rate=0.01", "rf.secded_bits=48"});
  EXPECT_NE(bits.error.find("rf.secded_bits"), std::string::npos) << bits.error;
}
