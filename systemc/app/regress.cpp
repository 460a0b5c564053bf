// `relgpu regress SUITE.json`: run a regression suite (see app/regress.h).
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>

#include "app/args.h"
#include "app/regress.h"

namespace relgpu::app {

static const char* kRegressHelp = R"(usage: relgpu regress SUITE.json [options]

Runs every run of a regression suite, each in its own relgpu process, and
compares its stats with the suite's expectations. Exit status: 0 if every run
passes, 1 if any fails (or, with --update-golden, cannot be updated), 2 if the
suite or an option is malformed, 130 if interrupted.

options:
  -j, --jobs N        runs at once (default: the number of CPUs)
  --junit FILE        write JUnit XML: one testsuite, one testcase per run
  --report FILE       write a markdown report: every run with its status and wall
                      time; for each failure the mismatched stats (expected, got,
                      tolerance), the command that reproduces it and its output
  --update-golden     rewrite the expected values in the suite file to what the runs
                      got (in place: layout, tolerances and comments stay), add the
                      suite's golden_keys a run lacks, and print the diff. Runs whose
                      output check fails, or that do not finish, keep their values.
  --filter REGEX      only the runs whose name matches REGEX (a substring is enough)
  --timeout SECONDS   per-run time limit, overriding the suite's timeout_s
  --keep DIR          keep each run's stats JSON and output in DIR
  --bin FILE          the relgpu binary the runs use (default: this one)
  --list              print each run's name and command line; run nothing
  -h, --help          this text

A suite (README.md, "Regressions", has the whole format):
  {"name": "smoke",
   "defaults": {"size": "small", "mode": "functional", "timeout_s": 60,
                "tolerances": {"gpu_sim_cycle": {"rel": 0.02}}},
   "golden_keys": ["gpu_sim_insn", "kernel_launches"],
   "runs": [{"workload": "bfs", "expect": {"gpu_sim_insn": 244585, "output_check": "pass"}},
            {"workload": "nw", "config": "configs/gtx480.json", "set": {"func.max_warp_insn": 1000000},
             "expect": {"gpu_sim_cycle": {"value": 123456, "rel": 0.05}}}]}
Relative config paths start at the repository root (found from the suite file).
)";

static std::string now_iso() {
  std::time_t t = std::time(nullptr);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", std::localtime(&t));
  return b;
}

static void write_text(const std::string& path, const std::string& text, const char* what) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot write " + what);
  f << text;
  if (!f.flush()) throw InputError(path + ": error while writing " + what);
}

int cmd_regress(Args& a) {
  using namespace regress;
  std::string suite_path, junit, report, filter, keep, bin;
  bool update = false, list = false;
  std::optional<unsigned> jobs;
  std::optional<double> timeout;
  while (!a.done()) {
    std::string opt = a.next_opt(), arg = a.arg();
    auto v = [&] { return a.optval(opt); };
    if (opt == "-h" || opt == "--help") {
      std::cout << kRegressHelp;
      return 0;
    } else if (opt == "-j" || opt == "--jobs") {
      uint64_t n = parse_u64(v(), opt);
      if (n == 0 || n > 1024) throw InputError("regress: " + opt + " must be between 1 and 1024");
      jobs = unsigned(n);
    } else if (opt.rfind("-j", 0) == 0 && opt.size() > 2 && !a.opt_inline()) {
      uint64_t n = parse_u64(opt.substr(2), "-j");
      if (n == 0 || n > 1024) throw InputError("regress: -j must be between 1 and 1024");
      jobs = unsigned(n);
    } else if (opt == "--junit") junit = v();
    else if (opt == "--report") report = v();
    else if (opt == "--update-golden") update = true;
    else if (opt == "--filter") filter = v();
    else if (opt == "--keep") keep = v();
    else if (opt == "--bin") bin = v();
    else if (opt == "--list") list = true;
    else if (opt == "--timeout") {
      std::string t = v();
      char* end = nullptr;
      double d = std::strtod(t.c_str(), &end);
      if (t.empty() || *end || !(d > 0)) throw InputError("regress: --timeout: expected a positive number of seconds, got '" + t + "'");
      timeout = d;
    } else if (opt.rfind("-", 0) == 0) a.unknown(arg);
    else if (suite_path.empty()) suite_path = arg;
    else throw InputError("regress: one suite at a time (got '" + suite_path + "' and '" + arg + "')");
  }
  if (suite_path.empty()) throw InputError("regress: missing SUITE.json (see `relgpu regress --help`)");
  Suite suite = load_suite(suite_path);

  std::vector<size_t> selected;
  std::regex re;
  try {
    re = std::regex(filter.empty() ? std::string(".") : filter);
  } catch (const std::regex_error& e) {
    throw InputError("regress: --filter '" + filter + "': bad regular expression: " + e.what());
  }
  for (size_t i = 0; i < suite.runs.size(); ++i)
    if (filter.empty() || std::regex_search(suite.runs[i].name, re)) selected.push_back(i);
  if (selected.empty())
    throw InputError(suite_path + ": " + (suite.runs.empty() ? "the suite has no runs" : "no run matches --filter '" + filter + "'"));

  RunnerOptions o;
  std::string exe_display;
  if (!bin.empty()) {
    if (access(bin.c_str(), X_OK) != 0) throw InputError("regress: --bin " + bin + ": not an executable file");
    o.exe = std::filesystem::absolute(bin).string();
    exe_display = o.exe;
  } else {
    std::error_code ec;
    exe_display = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) exe_display = "relgpu";
  }
  if (list) {
    for (size_t i : selected) std::cout << suite.runs[i].name << "\n    " << reproduce(suite.runs[i], exe_display) << "\n";
    return 0;
  }
  o.jobs = std::min<unsigned>(jobs.value_or(default_jobs()), unsigned(selected.size()));
  o.timeout_s = timeout;
  o.keep_dir = keep;
  const char* term = std::getenv("TERM");
  o.tty = isatty(STDOUT_FILENO) && !(term && std::string(term) == "dumb");
  o.out = &std::cout;

  ReportInfo info;
  info.jobs = o.jobs;
  info.exe = exe_display;
  info.timestamp = now_iso();
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) info.hostname = host;

  std::cout << "relgpu regress: " << suite.name << " (" << suite_path << "): " << selected.size() << " run"
            << (selected.size() == 1 ? "" : "s") << ", " << o.jobs << " at a time" << std::endl;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<Result> results;
  try {
    results = execute(suite, selected, o);
  } catch (const Interrupted& e) {
    std::cerr << "relgpu regress: " << e.what() << "\n";
    return 130;
  }
  info.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<Outcome> outcomes;
  size_t passed = 0;
  for (size_t k = 0; k < selected.size(); ++k) {
    outcomes.push_back({&suite.runs[selected[k]], &results[k]});
    passed += results[k].status == Status::pass;
  }
  if (!junit.empty()) write_text(junit, junit_xml(suite, outcomes, info), "JUnit XML");
  if (!report.empty()) write_text(report, markdown_report(suite, outcomes, info), "report");

  char wall[32];
  std::snprintf(wall, sizeof wall, "%.1f", info.wall_s);
  if (passed == selected.size()) {
    std::cout << suite.name << ": all " << selected.size() << " runs passed in " << wall << " s\n";
  } else {
    std::cout << suite.name << ": " << selected.size() - passed << " of " << selected.size() << " runs not passed ("
              << wall << " s):";
    for (auto& oc : outcomes)
      if (oc.result->status != Status::pass) std::cout << " " << oc.run->name << " (" << status_name(oc.result->status) << ")";
    std::cout << "\n";
  }
  if (!junit.empty()) std::cout << "JUnit XML: " << junit << "\n";
  if (!report.empty()) std::cout << "report: " << report << "\n";

  if (!update) return passed == selected.size() ? 0 : 1;

  GoldenUpdate u = update_golden(suite, outcomes);
  if (u.text != suite.text) {
    // Write beside the file and rename, so an interrupted write never
    // leaves half a suite.
    std::string tmp = suite_path + ".tmp";
    write_text(tmp, u.text, "suite");
    if (std::rename(tmp.c_str(), suite_path.c_str()) != 0)
      throw InputError(suite_path + ": cannot replace the suite file: " + std::strerror(errno));
    std::cout << "\n" << unified_diff(suite.text, u.text, suite_path + " (before)", suite_path + " (after)") << "\n";
    std::cout << "--update-golden: " << u.changes.size() << " expected value" << (u.changes.size() == 1 ? "" : "s")
              << " changed or added in " << suite_path << "\n";
  } else {
    std::cout << "--update-golden: every expected value already matches; " << suite_path << " unchanged\n";
  }
  for (auto& s : u.skipped) std::cout << "  not updated: " << s << "\n";
  return u.skipped.empty() ? 0 : 1;
}

}  // namespace relgpu::app
