// `relgpu campaign`: many runs, resumable, into a SQLite store (README,
// "Campaigns").
//
// A campaign is a regress suite (with its sweeps) whose results are kept:
// every run of the spec becomes one row of the store, identified by a hash
// of (workload, size, seed, mode, effective config), so running the same
// command again resumes, and a changed config is a new run. The pieces:
//   campaign_plan.cpp     the spec's runs with their effective config and
//                         identity; a finished run as a Record
//   campaign_store.cpp    the store: schema, one transaction per result
//   campaign_progress.cpp the progress line (terminal) or lines (log)
//   campaign_drift.cpp    why runs stored under the same names run again
//   campaign_local.cpp    the local backend: regress's process pool
//   campaign_slurm.cpp    the Slurm backend: job arrays, a spool directory
//                         of per-run result files, the collector
//   campaign.cpp          the command line
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/args.h"
#include "app/regress.h"
#include "app/sqlite.h"

namespace relgpu::app::campaign {

using json = config::json;

// ---- planning (campaign_plan.cpp)

// One run of the spec with its identity.
struct Planned {
  const regress::Run* run = nullptr;
  std::string key;          // identity: hash of workload, size, seed, mode and config
  std::string config_hash;  // hash of the effective config's JSON text
  std::string config;       // the effective config, JSON text (keys sorted)
  std::string mode;         // sim.mode of the effective config
  uint64_t seed = 1;
};

// Computes every run's effective config exactly as `relgpu run` will, and
// its identity, and sets each run's config_hash (so the run itself refuses
// to run under another config). Two runs of one spec with the same identity
// are an error naming both.
std::vector<Planned> plan(regress::Suite& s);
std::string identity(const std::string& workload, const std::string& size, uint64_t seed, const std::string& mode,
                     const std::string& config_text);

// What a finished run leaves: written to the store at once (local), or to a
// spool file that the collector merges (Slurm).
struct Record {
  std::string status;           // "done" (it wrote stats) or "failed"
  std::string verdict;          // done runs: "pass" (met its expectations) or "fail"
  std::optional<int64_t> exit_code, signal;
  std::string message;          // failed: why; done with verdict fail: the first mismatch
  std::string log;              // failed: the tail of the run's output
  std::string stats;            // done: the stats file's text, stored as it is
  double wall_s = 0;            // the child process's lifetime
  std::string host, revision, job, started_at, finished_at;
};
// Judges how a run's process ended. The stats are parsed only when the run
// has expectations beyond its output check (then only the keys they reach):
// they are stored as text, and the run itself checked its config
// (--config-hash). The store checks that a done record's text is JSON.
Record make_record(const regress::Run& run, const regress::Ended& e, const std::string& started_at,
                   const std::string& job);
json record_json(const Record& r);
// `where` names the file in errors.
Record record_from_json(const json& j, const std::string& where);

std::string now_utc();        // "2026-01-31T12:00:00Z"
std::string host_name();
const char* revision();       // relgpu's git revision (generated at build time)

// Serialised runs for the Slurm spool (the worker has no spec).
json run_json(const regress::Run& r);
regress::Run run_from_json(const json& j, const std::string& where);

// ---- the store (campaign_store.cpp)

struct Counts {
  int64_t total = 0;            // runs in the campaign's current spec
  int64_t queued = 0, submitted = 0, running = 0, done = 0, failed = 0;
  int64_t unmet = 0;            // done, but not as expected (verdict fail)
  int64_t stale = 0;            // kept from an earlier version of the spec
};

struct Todo {
  int64_t id;
  std::string key;
};

struct Submission {
  int64_t id;
  std::string campaign, job_id, spool;
  int64_t runs = 0, tasks = 0;
};

class Store {
 public:
  // Opens the store, creating it (WAL mode, the schema) when `create`.
  // `readonly` opens an existing store for status and dry runs.
  Store(const std::string& path, bool create, bool readonly = false);
  const std::string& path() const { return db_.path(); }
  sql::Db& db() { return db_; }

  // One transaction: records the campaign, adds the spec's runs (a run
  // already in the store keeps its status and result), flags which rows the
  // current spec holds, and puts runs a dead process left 'running' back in
  // the queue (the caller holds the lock, so none is alive). With
  // `retry_failed`, failed runs are queued again.
  void sync(const std::string& campaign, const std::string& spec, const std::vector<Planned>& p, bool retry_failed);
  // The current runs still to do, in spec order.
  std::vector<Todo> todo(const std::string& campaign);
  void mark_running(int64_t id, const std::string& started_at, const std::string& job);
  // One transaction per result. A run already done keeps its first result,
  // so a result merged twice is stored once. Returns whether it was stored.
  bool finish(int64_t id, const std::string& key, const Record& r);
  void requeue(const std::vector<int64_t>& ids, const std::string& message);
  Counts counts(const std::string& campaign);
  std::vector<std::string> campaigns();
  // identity -> status of the campaign's runs (for dry runs, which change nothing).
  std::map<std::string, std::string> statuses(const std::string& campaign);
  // run name -> effective config JSON of the campaign's done runs, current or
  // not; the latest where a name was done more than once.
  std::map<std::string, std::string> done_configs(const std::string& campaign);

  // Slurm: a submission takes its runs out of the queue until its job
  // ends. Its directory is SPOOL_ROOT/sub-<id>.
  Submission add_submission(const std::string& campaign, const std::string& spool_root,
                            const std::vector<int64_t>& ids, int64_t tasks);
  void set_job(int64_t submission, const std::string& job_id);
  std::vector<Submission> active_submissions(const std::string& campaign = "");
  // The job is gone: its runs without a result go back to the queue.
  // Returns how many did.
  int64_t close_submission(int64_t submission, const std::string& message);

 private:
  sql::Db db_;
};

// An exclusive lock on the store for the process that runs or collects a
// campaign (flock on STORE.lock), so two never run the same runs. Throws an
// InputError naming the holder when it is taken.
class Lock {
 public:
  explicit Lock(const std::string& store_path);
  ~Lock();
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  int fd_ = -1;
};

// ---- drift (campaign_drift.cpp)

// Runs still to do that the store holds done under the same name with another
// config: a config key added to relgpu since (every run's identity changes)
// or a spec's `set` edited. Counts, per key, the runs in which it differs.
struct Drift {
  int64_t runs = 0;
  std::map<std::string, int64_t> added, removed, changed;  // key -> runs
};
// The runs of `p` that `statuses` (identity -> status) leaves to do: queued,
// left running by a dead process, or failed with `retry_failed`.
std::vector<const Planned*> runs_to_do(const std::vector<Planned>& p,
                                       const std::map<std::string, std::string>& statuses, bool retry_failed);
// `stored`: run name -> effective config JSON of the done runs (Store::done_configs).
Drift drift(const std::vector<const Planned*>& todo, const std::map<std::string, std::string>& stored);
// A few lines for the user ("" with no drift), each starting with `prefix`.
std::string describe(const Drift& d, const std::string& store_path, const std::string& campaign,
                     const std::string& prefix);

// ---- progress (campaign_progress.cpp)

// "done 120  failed 2  running 2  of 200  1.8 runs/s  ETA 0:00:38": one
// updating line on a terminal; in a log, a line every `every_s` seconds
// while something changes, and one line per failed run.
class Progress {
 public:
  Progress(std::ostream* out, bool tty, const Counts& start, double every_s = 10);
  void finished(const std::string& name, const Record& r);
  void set_running(int64_t n) { running_ = n; }
  // The counts from the store (Slurm), replacing what finished() counted.
  void set_counts(const Counts& c);
  void tick();
  void clear();
  std::string line() const;
  const Counts& counts() const { return c_; }

 private:
  void draw();
  std::ostream* out_;
  bool tty_;
  Counts c_;
  int64_t start_finished_ = 0, running_ = 0;
  double every_s_;
  bool drawn_ = false, changed_ = false;
  double t0_, last_draw_ = -1, last_print_;
};

// ---- backends

struct Options {
  std::string spec_path, store_path, backend = "local";
  unsigned jobs = 1;
  std::optional<double> timeout_s;
  std::string exe;              // the relgpu binary the runs use
  bool retry_failed = false, dry_run = false, wait = true;
  bool launch_detail = false;   // keep each launch's "detail" in the stored stats
  bool tty = false;
  std::ostream* out = nullptr;
  // Slurm
  std::string spool, partition, time = "04:00:00", mem = "2G", account;
  int64_t chunk = 10, cpus_per_task = 1;
  double poll_s = 2;            // how often the waiting submitter looks at the spool
  std::string command;          // the command line as given, for the resume hint
};

// What campaigns add to each run's command line: stats on one line, stored
// as written; without per-launch detail unless asked for.
std::vector<std::string> run_args(bool launch_detail);

// The closing line of `campaign run`; returns its exit status: 0 when every
// run of the spec is done and met its expectations, else 1.
int summary(Store& store, const std::string& campaign, const Options& o, double wall_s);

// Where a local campaign's runs leave their stats and output while they
// run: /dev/shm/relgpu-campaign-<hash of the store's path>, or STORE.tmp.
std::string scratch_dir(const std::string& store_path);

// campaign_local.cpp: runs the queued runs with -j N; each result is one
// transaction. Returns the exit status (0 all done as expected, 1 not,
// 130 interrupted, with the command that resumes).
int run_local(const regress::Suite& s, const std::vector<Planned>& p, Store& store, const Options& o);

// campaign_slurm.cpp
int run_slurm(const regress::Suite& s, const std::vector<Planned>& p, Store& store, const Options& o);
// The sbatch script for a submission.
std::string sbatch_script(const Options& o, const std::string& campaign, const std::string& task_dir, int64_t runs,
                          int64_t tasks, const std::string& exe);
// Merges every result file in the spools of active submissions into the
// store, then closes the submissions whose jobs have ended. Returns the
// number of results stored.
int64_t collect(Store& store, std::ostream* out);
// `relgpu campaign worker DIR --task N`: one array task's runs.
int worker(const std::string& task_dir, int64_t task, unsigned jobs, const std::string& exe);

}  // namespace relgpu::app::campaign
