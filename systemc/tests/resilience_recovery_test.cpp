// The checkpoint-and-relaunch runtime (runtime/resilience.h): an injected,
// detected error is recovered to the fault-free output under every scheme;
// recoveries that skip the restore or relaunch only the faulty kernel give a
// wrong output; an in-place chain is replayed; the chain bound copies; bad
// keys are named; the same seed gives the same stats; chains whose kernels
// cannot be relaunched any more are copied (bfs, scan).
#include <gtest/gtest.h>

#include <sstream>

#include "common/error.h"
#include "gpu/mode.h"
#include "runtime/device.h"
#include "workload.h"

using namespace relgpu;

namespace {

struct Outcome {
  wl::Result result;
  nlohmann::ordered_json res;  // the resilience stats
};

Outcome run(const std::string& name, const std::vector<std::string>& sets) {
  config::Config cfg;
  for (auto& s : sets) cfg.set(s);
  runtime::Device dev(cfg);
  gpu::use_configured_engine(dev, cfg);
  std::ostringstream log;
  wl::Context ctx{dev, wl::Size::small, 3, wl::ptx_text(name), wl::ptx_path(name), wl::ptxas_info(name), log};
  Outcome r;
  r.result = wl::find(name)->run(ctx);
  dev.finish();
  r.res = dev.resilience_stats();
  return r;
}

const std::vector<std::string> kFunctional{"sim.mode=functional"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// (a) Every scheme recovers an injected error in nw's in-place score matrix
// (launch 3 of 7) and histogram's atomic bins to the fault-free output
// (both integer, checked exactly against the CPU reference).
TEST(Resilience, InjectedErrorRecoversUnderEveryScheme) {
  for (const char* w : {"nw", "histogram"})
    for (const char* scheme : {"file", "cpu_memory", "input_only", "memory_protection"}) {
      const std::string launch = std::string(w) == "nw" ? "3" : "0";
      Outcome r = run(w, with(kFunctional, {std::string("resilience.scheme=") + scheme,
                                        "resilience.inject_launches=" + launch}));
      EXPECT_TRUE(r.result.pass) << w << " " << scheme << ": " << r.result.message;
      EXPECT_EQ(r.res["errors_injected"], 1u) << w << " " << scheme;
      EXPECT_EQ(r.res["recoveries"], 1u) << w << " " << scheme;
    }
}

// (b) Mutants: the same injection with the restore skipped (histogram's
// atomics then count twice) or with only the faulty kernel relaunched (nw
// loses the chain's earlier diagonals) gives a wrong output; no injection
// at all with the corruption left in place is wrong too.
TEST(Resilience, RecoveryWithoutRestoreOrChainIsWrong) {
  const auto mp = with(kFunctional, {"resilience.scheme=memory_protection", "resilience.chain_bound=0"});
  Outcome ok = run("histogram", with(mp, {"resilience.inject_launches=0"}));
  EXPECT_TRUE(ok.result.pass) << ok.result.message;
  Outcome no_restore = run("histogram", with(mp, {"resilience.inject_launches=0", "resilience.recovery=no_restore"}));
  EXPECT_FALSE(no_restore.result.pass) << "replaying atomics on the corrupted bins must double-count";
  Outcome only_k = run("nw", with(mp, {"resilience.inject_launches=3", "resilience.recovery=faulty_only"}));
  EXPECT_FALSE(only_k.result.pass) << "relaunching only launch 3 on the restored matrix must lose launches 0-2";
  EXPECT_EQ(only_k.res["kernels_replayed"], 1u);
}

// (c) nw updates one matrix in place every launch: an error in launch 3
// restores the host copy and replays launches 0-3 (D = {copy, k0..k3}).
TEST(Resilience, ChainIsReplayed) {
  Outcome r = run("nw", with(kFunctional, {"resilience.scheme=memory_protection", "resilience.chain_bound=0",
                                       "resilience.inject_launches=3"}));
  EXPECT_TRUE(r.result.pass) << r.result.message;
  EXPECT_EQ(r.res["kernels_replayed"], 4u);
  EXPECT_EQ(r.res["launches_with_io"], 7u);
  EXPECT_EQ(r.res["max_chain"], 8u);  // the copy and all 7 launches
  EXPECT_EQ(r.res["checkpoints"], 0u);  // the host copy is the implicit checkpoint
  // An error in the first launch replays only it.
  Outcome first = run("nw", with(kFunctional, {"resilience.scheme=memory_protection", "resilience.inject_launches=0"}));
  EXPECT_TRUE(first.result.pass) << first.result.message;
  EXPECT_EQ(first.res["kernels_replayed"], 1u);
}

// (d) Chain bound: the matrix is copied whenever D grows past L, so the
// error in launch 3 replays only the launches since the last copy.
TEST(Resilience, ChainBoundCopies) {
  const auto mp = with(kFunctional, {"resilience.scheme=memory_protection", "resilience.inject_launches=3"});
  Outcome l1 = run("nw", with(mp, {"resilience.chain_bound=1"}));  // {copy, k} is 2 > 1: a copy after every launch
  EXPECT_TRUE(l1.result.pass) << l1.result.message;
  EXPECT_EQ(l1.res["chain_bound_copies"], 7u);
  EXPECT_EQ(l1.res["checkpoints"], 7u);
  EXPECT_EQ(l1.res["kernels_replayed"], 1u);
  EXPECT_GT(l1.res["checkpoint_bytes"].get<uint64_t>(), 0u);
  Outcome l2 = run("nw", with(mp, {"resilience.chain_bound=2"}));  // copies after launches 1, 3, 5
  EXPECT_TRUE(l2.result.pass) << l2.result.message;
  EXPECT_EQ(l2.res["chain_bound_copies"], 3u);
  EXPECT_EQ(l2.res["kernels_replayed"], 2u);  // D = {copy after launch 1, k2, k3}
}

// backprop adjusts its weights in place every epoch while the host copies
// new inputs and deltas: before each such copy the weight chain is cut by a
// copy, so a late error still recovers.
TEST(Resilience, HostOverwriteCutsChain) {
  Outcome clean = run("backprop", with(kFunctional, {"resilience.scheme=memory_protection", "resilience.chain_bound=0"}));
  ASSERT_TRUE(clean.result.pass) << clean.result.message;
  const uint64_t n = clean.res["launches"];
  ASSERT_GE(n, 6u);
  EXPECT_GT(clean.res["input_overwrite_copies"].get<uint64_t>(), 0u);
  Outcome r = run("backprop", with(kFunctional, {"resilience.scheme=memory_protection", "resilience.chain_bound=0",
                                             "resilience.inject_launches=" + std::to_string(n - 1)}));
  EXPECT_TRUE(r.result.pass) << r.result.message;
  EXPECT_EQ(r.res["recoveries"], 1u);
}

// bfs swaps its frontier buffers and updates level and the frontier in place
// each launch: a kernel overwriting what a chained kernel read (even a version
// that kernel itself updated) cuts the chain by a copy, so an error in any
// launch recovers (without the cut the replay is refused); and an error in a
// 1-byte flag store corrupts that flag, not a byte beside it the relaunch
// would leave, so input_only recovers too.
TEST(Resilience, KernelOverwriteCutsChain) {
  for (const char* scheme : {"memory_protection", "input_only"}) {
    Outcome r = run("bfs", with(kFunctional, {std::string("resilience.scheme=") + scheme,
                                              "resilience.inject_launches=0,1,2,3,4,5,6,7,8"}));
    EXPECT_TRUE(r.result.pass) << scheme << ": " << r.result.message;
    EXPECT_EQ(r.res["launches"], 9u) << scheme;
    EXPECT_EQ(r.res["recoveries"], 9u) << scheme;
    if (std::string(scheme) == "memory_protection") {
      EXPECT_GT(r.res["input_overwrite_copies"].get<uint64_t>(), 0u);
    }
  }
}

// A stale chain is copied only when needed: hotspot's ping-pong kernels
// overwrite each other's inputs but never update a buffer in place, so an
// error-free run copies nothing; scan frees its block sums (which the first
// kernel wrote) before its last launch, so an error there replays launches 0
// and 2 and copies the sums once, at the recovery.
TEST(Resilience, StaleChainCopiedOnlyWhenNeeded) {
  Outcome hot = run("hotspot", with(kFunctional, {"resilience.scheme=memory_protection"}));
  EXPECT_TRUE(hot.result.pass) << hot.result.message;
  EXPECT_EQ(hot.res["checkpoints"], 0u);
  Outcome scan = run("scan", with(kFunctional, {"resilience.scheme=memory_protection", "resilience.inject_launches=2"}));
  EXPECT_TRUE(scan.result.pass) << scan.result.message;
  EXPECT_EQ(scan.res["kernels_replayed"], 2u);
  EXPECT_EQ(scan.res["recovery_copies"], 1u);
  EXPECT_EQ(scan.res["checkpoints"], 0u);
}

// (e) Bad keys are named; the same seed gives the same stats, another seed other draws.
TEST(Resilience, BadKeysAreNamed) {
  auto message = [](const std::vector<std::string>& sets) -> std::string {
    try {
      run("nw", sets);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message({"resilience.scheme=memory_protection", "resilience.inject_launches=1,x"})
                .find("resilience.inject_launches: 'x'"),
            std::string::npos);
  EXPECT_NE(message({"resilience.inject_launches=1"}).find("resilience.scheme"), std::string::npos);
  EXPECT_NE(message({"resilience.scheme=disk"}).find("resilience.scheme"), std::string::npos);
  EXPECT_NE(message({"resilience.scheme=memory_protection", "resilience.inject_probability=1.5"})
                .find("resilience.inject_probability"),
            std::string::npos);
}

TEST(Resilience, SameSeedSameStats) {
  const auto sets = with(kFunctional, {"resilience.scheme=input_only", "resilience.inject_probability=0.4"});
  Outcome a = run("nw", with(sets, {"resilience.seed=5"})), b = run("nw", with(sets, {"resilience.seed=5"}));
  EXPECT_TRUE(a.result.pass) << a.result.message;
  EXPECT_EQ(a.res.dump(), b.res.dump());
  EXPECT_GT(a.res["errors_injected"].get<uint64_t>(), 0u);
  Outcome c = run("nw", with(sets, {"resilience.seed=6"}));
  EXPECT_TRUE(c.result.pass) << c.result.message;
}

// Timing mode: checkpoint copies and recoveries are simulated time. One
// process elaborates one GPU, so one scheme here; the campaign compares them.
TEST(Resilience, TimingChargesCheckpointAndRecovery) {
  Outcome r = run("nw", {"resilience.scheme=input_only", "resilience.inject_launches=3"});
  EXPECT_TRUE(r.result.pass) << r.result.message;
  EXPECT_GT(r.res["kernel_time_ps"].get<uint64_t>(), 0u);
  EXPECT_GT(r.res["overhead_pct"].get<double>(), 0.0);
  EXPECT_GT(r.res["replay_time_ps"].get<uint64_t>(), 0u);
  EXPECT_GT(r.res["restore_time_ps"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.res["recovery_time_ps"].get<uint64_t>(),
            r.res["replay_time_ps"].get<uint64_t>() + r.res["restore_time_ps"].get<uint64_t>());
}

}  // namespace
