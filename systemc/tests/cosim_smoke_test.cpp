// RTL in the loop on every smoke workload (regress/smoke.json, timing runs,
// small size) with GR-Guard (1% cell failures) and LoSCache on: the stats of
// `--rtl all` are identical to the C++ models' and `--rtl-check` passes. Also
// the CLI's --rtl errors and --trace-rtl output. Runs the built binary.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

using nlohmann::json;

namespace {

using relgpu::clitest::Out;
using relgpu::clitest::relgpu;

const std::string kSrc = RELGPU_SOURCE_DIR_DEFAULT;

struct Smoke {
  std::string workload, config, size;
};
void PrintTo(const Smoke& s, std::ostream* os) { *os << s.workload << " (" << s.config << ", " << s.size << ")"; }

// The timing runs of the smoke suite, read when the tests are registered.
std::vector<Smoke> smoke_runs() {
  std::ifstream f(kSrc + "/regress/smoke.json");
  json s = json::parse(f);
  std::vector<Smoke> v;
  std::set<std::string> seen;
  for (auto& r : s["runs"]) {
    if (r.value("mode", "") != "timing" || !seen.insert(r["workload"].get<std::string>()).second) continue;
    v.push_back({r["workload"], r.value("config", ""), r.value("size", s["defaults"].value("size", "small"))});
  }
  return v;
}

// GR-Guard with a 1% cell failure rate, so that the patching unit patches,
// and LoSCache, so that the prediction table runs its phases. Sigma ratio
// 4:1: there every smoke workload runs at 1% on every chip checked (1-10);
// at the default 1:1 the PV model puts over half of some SMs' entries into
// the faulty set and GR-Guard stops (grguard_workloads_test).
const char* kBlocksOn =
    " --set grguard.enable=true --set rf.cell_failure_rate=0.01 --set pv.sigma_ratio=4:1 --set loscache.enable=true";

std::string tmp(const std::string& name) { return ::testing::TempDir() + "cosim_" + name; }

// The stats minus what may differ between identical runs (wall clock) and
// the config echo of the RTL options themselves.
json comparable(const std::string& path) {
  std::ifstream f(path);
  json s = json::parse(f);
  for (const char* k : {"wall_s", "host", "silicon_slowdown"}) s.erase(k);
  for (auto it = s.begin(); it != s.end();)
    it = it.key().rfind("sim_rate_", 0) == 0 ? s.erase(it) : std::next(it);
  for (const char* k : {"sim.rtl", "sim.rtl_check", "sim.trace_rtl"}) s["config"].erase(k);
  return s;
}

class CosimSmoke : public ::testing::TestWithParam<Smoke> {};

TEST_P(CosimSmoke, RtlStatsEqualCppStatsAndCheckPasses) {
  const Smoke& r = GetParam();
  std::string base = "run " + r.workload + " --size " + r.size + " --quiet" + kBlocksOn;
  if (!r.config.empty()) base += " --config " + kSrc + "/" + r.config;
  const std::string cpp = tmp(r.workload + "_cpp.json"), rtl = tmp(r.workload + "_rtl.json"),
                    chk = tmp(r.workload + "_check.json");
  Out a = relgpu(base + " --stats " + cpp);
  ASSERT_EQ(a.rc, 0) << "C++ mode: " << a.text;
  Out b = relgpu(base + " --rtl all --stats " + rtl);
  ASSERT_EQ(b.rc, 0) << "RTL mode: " << b.text;
  Out c = relgpu(base + " --rtl-check --stats " + chk);
  ASSERT_EQ(c.rc, 0) << "--rtl-check: " << c.text;
  const json jc = comparable(cpp), jr = comparable(rtl), jk = comparable(chk);
  EXPECT_EQ(jc, jr) << "RTL-mode stats differ from C++ mode; diff:\n" << json::diff(jc, jr).dump(1);
  EXPECT_EQ(jc, jk) << "--rtl-check stats differ from C++ mode; diff:\n" << json::diff(jc, jk).dump(1);
  // The echo says which mode ran.
  std::ifstream f(rtl);
  EXPECT_EQ(json::parse(f)["config"]["sim.rtl"], "all");
}

INSTANTIATE_TEST_SUITE_P(Smoke, CosimSmoke, ::testing::ValuesIn(smoke_runs()),
                         [](const ::testing::TestParamInfo<Smoke>& i) { return i.param.workload; });

TEST(CosimCli, TraceRtlWritesFstPerInstance) {
  namespace fs = std::filesystem;
  const std::string fst = tmp("trace.fst");
  Out o = relgpu("run vecops --size small --quiet --config " + kSrc + "/configs/gtx480.json --set gpu.num_sms=2" +
                 " --set grguard.enable=true --set loscache.enable=true --rtl all --trace-rtl " + fst);
  ASSERT_EQ(o.rc, 0) << o.text;
  for (const char* f : {"cosim_trace.sm0.patching_unit.fst", "cosim_trace.sm1.loscache_table.fst"}) {
    const fs::path p = fs::path(::testing::TempDir()) / f;
    ASSERT_TRUE(fs::exists(p)) << p;
    EXPECT_GT(fs::file_size(p), 1000u) << p;
  }
}

// After a --rtl-check run the summary says how much was compared: a block
// the run never clocked would pass the check without checking anything.
TEST(CosimCli, RtlCheckSaysHowMuchItCompared) {
  const std::string base = "run vecops --size small --config " + kSrc +
                           "/configs/gtx480.json --set gpu.num_sms=2 --set loscache.enable=true";
  Out o = relgpu(base + " --rtl-check");
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_TRUE(std::regex_search(o.text, std::regex("rtl check +loscache_table: [1-9][0-9,]* cycles of 2 instances "
                                                   "compared with the C\\+\\+ model, no mismatch")))
      << o.text;
  o = relgpu(base);
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_EQ(o.text.find("rtl check"), std::string::npos) << o.text;
}

TEST(CosimCli, RtlOptionErrors) {
  Out o = relgpu("run vecops --size small --trace-rtl x.fst");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("sim.trace_rtl (--trace-rtl) needs RTL blocks"), std::string::npos) << o.text;
  o = relgpu("run vecops --size small --rtl patching_unit,bogus");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("sim.rtl: unknown block 'bogus'"), std::string::npos) << o.text;
  o = relgpu("run --help");
  EXPECT_NE(o.text.find("--rtl-check"), std::string::npos);
  EXPECT_NE(o.text.find("5 --rtl-check mismatch"), std::string::npos) << o.text;
}

}  // namespace
