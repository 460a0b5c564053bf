// `relgpu regress`: suite parsing and its errors, tolerance logic, the
// verdict on a finished run, JUnit well-formedness, the markdown report,
// --update-golden's in-place rewrite and diff; then, when the relgpu binary
// is at hand, whole suites through it (parallel runs, timeouts, exit status).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

// regress.cpp, the command line, is exercised through the binary below.
#include "app/regress.h"
#include "common/error.h"
#include "test_paths.h"

namespace fs = std::filesystem;
using namespace relgpu;
using namespace relgpu::app::regress;
using SuiteRun = relgpu::app::regress::Run;  // a test body is a testing::Test, which has Run()

namespace {

std::string parse_error(const std::string& text, const std::string& root = "/nonexistent-root") {
  try {
    parse_suite(text, "suites/s.json", root);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

Suite parse(const std::string& text, const std::string& root = "/nonexistent-root") {
  return parse_suite(text, "suites/s.json", root);
}

const Expect& find_expect(const SuiteRun& r, const std::string& key) {
  for (auto& e : r.expect)
    if (e.key == key) return e;
  throw std::runtime_error("no expectation " + key);
}

// ---------------------------------------------------------------- parsing

TEST(RegressSuite, ReadsDefaultsRunsAndNames) {
  fs::path root = fs::temp_directory_path() / ("relgpu_regress_root_" + std::to_string(getpid()));
  fs::create_directories(root / "configs");
  std::ofstream(root / "configs" / "g.json") << "{}\n";
  Suite s = parse(R"({
    "name": "t",
    "_note": "keys starting with _ are comments",
    "defaults": {"size": "small", "seed": 3, "mode": "functional", "set": {"func": {"max_warp_insn": 1000}},
                 "timeout_s": 9, "tolerances": {"*_cycle": {"rel": 0.05}, "gpu_sim_cycle": {"rel": 0.02}}},
    "runs": [
      {"workload": "bfs", "expect": {"gpu_sim_insn": 5, "gpu_sim_cycle": 100, "l2_cycle": 7}},
      {"workload": "bfs", "config": "configs/g.json", "mode": "timing", "seed": 4, "size": "default",
       "set": {"func.max_warp_insn": 2000}, "timeout_s": 2,
       "expect": {"gpu_sim_cycle": {"value": 100, "abs": 3}, "output_check": "fail"}},
      {"name": "mine", "workload": "nw"}
    ]})",
                  root.string());
  EXPECT_EQ(s.name, "t");
  ASSERT_EQ(s.runs.size(), 3u);
  const SuiteRun& a = s.runs[0];
  EXPECT_EQ(a.name, "bfs/small");
  EXPECT_EQ(a.size, "small");
  EXPECT_EQ(a.mode, "functional");
  EXPECT_EQ(a.seed.value_or(0), 3u);
  EXPECT_EQ(a.timeout_s, 9);
  ASSERT_EQ(a.set.size(), 1u);
  EXPECT_EQ(a.set[0].first, "func.max_warp_insn");  // nested objects flatten, as in config files
  // Exact key beats the pattern; the pattern covers the rest of its family;
  // instruction counts stay exact; every run expects output_check "pass".
  EXPECT_EQ(find_expect(a, "gpu_sim_cycle").rel.value_or(0), 0.02);
  EXPECT_EQ(find_expect(a, "l2_cycle").rel.value_or(0), 0.05);
  EXPECT_FALSE(find_expect(a, "gpu_sim_insn").rel.has_value());
  EXPECT_TRUE(find_expect(a, "output_check").implicit);
  EXPECT_EQ(find_expect(a, "output_check").value, "pass");

  const SuiteRun& b = s.runs[1];
  EXPECT_EQ(b.name, "bfs/default/g/timing/seed4");  // what the run itself changes
  EXPECT_EQ(b.config, (root / "configs" / "g.json").string());  // relative to the repository root
  EXPECT_EQ(b.timeout_s, 2);
  ASSERT_EQ(b.set.size(), 1u);
  EXPECT_EQ(b.set[0].second, 2000);  // the run's value overrides the default
  const Expect& c = find_expect(b, "gpu_sim_cycle");
  EXPECT_EQ(c.abs.value_or(0), 3);
  EXPECT_FALSE(c.rel.has_value());  // the run's own tolerance replaces the family's
  EXPECT_EQ(c.tol_from, "run");
  EXPECT_FALSE(find_expect(b, "output_check").implicit);
  std::vector<std::string> args = b.args();
  std::vector<std::string> want{"run", "bfs", "--size", "default", "--config", (root / "configs" / "g.json").string(),
                                "--mode", "timing", "--seed", "4", "--set", "func.max_warp_insn=2000"};
  EXPECT_EQ(args, want);
  EXPECT_EQ(s.runs[2].name, "mine");
  fs::remove_all(root);
}

TEST(RegressSuite, ErrorsNameFileLineAndKey) {
  auto has = [](const std::string& msg, std::initializer_list<const char*> parts) {
    for (auto* p : parts)
      if (msg.find(p) == std::string::npos) return ::testing::AssertionFailure() << "'" << p << "' not in: " << msg;
    return ::testing::AssertionSuccess();
  };
  EXPECT_TRUE(has(parse_error("{\"runz\": []}"), {"suites/s.json:1: ", "unknown key 'runz'", "did you mean 'runs'"}));
  EXPECT_TRUE(has(parse_error("{\n\"runs\": [\n{\"workload\": \"bfs\",\n \"expct\": {}}]}"),
                  {"suites/s.json:4: ", "runs[0].expct", "did you mean 'expect'"}));
  EXPECT_TRUE(has(parse_error(R"({"runs": [{"workload": "nosuch"}]})"), {"runs[0].workload", "unknown workload 'nosuch'"}));
  EXPECT_TRUE(has(parse_error(R"({"runs": [{"size": "small"}]})"), {"runs[0]", "missing \"workload\""}));
  EXPECT_TRUE(has(parse_error(R"({"runs": [{"workload": "bfs", "size": "huge"}]})"), {"runs[0].size", "'small' or 'default'"}));
  EXPECT_TRUE(has(parse_error(R"({"runs": [{"workload": "bfs", "seed": -1}]})"), {"runs[0].seed", "non-negative integer"}));
  EXPECT_TRUE(has(parse_error("{\"runs\": [{\"workload\": \"bfs\",\n \"set\": {\"func.max_warp_insnn\": 5}}]}"),
                  {"suites/s.json:2: runs[0].set", "unknown config key 'func.max_warp_insnn'", "func.max_warp_insn"}));
  EXPECT_TRUE(has(parse_error(R"({"runs": [{"workload": "bfs", "set": {"func.max_warp_insn": "many"}}]})"),
                  {"runs[0].set", "func.max_warp_insn", "must be of type int"}));
  EXPECT_TRUE(has(parse_error(R"({"runs": [{"workload": "bfs", "config": "configs/none.json"}]})"),
                  {"runs[0].config", "no such config file 'configs/none.json'", "repository root /nonexistent-root"}));
  EXPECT_TRUE(has(parse_error(R"({"runs": [{"workload": "bfs", "expect": {"x": {"value": 1, "rell": 0.1}}}]})"),
                  {"runs[0].expect.x.rell", "did you mean 'rel'"}));
  EXPECT_TRUE(has(parse_error(R"({"runs": [{"workload": "bfs", "expect": {"x": {"rel": 0.1}}}]})"),
                  {"runs[0].expect.x", "needs \"value\""}));
  EXPECT_TRUE(has(parse_error(R"({"runs": [{"workload": "bfs", "expect": {"x": {"value": "pass", "rel": 0.1}}}]})"),
                  {"runs[0].expect.x", "numeric"}));
  EXPECT_TRUE(has(parse_error(R"({"runs": [{"workload": "bfs", "expect": {"x": [1]}}]})"), {"runs[0].expect.x"}));
  EXPECT_TRUE(has(parse_error(R"({"defaults": {"sizes": "small"}, "runs": []})"), {"defaults.sizes", "did you mean 'size'"}));
  EXPECT_TRUE(has(parse_error(R"({"defaults": {"tolerances": {"c": {"rel": -1}}}, "runs": []})"),
                  {"defaults.tolerances.c.rel", "non-negative"}));
  EXPECT_TRUE(has(parse_error(R"({"runs": [{"workload": "bfs"}, {"workload": "bfs"}]})"),
                  {"runs[1]", "duplicate run name 'bfs/default'", "\"name\""}));
  EXPECT_TRUE(has(parse_error(R"({"runs": [{"workload": "bfs", "workload": "nw"}]})"), {"duplicate key \"workload\""}));
  EXPECT_TRUE(has(parse_error("{\"runs\": [\n  {\"workload\": \"bfs\",}]}"), {"suites/s.json:2:", "malformed JSON"}));
  EXPECT_TRUE(has(parse_error("[1]"), {"suites/s.json:1:", "JSON object"}));
}

TEST(RegressSuite, SweepExpandsTheCrossProduct) {
  Suite s = parse(R"({"defaults": {"size": "small"}, "runs": [
    {"name": "gg", "sweep": {"workload": ["bfs", "nw"], "func.max_warp_insn": [1000, 2000], "seed": [1, 2]},
     "set": {"func.stack_bytes": 4096}, "expect": {"gpu_sim_cycle": {"min": 1}}},
    {"workload": "scan"}]})");
  ASSERT_EQ(s.runs.size(), 9u);
  EXPECT_EQ(s.runs[0].name, "gg/bfs/func.max_warp_insn=1000/seed=1");
  EXPECT_EQ(s.runs[0].workload, "bfs");
  EXPECT_EQ(s.runs[1].name, "gg/bfs/func.max_warp_insn=1000/seed=2");
  EXPECT_EQ(*s.runs[1].seed, 2u);
  EXPECT_EQ(s.runs[4].workload, "nw");
  EXPECT_EQ(s.runs[7].name, "gg/nw/func.max_warp_insn=2000/seed=2");
  EXPECT_TRUE(s.runs[7].swept);
  EXPECT_EQ(s.runs[7].index, 0u);
  EXPECT_EQ(s.runs[8].index, 1u);
  EXPECT_FALSE(s.runs[8].swept);
  std::vector<std::string> args = s.runs[3].args();
  std::string joined;
  for (auto& a : args) joined += a + " ";
  EXPECT_NE(joined.find("--set func.stack_bytes=4096"), std::string::npos) << joined;
  EXPECT_NE(joined.find("--set func.max_warp_insn=2000"), std::string::npos) << joined;
  EXPECT_EQ(find_expect(s.runs[5], "gpu_sim_cycle").min, 1.0);
  // Unnamed: the workload/size name plus the swept keys.
  Suite u = parse(R"({"runs": [{"workload": "bfs", "sweep": {"size": ["small", "default"]}}]})");
  EXPECT_EQ(u.runs[1].name, "bfs/default/size=default");
  EXPECT_EQ(u.runs[1].size, "default");
  EXPECT_NE(parse_error(R"({"runs": [{"workload": "bfs", "sweep": {"func.max_warp_insnn": [1]}}]})")
                .find("unknown config key 'func.max_warp_insnn'"), std::string::npos);
  EXPECT_NE(parse_error(R"({"runs": [{"workload": "bfs", "sweep": {"seed": []}}]})").find("runs[0].sweep.seed"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"runs": [{"workload": "bfs", "sweep": {"workload": ["nw"]}}]})").find("not both"),
            std::string::npos);
}

TEST(RegressSuite, SweepRangesAndTheirErrors) {
  Suite s = parse(R"({"defaults": {"size": "small"}, "runs": [
    {"name": "chips", "workload": "vecops", "sweep": {"pv.chip_seed": {"from": 3, "to": 7}, "seed": {"from": 1, "to": 2}}}]})");
  ASSERT_EQ(s.runs.size(), 10u);
  EXPECT_EQ(s.runs[0].name, "chips/pv.chip_seed=3/seed=1");
  EXPECT_EQ(s.runs[9].name, "chips/pv.chip_seed=7/seed=2");
  EXPECT_EQ(*s.runs[9].seed, 2u);
  auto err = [&](const std::string& sweep) {
    return parse_error(R"({"runs": [{"workload": "bfs", "sweep": {)" + sweep + "}}]}");
  };
  EXPECT_NE(err(R"("seed": {"from": 5, "to": 1})").find("runs[0].sweep.seed: an empty range"), std::string::npos);
  EXPECT_NE(err(R"("seed": {"from": 1})").find("needs both \"from\" and \"to\""), std::string::npos);
  EXPECT_NE(err(R"("seed": {"from": 1, "to": "9"})").find("runs[0].sweep.seed.to: expected an integer"), std::string::npos);
  EXPECT_NE(err(R"("seed": {"from": 1, "too": 9})").find("unknown key 'too'"), std::string::npos);
  EXPECT_NE(err(R"("seed": {"from": -1, "to": 1})").find("expected a non-negative integer"), std::string::npos);
  EXPECT_NE(err(R"("pv.chip_seed": {"from": 0, "to": 2000000})").find("more than 1,000,000"), std::string::npos);
  EXPECT_NE(err(R"("pv.chip_seeds": {"from": 1, "to": 2})").find("unknown config key 'pv.chip_seeds'"), std::string::npos);
}

TEST(RegressSuite, RootIsFoundFromTheSuiteFile) {
  std::string src = testpaths::source_dir();
  EXPECT_EQ(fs::path(find_root(src + "/regress/smoke.json")), fs::path(src).lexically_normal());
}

// Every shipped suite (regress/*.json) must stay loadable.
TEST(RegressSuite, ShippedSuitesParse) {
  size_t n = 0;
  for (auto& e : fs::directory_iterator(testpaths::source_path("regress"))) {
    if (e.path().extension() != ".json") continue;
    Suite s = load_suite(e.path().string());
    EXPECT_FALSE(s.runs.empty()) << e.path();
    ++n;
  }
  EXPECT_GE(n, 4u);  // smoke, full, grguard, loscache
}

// ------------------------------------------------------ comparing stats

TEST(RegressCheck, LookupFollowsDottedPaths) {
  json stats = json::parse(R"({"gpu_sim_insn": 5, "l2": {"hits": 7, "per": [1, 2, {"x": 3}]},
                               "config": {"func.max_warp_insn": 9}})");
  ASSERT_NE(lookup(stats, "gpu_sim_insn"), nullptr);
  EXPECT_EQ(*lookup(stats, "l2.hits"), 7);
  EXPECT_EQ(*lookup(stats, "l2.per.1"), 2);
  EXPECT_EQ(*lookup(stats, "l2.per.2.x"), 3);
  EXPECT_EQ(*lookup(stats, "config.func.max_warp_insn"), 9);  // a flattened key inside an object
  EXPECT_EQ(lookup(stats, "l2.misses"), nullptr);
  EXPECT_EQ(lookup(stats, "l2.per.3"), nullptr);
  EXPECT_EQ(lookup(stats, ""), nullptr);
}

Expect num(json v, std::optional<double> rel = {}, std::optional<double> abs = {}) {
  Expect e;
  e.key = "k";
  e.value = std::move(v);
  e.rel = rel;
  e.abs = abs;
  return e;
}

TEST(RegressCheck, ToleranceLogic) {
  std::string note;
  json i100 = 100, i101 = 101, i98 = 98, u100 = uint64_t(100), f100 = 100.0, s = "pass";
  EXPECT_TRUE(meets(num(100), &i100, note));
  EXPECT_TRUE(meets(num(100), &u100, note));  // signedness does not matter
  EXPECT_TRUE(meets(num(100), &f100, note));
  EXPECT_FALSE(meets(num(100), &i101, note));
  EXPECT_EQ(note, "+1, +1%");
  EXPECT_FALSE(meets(num(100), &i98, note));
  EXPECT_EQ(note, "-2, -2%");
  EXPECT_TRUE(meets(num(100, 0.01), &i101, note));  // 1% of 100 = 1, inclusive
  EXPECT_FALSE(meets(num(100, 0.01), &i98, note));
  EXPECT_TRUE(meets(num(100, {}, 2.0), &i98, note));
  EXPECT_TRUE(meets(num(100, 0.001, 2.0), &i98, note));  // the larger allowance wins
  EXPECT_FALSE(meets(num(100, 0.001, 1.0), &i98, note));
  json big = uint64_t(10'000'000'001);
  EXPECT_FALSE(meets(num(uint64_t(10'000'000'000)), &big, note));  // exact means exact, even past 2^32
  json fa = 0.1 + 0.2;
  EXPECT_FALSE(meets(num(0.3), &fa, note));  // floats without a tolerance compare exactly
  EXPECT_TRUE(meets(num(0.3, 1e-9), &fa, note));
  EXPECT_TRUE(meets(num("pass"), &s, note));
  json f = "fail";
  EXPECT_FALSE(meets(num("pass"), &f, note));
  EXPECT_FALSE(meets(num(100), &s, note));
  EXPECT_EQ(note, "not a number");
  EXPECT_FALSE(meets(num(100), nullptr, note));
  EXPECT_EQ(note, "missing from the stats");
  Expect b;
  b.key = "ipc";
  b.min = 0.5;
  b.max = 2;
  json lo = 0.4, mid = 1.0, hi = 2.5;
  EXPECT_FALSE(meets(b, &lo, note));
  EXPECT_TRUE(meets(b, &mid, note));
  EXPECT_FALSE(meets(b, &hi, note));

  EXPECT_EQ(tolerance_text(num(1)), "exact");
  EXPECT_EQ(tolerance_text(num(1, 0.02)), "±2%");
  EXPECT_EQ(tolerance_text(num(1, 0.02, 5.0)), "±2% or ±5");
  EXPECT_EQ(tolerance_text(b), "[0.5, 2]");
}

TEST(RegressCheck, EvaluateJudgesHowTheChildEnded) {
  Suite s = parse(R"({"runs": [{"workload": "bfs", "timeout_s": 5,
      "expect": {"gpu_sim_insn": 10, "gpu_sim_cycle": {"value": 1000, "rel": 0.02}}}]})");
  const SuiteRun& r = s.runs[0];
  std::string good = R"({"gpu_sim_insn": 10, "gpu_sim_cycle": 1015, "output_check": "pass"})";
  EXPECT_EQ(evaluate(r, 0, 0, false, 1, good, "").status, Status::pass);

  Result bad = evaluate(r, 0, 0, false, 1, R"({"gpu_sim_insn": 11, "gpu_sim_cycle": 1030, "output_check": "pass"})", "");
  EXPECT_EQ(bad.status, Status::fail);
  ASSERT_EQ(bad.mismatches.size(), 2u);
  EXPECT_EQ(bad.mismatches[0].key, "gpu_sim_insn");
  EXPECT_EQ(bad.mismatches[1].tolerance, "±2%");
  EXPECT_EQ(bad.message, "gpu_sim_insn: expected 10, got 11 (exact; +1, +10%) (and 1 more)");

  Result oc = evaluate(r, 1, 0, false, 1,
                       R"({"gpu_sim_insn": 10, "gpu_sim_cycle": 1000, "output_check": "fail", "output_message": "x[3] off"})", "");
  EXPECT_EQ(oc.status, Status::fail);
  ASSERT_EQ(oc.mismatches.size(), 1u);
  EXPECT_EQ(oc.mismatches[0].key, "output_check");
  EXPECT_EQ(oc.mismatches[0].note, "x[3] off");

  Result ke = evaluate(r, 3, 0, false, 1, "", "relgpu: kernel error: misaligned access at PC 5\n");
  EXPECT_EQ(ke.status, Status::error);
  EXPECT_EQ(ke.message, "exit status 3: relgpu: kernel error: misaligned access at PC 5");
  EXPECT_EQ(evaluate(r, 0, 0, false, 1, "", "").status, Status::error);          // no stats written
  EXPECT_EQ(evaluate(r, 0, 0, false, 1, "{trunc", "").status, Status::error);    // unreadable stats
  EXPECT_EQ(evaluate(r, -1, 11, false, 1, "", "").status, Status::crash);
  Result to = evaluate(r, -1, 9, true, 5.01, "", "");
  EXPECT_EQ(to.status, Status::timeout);
  EXPECT_NE(to.message.find("timed out"), std::string::npos);

  // A run may expect its output check to fail (relgpu run then exits 1).
  Suite neg = parse(R"({"runs": [{"workload": "bfs", "expect": {"output_check": "fail"}}]})");
  EXPECT_EQ(evaluate(neg.runs[0], 1, 0, false, 1, R"({"output_check": "fail"})", "").status, Status::pass);
}

// ------------------------------------------------------------- outputs

// A small XML 1.0 well-formedness check: UTF-8, no control characters,
// balanced tags, quoted attributes without '<', '&' only in entities, one root.
std::string xml_problem(const std::string& x) {
  const auto* p = reinterpret_cast<const unsigned char*>(x.data());
  for (size_t i = 0; i < x.size();) {
    unsigned char c = p[i];
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return "control character at " + std::to_string(i);
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || i + len > x.size()) return "bad UTF-8 at " + std::to_string(i);
    for (size_t k = 1; k < len; ++k)
      if ((p[i + k] & 0xC0) != 0x80) return "bad UTF-8 at " + std::to_string(i);
    i += len;
  }
  auto entity_ok = [&](size_t i) {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
      if (x.compare(i, std::strlen(e), e) == 0) return true;
    return false;
  };
  std::vector<std::string> stack;
  int roots = 0;
  size_t i = 0;
  if (x.compare(0, 5, "<?xml") == 0) i = x.find("?>") + 2;
  while (i < x.size()) {
    if (x[i] == '&' && !entity_ok(i)) return "bare & at " + std::to_string(i);
    if (x[i] != '<') {
      ++i;
      continue;
    }
    if (x.compare(i, 2, "</") == 0) {
      size_t e = x.find('>', i);
      std::string name = x.substr(i + 2, e - i - 2);
      if (stack.empty() || stack.back() != name) return "unbalanced </" + name + ">";
      stack.pop_back();
      i = e + 1;
      continue;
    }
    size_t j = i + 1;
    while (j < x.size() && (std::isalnum(static_cast<unsigned char>(x[j])) || x[j] == '-' || x[j] == '_')) ++j;
    std::string name = x.substr(i + 1, j - i - 1);
    if (name.empty()) return "bad tag at " + std::to_string(i);
    for (;;) {
      while (j < x.size() && std::isspace(static_cast<unsigned char>(x[j]))) ++j;
      if (j >= x.size()) return "unterminated tag " + name;
      if (x[j] == '>' || x.compare(j, 2, "/>") == 0) break;
      size_t a = j;
      while (j < x.size() && (std::isalnum(static_cast<unsigned char>(x[j])) || x[j] == '_' || x[j] == '-')) ++j;
      if (j == a || x[j] != '=' || (x[j + 1] != '"' && x[j + 1] != '\'')) return "bad attribute in " + name;
      char q = x[j + 1];
      size_t e = x.find(q, j + 2);
      if (e == std::string::npos) return "unterminated attribute in " + name;
      for (size_t k = j + 2; k < e; ++k) {
        if (x[k] == '<') return "'<' in an attribute of " + name;
        if (x[k] == '&' && !entity_ok(k)) return "bare & in an attribute of " + name;
      }
      j = e + 1;
    }
    if (stack.empty()) ++roots;
    if (x[j] == '>') {
      stack.push_back(name);
      i = j + 1;
    } else {
      i = j + 2;
    }
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return std::to_string(roots) + " root elements";
  return "";
}

struct ReportFixture {
  Suite suite;
  std::vector<Result> results;
  std::vector<Outcome> outcomes;
  ReportInfo info;
  ReportFixture() {
    suite = parse(R"({"name": "a<b & \"c\"", "runs": [
        {"workload": "bfs", "expect": {"gpu_sim_insn": 10}},
        {"name": "nw <&> 'x'", "workload": "nw", "expect": {"gpu_sim_insn": 10}},
        {"workload": "vecops"}]})");
    const SuiteRun& r0 = suite.runs[0];
    results.push_back(evaluate(r0, 0, 0, false, 0.5, R"({"gpu_sim_insn": 10, "output_check": "pass"})", ""));
    results.push_back(evaluate(suite.runs[1], 0, 0, false, 1.25, R"({"gpu_sim_insn": 12, "output_check": "pass"})",
                               "stdout with <tags> & \x01 control \xff\xfe bad UTF-8 and \xc3\xa9 good"));
    results.push_back(evaluate(suite.runs[2], 3, 0, false, 0.1, "", "relgpu: kernel error: \"q\" <at> & PC 4\x1b[0m\n"));
    for (size_t i = 0; i < 3; ++i) outcomes.push_back({&suite.runs[i], &results[i]});
    info.wall_s = 2;
    info.jobs = 2;
    info.exe = "/bin/relgpu";
    info.timestamp = "2025-01-01T00:00:00";
    info.hostname = "h";
  }
};

TEST(RegressOutputs, JunitIsWellFormed) {
  ReportFixture f;
  std::string x = junit_xml(f.suite, f.outcomes, f.info);
  EXPECT_EQ(xml_problem(x), "") << x;
  EXPECT_NE(x.find("<testsuite name=\"a&lt;b &amp; &quot;c&quot;\" tests=\"3\" failures=\"1\" errors=\"1\""),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<testcase classname=\"a&lt;b &amp; &quot;c&quot;\" name=\"bfs/default\" time=\"0.500\"/>"),
            std::string::npos);
  EXPECT_NE(x.find("<failure message=\"gpu_sim_insn: expected 10, got 12 (exact; +2, +20%)\" type=\"mismatch\">"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<error message=\"exit status 3: relgpu: kernel error: &quot;q&quot; &lt;at&gt; &amp; PC 4?[0m\" type=\"error\">"),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("reproduce: /bin/relgpu run nw --size default"), std::string::npos);
  EXPECT_NE(x.find("\xc3\xa9 good"), std::string::npos);  // valid UTF-8 is kept
  // If xmllint is installed, it must agree.
  if (std::system("command -v xmllint >/dev/null 2>&1") == 0) {
    std::string path = (fs::temp_directory_path() / ("relgpu_junit_" + std::to_string(getpid()) + ".xml")).string();
    std::ofstream(path) << x;
    EXPECT_EQ(std::system(("xmllint --noout " + path).c_str()), 0);
    std::remove(path.c_str());
  }
}

TEST(RegressOutputs, XmlEscapeRepairsAnyBytes) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += char(c);
  all += "\xed\xa0\x80 \xc0\xaf \xf4\x90\x80\x80";  // a surrogate, an overlong form, past U+10FFFF
  EXPECT_EQ(xml_problem("<a>" + xml_escape(all) + "</a>"), "");
  EXPECT_EQ(xml_problem("<a b=\"" + xml_escape(all) + "\"/>"), "");
}

TEST(RegressOutputs, MarkdownReportShowsEachMismatch) {
  ReportFixture f;
  std::string m = markdown_report(f.suite, f.outcomes, f.info);
  EXPECT_NE(m.find("| bfs/default | PASS | 0.500 |"), std::string::npos) << m;
  EXPECT_NE(m.find("| nw <&> 'x' | **FAIL** | 1.250 |"), std::string::npos) << m;
  EXPECT_NE(m.find("| `gpu_sim_insn` | 10 | 12 | exact | +2, +20% |"), std::string::npos) << m;
  EXPECT_NE(m.find("### vecops/default: ERROR"), std::string::npos) << m;
  EXPECT_NE(m.find("/bin/relgpu run vecops --size default"), std::string::npos) << m;
  EXPECT_NE(m.find("1 FAIL, 1 ERROR"), std::string::npos) << m;
}

// --------------------------------------------------------- update-golden

const char* kGoldenSuite = R"({
  "name": "g",
  "golden_keys": ["gpu_sim_insn", "kernel_launches", "gpu_sim_cycle"],
  "runs": [
    {"workload": "bfs", "_note": "compact", "expect": {"gpu_sim_insn": 10, "gpu_sim_cycle": {"value": 500, "rel": 0.02}}},
    {"workload": "nw",
     "expect": {
       "gpu_sim_insn": 7,
       "ipc": {"min": 0.5}
     }},
    {"workload": "vecops"},
    {"workload": "matmul", "expect": {}},
    {"workload": "scan", "expect": {"gpu_sim_insn": 1}},
    {"workload": "spmv", "expect": {"gpu_sim_insn": 1}}
  ]
})";

TEST(RegressGolden, RewritesValuesInPlaceAndAddsGoldenKeys) {
  Suite s = parse(kGoldenSuite);
  std::vector<Result> res;
  res.push_back(evaluate(s.runs[0], 0, 0, false, 1,
                         R"({"gpu_sim_insn": 11, "kernel_launches": 2, "gpu_sim_cycle": 640, "output_check": "pass"})", ""));
  res.push_back(evaluate(s.runs[1], 0, 0, false, 1, R"({"gpu_sim_insn": 7, "kernel_launches": 3, "ipc": 0.25, "output_check": "pass"})", ""));
  res.push_back(evaluate(s.runs[2], 0, 0, false, 1, R"({"gpu_sim_insn": 5, "kernel_launches": 1, "output_check": "pass"})", ""));
  res.push_back(evaluate(s.runs[3], 0, 0, false, 1, R"({"gpu_sim_insn": 6, "kernel_launches": 1, "output_check": "pass"})", ""));
  res.push_back(evaluate(s.runs[4], 1, 0, false, 1, R"({"gpu_sim_insn": 9, "output_check": "fail"})", ""));  // wrong answer
  res.push_back(evaluate(s.runs[5], -1, 9, true, 9, "", ""));                                                 // timed out
  std::vector<Outcome> o;
  for (size_t i = 0; i < res.size(); ++i) o.push_back({&s.runs[i], &res[i]});

  GoldenUpdate u = update_golden(s, o);
  const char* want = R"({
  "name": "g",
  "golden_keys": ["gpu_sim_insn", "kernel_launches", "gpu_sim_cycle"],
  "runs": [
    {"workload": "bfs", "_note": "compact", "expect": {"gpu_sim_insn": 11, "gpu_sim_cycle": {"value": 640, "rel": 0.02}, "kernel_launches": 2}},
    {"workload": "nw",
     "expect": {
       "gpu_sim_insn": 7,
       "ipc": {"min": 0.5},
       "kernel_launches": 3
     }},
    {"workload": "vecops", "expect": {"gpu_sim_insn": 5, "kernel_launches": 1}},
    {"workload": "matmul", "expect": {"gpu_sim_insn": 6, "kernel_launches": 1}},
    {"workload": "scan", "expect": {"gpu_sim_insn": 1}},
    {"workload": "spmv", "expect": {"gpu_sim_insn": 1}}
  ]
})";
  EXPECT_EQ(u.text, want);
  EXPECT_EQ(u.changes.size(), 8u);
  EXPECT_EQ(u.changes[0], "bfs/default: gpu_sim_insn 10 -> 11");
  ASSERT_EQ(u.skipped.size(), 3u);
  EXPECT_NE(u.skipped[0].find("nw/default: ipc = 0.25 is out of its bounds >= 0.5"), std::string::npos) << u.skipped[0];
  EXPECT_NE(u.skipped[1].find("scan/default: output check \"fail\""), std::string::npos) << u.skipped[1];
  EXPECT_NE(u.skipped[2].find("spmv/default: TIMEOUT"), std::string::npos) << u.skipped[2];

  // The rewritten suite reads back with the new values, and the same runs
  // now pass (apart from those that could not be updated).
  Suite s2 = parse(u.text);
  EXPECT_EQ(find_expect(s2.runs[0], "gpu_sim_cycle").value, 640);
  EXPECT_EQ(find_expect(s2.runs[0], "gpu_sim_cycle").rel.value_or(0), 0.02);
  EXPECT_TRUE(check(s2.runs[0], res[0].stats).empty());
  EXPECT_TRUE(check(s2.runs[2], res[2].stats).empty());

  // A second update changes nothing.
  std::vector<Result> res2 = res;
  for (size_t i = 0; i < 4; ++i)
    if (!res2[i].stats.is_null()) res2[i] = evaluate(s2.runs[i], 0, 0, false, 1, res[i].stats.dump(), "");
  std::vector<Outcome> o2;
  for (size_t i = 0; i < 4; ++i) o2.push_back({&s2.runs[i], &res2[i]});
  EXPECT_EQ(update_golden(s2, o2).text, u.text);
}

TEST(RegressGolden, UnifiedDiff) {
  std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
  std::string b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n";
  std::string d = unified_diff(a, b, "a.json", "b.json");
  EXPECT_EQ(d,
            "--- a.json\n+++ b.json\n"
            "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
            "@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+13\n");
  EXPECT_EQ(unified_diff(a, a, "x", "y"), "");
  // Changes closer than 2x3 lines share a hunk.
  std::string c = "1\nX\n3\n4\n5\n6\nY\n8\n9\n10\n11\n12\n";
  EXPECT_EQ(unified_diff(a, c, "a", "c"), "--- a\n+++ c\n@@ -1,10 +1,10 @@\n 1\n-2\n+X\n 3\n 4\n 5\n 6\n-7\n+Y\n 8\n 9\n 10\n");
}

// ------------------------------------------------- through the relgpu binary

// The relgpu binary: $RELGPU_BIN, else the one built beside this test.
std::string relgpu_bin() {
  if (const char* b = std::getenv("RELGPU_BIN")) return b;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  fs::path p = self.parent_path() / "relgpu";
  return !ec && fs::exists(p) ? p.string() : "";
}

struct Shell {
  int status;
  std::string out;
};
Shell sh(const std::string& cmd) {
  std::string out = (fs::temp_directory_path() / ("relgpu_regress_out_" + std::to_string(getpid()))).string();
  int st = std::system((cmd + " >" + out + " 2>&1").c_str());
  std::ifstream f(out);
  std::stringstream ss;
  ss << f.rdbuf();
  std::remove(out.c_str());
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, ss.str()};
}
std::string slurp_file(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class RegressBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = relgpu_bin();
    if (bin_.empty()) GTEST_SKIP() << "no relgpu binary beside the test and RELGPU_BIN unset";
    dir_ = fs::temp_directory_path() / ("relgpu_regress_e2e_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  Shell regress(const std::string& args) { return sh("'" + bin_ + "' regress " + args); }
  std::string bin_;
  fs::path dir_;
};

TEST_F(RegressBinary, GoldenThenPassThenFailWithJunit) {
  fs::path suite = dir_ / "s.json";
  std::ofstream(suite) << R"({
  "name": "e2e",
  "defaults": {"size": "small", "mode": "functional", "timeout_s": 120},
  "golden_keys": ["gpu_sim_insn", "gpu_warp_insn", "kernel_launches", "output_check"],
  "runs": [
    {"workload": "vecops", "expect": {}},
    {"workload": "reduce", "expect": {}},
    {"workload": "matmul", "seed": 2, "expect": {}}
  ]
})";
  // Without golden values every run only has to pass its output check.
  Shell g = regress(suite.string() + " -j 2 --update-golden");
  ASSERT_EQ(g.status, 0) << g.out;
  EXPECT_NE(g.out.find("+    {\"workload\": \"vecops\", \"expect\": {\"gpu_sim_insn\": "), std::string::npos) << g.out;
  EXPECT_NE(g.out.find("-    {\"workload\": \"vecops\", \"expect\": {}},"), std::string::npos) << g.out;
  Suite s = load_suite(suite.string());
  ASSERT_EQ(s.runs.size(), 3u);
  EXPECT_EQ(s.runs[0].expect.size(), 4u);
  EXPECT_EQ(s.runs[2].name, "matmul/small/seed2");

  Shell p = regress(suite.string() + " --junit " + (dir_ / "j.xml").string() + " --report " + (dir_ / "r.md").string());
  EXPECT_EQ(p.status, 0) << p.out;
  EXPECT_NE(p.out.find("all 3 runs passed"), std::string::npos) << p.out;
  EXPECT_EQ(xml_problem(slurp_file(dir_ / "j.xml")), "");

  // Break one golden value: the suite fails, naming the key.
  std::string text = slurp_file(suite);
  auto at = text.find("\"gpu_warp_insn\": ", text.find("reduce"));
  ASSERT_NE(at, std::string::npos);
  text.insert(at + 17, "1");
  std::ofstream(suite) << text;
  Shell f = regress(suite.string() + " --junit " + (dir_ / "j.xml").string() + " --report " + (dir_ / "r.md").string());
  EXPECT_EQ(f.status, 1) << f.out;
  EXPECT_NE(f.out.find("FAIL    reduce/small"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("gpu_warp_insn: expected 1"), std::string::npos) << f.out;
  std::string j = slurp_file(dir_ / "j.xml");
  EXPECT_EQ(xml_problem(j), "");
  EXPECT_NE(j.find("tests=\"3\" failures=\"1\" errors=\"0\""), std::string::npos) << j;
  EXPECT_NE(slurp_file(dir_ / "r.md").find("| `gpu_warp_insn` | 1"), std::string::npos);

  // --filter runs only the matching runs.
  Shell one = regress(suite.string() + " --filter vecops");
  EXPECT_EQ(one.status, 0) << one.out;
  EXPECT_NE(one.out.find("1 run, 1 at a time"), std::string::npos) << one.out;
}

TEST_F(RegressBinary, TimeoutsAndErrorsFailTheRunNotTheRunner) {
  fs::path suite = dir_ / "t.json";
  std::ofstream(suite) << R"({"runs": [
    {"name": "slow", "workload": "bfs", "size": "default", "mode": "timing", "timeout_s": 0.5},
    {"name": "runaway", "workload": "vecops", "size": "small", "mode": "functional", "set": {"func.max_warp_insn": 1}},
    {"name": "fine", "workload": "vecops", "size": "small", "mode": "functional"}
  ]})";
  Shell r = regress(suite.string() + " -j 3 --junit " + (dir_ / "j.xml").string());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("TIMEOUT slow"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ERROR   runaway"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exit status 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PASS    fine"), std::string::npos) << r.out;
  std::string j = slurp_file(dir_ / "j.xml");
  EXPECT_EQ(xml_problem(j), "");
  EXPECT_NE(j.find("tests=\"3\" failures=\"0\" errors=\"2\""), std::string::npos) << j;
  EXPECT_NE(j.find("type=\"timeout\""), std::string::npos) << j;
}

TEST_F(RegressBinary, BadSuiteExitsTwoNamingFileAndKey) {
  fs::path suite = dir_ / "bad.json";
  std::ofstream(suite) << "{\"runs\": [\n  {\"workload\": \"bfs\", \"sise\": \"small\"}]}\n";
  Shell r = regress(suite.string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find(suite.string() + ":2: runs[0].sise: unknown key 'sise' (did you mean 'size'?)"), std::string::npos)
      << r.out;
  EXPECT_EQ(regress(suite.string() + " --jobs 0").status, 2);
  EXPECT_EQ(regress("").status, 2);
  EXPECT_EQ(regress("--help").status, 0);
}

}  // namespace
