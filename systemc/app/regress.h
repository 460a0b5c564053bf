// `relgpu regress SUITE.json`: regression suites (README, "Regressions").
//
// A suite is a JSON file listing runs of `relgpu run` with expected stats.
// The pieces, each testable on its own (systemc/tests/app_regress_test.cpp):
//   regress_suite.cpp   reading and checking a suite; comparing stats with
//                       the expectations; --update-golden's in-place rewrite
//                       and its diff
//   regress_report.cpp  JUnit XML and the markdown report
//   regress_runner.cpp  the process pool: one child process per run, -j N,
//                       timeouts, the progress line
//   regress.cpp         the command line
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "common/config.h"

namespace relgpu::app::regress {

using json = config::json;

// One expected stat. `key` is a dotted path into the stats JSON
// ("gpu_sim_insn", "class_counts.INT", "launches.0.gpu_sim_insn").
struct Expect {
  std::string key;
  json value;                        // null when only bounds are given
  std::optional<double> rel, abs;    // allowed deviation: max(abs, rel * |value|)
  std::optional<double> min, max;    // bounds on the value got
  std::string tol_from;              // where rel/abs came from: "" (none), "run", or a defaults.tolerances pattern
  bool implicit = false;             // the output_check "pass" every run expects unless it says otherwise
};

struct Run {
  size_t index = 0;                  // its item in the suite's "runs"
  bool swept = false;                // one of the runs a "sweep" expands to
  std::string name, workload, size;
  std::string config;                // absolute path, or empty for the built-in defaults
  std::string mode;                  // empty: the binary's default mode
  std::optional<uint64_t> seed;
  std::vector<std::pair<std::string, json>> set;  // config overrides, flattened, defaults first
  double timeout_s = 0;
  std::vector<Expect> expect;
  std::string config_hash;           // campaigns: its planned effective config (relgpu run --config-hash)
  // `relgpu` arguments that reproduce the run (without --stats/--quiet).
  std::vector<std::string> args() const;
};

struct Suite {
  std::string path;                  // as given on the command line
  std::string root;                  // repository root: relative config paths start here
  std::string name, description;
  std::string text;                  // the file's text, for --update-golden
  std::vector<std::string> golden_keys;
  std::vector<Run> runs;
};

// Ctrl-C or SIGTERM stopped the runs; `relgpu regress` exits 130.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The built-in per-run timeout when neither the suite nor --timeout sets one.
constexpr double kDefaultTimeoutS = 1800;

// Reads and checks a suite. Every error is an InputError naming the file,
// the line and the key ("regress/smoke.json:12: runs[3].expct: unknown key").
Suite load_suite(const std::string& path);
Suite parse_suite(const std::string& text, const std::string& path, const std::string& root);
// The repository root for a suite file: the nearest ancestor directory that
// holds `.git`, or both `configs/` and `regress/`; else the suite's directory.
std::string find_root(const std::string& suite_path);

// The value at a dotted path, or nullptr. At each level the longest run of
// segments that is a key wins, so "config.func.max_warp_insn" finds the
// flattened key "func.max_warp_insn" inside "config"; numbers index arrays.
const json* lookup(const json& stats, const std::string& path);

struct Mismatch {
  std::string key;
  json expected;                     // the value (or null for bounds only)
  json got;                          // null when the key is missing
  std::string tolerance;             // "exact", "±2%", "[1, 5]", ...
  std::string note;                  // "missing from the stats", the deviation, ...
};
std::string tolerance_text(const Expect& e);
// Whether `got` meets `e`; on failure `note` says how far off it is.
bool meets(const Expect& e, const json* got, std::string& note);
std::vector<Mismatch> check(const Run& r, const json& stats);

enum class Status { pass, fail, error, timeout, crash };
const char* status_name(Status s);   // "PASS", "FAIL", ...

struct Result {
  Status status = Status::error;
  double wall_s = 0;
  int exit_code = -1;                // -1 when killed by a signal
  int signal = 0;
  std::vector<Mismatch> mismatches;
  std::string message;               // one line: why it failed
  std::string log;                   // the child's stdout+stderr (tail)
  json stats;                        // null when none was written
};

// Judges one finished child from how it ended, its stats file text (empty
// when it wrote none) and its output. Pure, so tests drive it directly.
// With `keep`, Result::stats holds only these top-level keys and those the
// expectations reach: a campaign stores the stats text itself and need not
// build a document of several hundred KB for every run.
Result evaluate(const Run& r, int exit_code, int signal, bool timed_out, double wall_s,
                const std::string& stats_text, const std::string& log,
                const std::vector<std::string>* keep = nullptr);

// ---- the process pool (regress_runner.cpp)
struct RunnerOptions {
  std::string exe = "/proc/self/exe";  // the relgpu binary the children run
  unsigned jobs = 1;
  std::optional<double> timeout_s;     // overrides the suite's per-run timeouts
  std::string keep_dir;                // keep each run's stats and log here
  std::string scratch_dir;             // else their files go here (and are reused); empty: a temporary directory
  std::vector<std::string> run_args;   // added to every run's command line (campaigns: --stats-compact ...)
  bool tty = false;                    // an updating progress line instead of one line per run
  std::ostream* out = nullptr;         // progress; nullptr: silent
};
// How a child ended: what evaluate() judges.
struct Ended {
  int exit_code = -1;                // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  double wall_s = 0;
  std::string stats, log;            // the stats file's text (empty: none) and the output
};
// What the pool reports as it goes: `relgpu regress` prints progress from
// it; `relgpu campaign` also writes each result to its store at once.
struct PoolEvents {
  virtual ~PoolEvents() = default;
  virtual void started(size_t k) {}
  virtual void finished(size_t k, const Ended& e) = 0;
  // At each wake-up (at least every 100 ms): the runs in flight, name and seconds.
  virtual void tick(const std::vector<std::pair<std::string, double>>& running) {}
};
// Runs each of `runs` as a child process, at most o.jobs at once (o.tty and
// o.out are not used). Children run in their own process group and die with
// the pool, even when it is killed with SIGKILL. A finished run's slot is
// filled again before its event, so the CPUs stay busy while results are
// judged and written. Ctrl-C or SIGTERM kills the children and throws
// Interrupted; an exception from an event kills them and propagates.
void run_pool(const std::vector<const Run*>& runs, const RunnerOptions& o, PoolEvents& ev);
// Runs `selected` (indices into s.runs) through run_pool with regress's
// progress output. Results come back in the order of `selected`.
std::vector<Result> execute(const Suite& s, const std::vector<size_t>& selected, const RunnerOptions& o);
unsigned default_jobs();
// `a` quoted for a POSIX shell when it needs to be.
std::string shell_quote(const std::string& a);
// Shell-quoted command line that reproduces a run.
std::string reproduce(const Run& r, const std::string& exe_display);

// ---- outputs (regress_report.cpp)
struct Outcome {                       // one run with its result, for the reports
  const Run* run;
  const Result* result;
};
struct ReportInfo {
  double wall_s = 0;
  unsigned jobs = 1;
  std::string exe;                     // the binary, for the reproduce lines
  std::string timestamp;               // ISO 8601, local time
  std::string hostname;
};
std::string xml_escape(const std::string& s);  // also makes the text valid UTF-8 without control characters
std::string junit_xml(const Suite& s, const std::vector<Outcome>& o, const ReportInfo& info);
std::string markdown_report(const Suite& s, const std::vector<Outcome>& o, const ReportInfo& info);
// "gpu_sim_insn: expected 123, got 124 (exact; +1, +0.81%)"
std::string mismatch_line(const Mismatch& m);

// ---- --update-golden (regress_suite.cpp)
struct GoldenUpdate {
  std::string text;                    // the new suite text
  std::vector<std::string> changes;    // "bfs/small: gpu_sim_insn 1 -> 2"
  std::vector<std::string> skipped;    // "nw/small: timed out; kept its expectations"
};
// Rewrites the expected values of the given runs to what they got, editing
// the text in place (only the values change: formatting, key order, comments
// and tolerances stay), and adds the suite's golden_keys that a run lacks and its stats have.
GoldenUpdate update_golden(const Suite& s, const std::vector<Outcome>& o);
// A unified diff (3 lines of context) between two texts.
std::string unified_diff(const std::string& a, const std::string& b, const std::string& a_name,
                         const std::string& b_name);

}  // namespace relgpu::app::regress
