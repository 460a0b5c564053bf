// The Slurm backend (README, "Campaigns", has the design).
//
// SQLite's locking is not safe over NFS, so no compute node ever opens the
// store. A submission is a directory on the shared file system:
//   SPOOL/sub-<id>/runs.json     the runs, in chunks of --chunk per array task
//   SPOOL/sub-<id>/job.sh        the sbatch script (one job array)
//   SPOOL/sub-<id>/results/      one file per finished run, <store id>.json,
//                                written under a temporary name and renamed,
//                                so a reader never sees half a file
//   SPOOL/sub-<id>/logs/         each task's output
// One collector on the submitting host (the waiting `campaign run`, or
// `campaign collect`) merges result files into the store, one transaction
// each, and deletes each file after its commit: a file merged twice (the
// collector killed between the two) is stored once, because a done run
// keeps its first result. When squeue no longer lists a submission's job,
// its runs without a result go back to the queue for the next submission.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>

#include "app/campaign.h"

namespace relgpu::app::campaign {

namespace fs = std::filesystem;

namespace {

struct CmdOut {
  int status = -1;  // exit status; -1 when it could not run
  std::string out;  // stdout and stderr
};

CmdOut run_cmd(const std::vector<std::string>& argv) {
  std::string cmd;
  for (auto& a : argv) cmd += (cmd.empty() ? "" : " ") + regress::shell_quote(a);
  CmdOut r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& text, bool executable = false) {
  std::ofstream f(p, std::ios::binary);
  if (!f) throw InputError(p.string() + ": cannot write");
  f << text;
  if (!f.flush()) throw InputError(p.string() + ": error while writing");
  f.close();
  if (executable) chmod(p.c_str(), 0755);
}

// Writes `text` to `p` so that readers see all of it or nothing.
void write_atomic(const fs::path& p, const std::string& text) {
  fs::path tmp = p.parent_path() / (".tmp-" + p.filename().string() + "-" + host_name() + "-" + std::to_string(getpid()));
  write_file(tmp, text);
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) throw InputError(p.string() + ": cannot rename the result into place: " + ec.message());
}

volatile sig_atomic_t g_stop = 0;
void on_stop(int) { g_stop = 1; }

struct StopGuard {
  struct sigaction old_int {}, old_term {};
  StopGuard() {
    g_stop = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }
  ~StopGuard() {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
  // Sleeps `s` seconds unless Ctrl-C comes first; returns false then.
  bool sleep(double s) {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(s);
    while (!g_stop && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return !g_stop;
  }
};

enum class JobState { active, gone, unknown };

JobState job_state(const std::string& job_id, std::string& why) {
  if (job_id.empty()) return JobState::gone;  // sbatch never returned one
  CmdOut r = run_cmd({"squeue", "-h", "-j", job_id, "-o", "%i"});
  if (r.status == 0) return trim(r.out).empty() ? JobState::gone : JobState::active;
  // Finished jobs leave squeue's memory after MinJobAge; then it says so.
  if (r.out.find("Invalid job id") != std::string::npos) return JobState::gone;
  why = r.status < 0 ? "cannot run squeue" : "squeue: " + trim(r.out);
  return JobState::unknown;
}

// Merges one submission's result files. Returns how many were stored.
int64_t merge(Store& store, const Submission& sub, std::ostream* out) {
  fs::path dir = fs::path(sub.spool) / "results";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return 0;
  std::vector<fs::path> files;
  for (auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json" && e.path().filename().string()[0] != '.') files.push_back(e.path());
  std::sort(files.begin(), files.end());
  int64_t stored = 0;
  for (auto& f : files) {
    try {
      json j;
      try {
        j = json::parse(slurp(f));
      } catch (const json::exception& e) {
        throw InputError(f.string() + ": not a run result: " + e.what());
      }
      if (!j.is_object() || !j.contains("id") || !j["id"].is_number_integer() || !j.contains("key") ||
          !j["key"].is_string() || !j.contains("record"))
        throw InputError(f.string() + ": not a run result: needs \"id\", \"key\" and \"record\"");
      Record r = record_from_json(j["record"], f.string());
      stored += store.finish(j["id"].get<int64_t>(), j["key"].get<std::string>(), r);
      fs::remove(f, ec);
    } catch (const InputError& e) {
      // Keep it for a person to look at; its run is redone.
      fs::rename(f, fs::path(f.string() + ".bad"), ec);
      if (out) *out << "relgpu campaign: warning: " << e.what() << " (renamed to .bad)\n";
    }
  }
  return stored;
}

}  // namespace

std::string sbatch_script(const Options& o, const std::string& campaign, const std::string& task_dir, int64_t runs,
                          int64_t tasks, const std::string& exe) {
  std::string job_name = "relgpu-";
  for (char c : campaign) job_name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# relgpu campaign '" << campaign << "': " << runs << " runs in " << tasks << " array task"
    << (tasks == 1 ? "" : "s") << " of up to " << o.chunk << " runs.\n"
    << "# Each task writes one result file per run into " << task_dir << "/results;\n"
    << "# `relgpu campaign collect STORE` (or the waiting `relgpu campaign run`) merges them into the store.\n"
    << "#SBATCH --job-name=" << job_name << "\n"
    << "#SBATCH --array=0-" << tasks - 1 << "\n"
    << "#SBATCH --time=" << o.time << "\n"
    << "#SBATCH --mem=" << o.mem << "\n"
    << "#SBATCH --cpus-per-task=" << o.cpus_per_task << "\n";
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  if (!o.account.empty()) s << "#SBATCH --account=" << o.account << "\n";
  s << "#SBATCH --output=" << task_dir << "/logs/task-%a.out\n"
    << "#SBATCH --open-mode=append\n"
    << "exec " << regress::shell_quote(exe) << " campaign worker " << regress::shell_quote(task_dir)
    << " --task \"$SLURM_ARRAY_TASK_ID\"\n";
  return s.str();
}

int64_t collect(Store& store, std::ostream* out) {
  int64_t stored = 0;
  for (const Submission& sub : store.active_submissions()) {
    stored += merge(store, sub, out);
    std::string why;
    JobState st = job_state(sub.job_id, why);
    if (st == JobState::unknown) {
      if (out) *out << "relgpu campaign: warning: cannot tell whether Slurm job " << sub.job_id << " is still there ("
                    << why << "); its runs stay submitted\n";
      continue;
    }
    if (st == JobState::active) continue;
    stored += merge(store, sub, out);  // what its last tasks wrote since
    int64_t lost = store.close_submission(
        sub.id, "its Slurm task ended without a result (time limit, memory, node failure or scancel?); queued "
                "again; the task's output is in " + sub.spool + "/logs");
    std::error_code ec;
    if (lost == 0) {
      fs::remove_all(sub.spool, ec);
    } else if (out) {
      *out << "relgpu campaign: Slurm job " << (sub.job_id.empty() ? "(never submitted)" : sub.job_id) << " ended with "
           << lost << " run" << (lost == 1 ? "" : "s") << " unreported; queued again (task output: " << sub.spool
           << "/logs)\n";
    }
  }
  return stored;
}

int run_slurm(const regress::Suite& s, const std::vector<Planned>& p, Store& store, const Options& o) {
  std::map<std::string, const Planned*> by_key;
  for (auto& x : p) by_key[x.key] = &x;
  collect(store, o.out);
  std::vector<Todo> todo = store.todo(s.name);
  Counts c = store.counts(s.name);
  if (o.out)
    *o.out << "relgpu campaign: " << s.name << " (" << s.path << "): " << c.total << " runs, " << c.done << " done, "
           << c.failed << " failed, " << c.submitted << " in Slurm jobs, " << todo.size() << " to submit; store "
           << o.store_path << "\n"
           << std::flush;
  auto t0 = std::chrono::steady_clock::now();
  auto wall = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };

  if (!todo.empty()) {
    // Slurm's default MaxArraySize is 1001: past 1000 tasks, bigger chunks.
    int64_t n = int64_t(todo.size());
    Options so = o;
    so.chunk = std::max<int64_t>(o.chunk, (n + 999) / 1000);
    int64_t tasks = (n + so.chunk - 1) / so.chunk;
    std::vector<int64_t> ids;
    for (auto& t : todo) ids.push_back(t.id);
    Submission sub = store.add_submission(s.name, o.spool, ids, tasks);
    try {
      fs::create_directories(fs::path(sub.spool) / "results");
      fs::create_directories(fs::path(sub.spool) / "logs");
      json runs = json::array();
      for (auto& t : todo) {
        const Planned* x = by_key.at(t.key);
        runs.push_back({{"id", t.id}, {"key", t.key}, {"run", run_json(*x->run)}});
      }
      json manifest = {{"campaign", s.name},
                       {"store", o.store_path},
                       {"chunk", so.chunk},
                       {"launch_detail", o.launch_detail},
                       {"runs", runs}};
      write_file(fs::path(sub.spool) / "runs.json", manifest.dump(1) + "\n");
      std::string script = sbatch_script(so, s.name, sub.spool, n, tasks, o.exe);
      write_file(fs::path(sub.spool) / "job.sh", script, true);
      CmdOut r = run_cmd({"sbatch", "--parsable", (fs::path(sub.spool) / "job.sh").string()});
      std::string job;
      std::istringstream lines(r.out);
      for (std::string l; std::getline(lines, l);) {
        l = trim(l);
        if (std::regex_match(l, std::regex("[0-9]+(;.*)?"))) job = l.substr(0, l.find(';'));
      }
      if (r.status != 0 || job.empty())
        throw InputError("sbatch " +
                         (r.status < 0 ? std::string("could not be run") : "exit status " + std::to_string(r.status)) +
                         (trim(r.out).empty() ? "" : ": " + trim(r.out)));
      store.set_job(sub.id, job);
      if (o.out)
        *o.out << "submitted Slurm job " << job << ": " << n << " runs in " << tasks << " array task"
               << (tasks == 1 ? "" : "s") << " of up to " << so.chunk << "; spool " << sub.spool << "\n"
               << std::flush;
    } catch (...) {
      store.close_submission(sub.id, "the submission failed");
      std::error_code ec;
      fs::remove_all(sub.spool, ec);
      throw;
    }
  }

  std::vector<Submission> active = store.active_submissions(s.name);
  if (!o.wait) {
    if (o.out && !active.empty())
      *o.out << "not waiting: `relgpu campaign collect " << o.store_path << "` merges the results as they come, "
             << "`relgpu campaign status " << o.store_path << "` shows where the campaign is\n";
    return active.empty() ? summary(store, s.name, o, wall()) : 0;
  }
  StopGuard stop;
  Progress progress(o.out, o.tty, store.counts(s.name));
  while (!active.empty()) {
    if (!stop.sleep(o.poll_s)) {
      progress.clear();
      std::string jobs;
      for (auto& a : active) jobs += (jobs.empty() ? "" : " ") + a.job_id;
      if (o.out)
        *o.out << "relgpu campaign: stopped waiting; Slurm job " << jobs << " keeps running.\n"
               << "merge its results with `relgpu campaign collect " << o.store_path
               << "` (or run the same command again); stop it with `scancel " << jobs << "`\n"
               << std::flush;
      return 130;
    }
    collect(store, o.out);
    Counts now = store.counts(s.name);
    progress.set_counts(now);
    progress.set_running(now.submitted);
    progress.tick();
    active = store.active_submissions(s.name);
  }
  progress.clear();
  return summary(store, s.name, o, wall());
}

namespace {

struct ToSpool : regress::PoolEvents {
  const std::vector<json>& items;
  const std::vector<regress::Run>& runs;
  fs::path results;
  std::string job;
  std::vector<std::string> started_at;
  ToSpool(const std::vector<json>& it, const std::vector<regress::Run>& r, fs::path res, std::string j)
      : items(it), runs(r), results(std::move(res)), job(std::move(j)), started_at(it.size()) {}
  void started(size_t k) override { started_at[k] = now_utc(); }
  void finished(size_t k, const regress::Ended& e) override {
    const json& x = items[k];
    Record rec = make_record(runs[k], e, started_at[k].empty() ? now_utc() : started_at[k], job);
    json j = {{"id", x["id"]}, {"key", x["key"]}, {"record", record_json(rec)}};
    write_atomic(results / (std::to_string(x["id"].get<int64_t>()) + ".json"), j.dump() + "\n");
    std::cout << now_utc() << " " << rec.status << (rec.status == "done" ? " (" + rec.verdict + ")" : "") << " "
              << x["run"]["name"].get<std::string>() << (rec.message.empty() ? "" : ": " + rec.message) << std::endl;
  }
};

}  // namespace

int worker(const std::string& task_dir, int64_t task, unsigned jobs, const std::string& exe) {
  fs::path dir(task_dir);
  fs::path manifest_path = dir / "runs.json";
  json m;
  try {
    std::string text = slurp(manifest_path);
    if (text.empty()) throw InputError(manifest_path.string() + ": missing or empty");
    m = json::parse(text);
  } catch (const json::exception& e) {
    throw InputError(manifest_path.string() + ": malformed: " + e.what());
  }
  if (!m.is_object() || !m.contains("runs") || !m["runs"].is_array() || !m.contains("chunk") ||
      !m["chunk"].is_number_unsigned() || m["chunk"].get<int64_t>() < 1)
    throw InputError(manifest_path.string() + ": not a campaign submission (needs \"runs\" and \"chunk\")");
  int64_t chunk = m["chunk"].get<int64_t>(), n = int64_t(m["runs"].size());
  if (task < 0 || task * chunk >= n)
    throw InputError(manifest_path.string() + ": no task " + std::to_string(task) + " (the submission has " +
                     std::to_string((n + chunk - 1) / chunk) + ")");
  fs::path results = dir / "results";
  std::vector<json> items;
  std::vector<regress::Run> runs;
  for (int64_t i = task * chunk; i < std::min(n, (task + 1) * chunk); ++i) {
    const json& x = m["runs"][size_t(i)];
    std::string where = manifest_path.string() + ": runs[" + std::to_string(i) + "]";
    if (!x.is_object() || !x.contains("id") || !x["id"].is_number_integer() || !x.contains("key") ||
        !x["key"].is_string() || !x.contains("run"))
      throw InputError(where + ": needs \"id\", \"key\" and \"run\"");
    // A requeued task skips the runs it already reported.
    std::error_code ec;
    if (fs::exists(results / (std::to_string(x["id"].get<int64_t>()) + ".json"), ec)) continue;
    runs.push_back(run_from_json(x["run"], where));
    items.push_back(x);
  }
  const char* aj = std::getenv("SLURM_ARRAY_JOB_ID");
  std::string job = aj ? std::string(aj) + "_" + std::to_string(task) : "task " + std::to_string(task);
  std::cout << now_utc() << " relgpu campaign worker: task " << task << " on " << host_name() << ": " << runs.size()
            << " runs, " << jobs << " at a time" << std::endl;
  std::vector<const regress::Run*> ptrs;
  for (auto& r : runs) ptrs.push_back(&r);
  ToSpool ev(items, runs, results, job);
  regress::RunnerOptions ro;
  ro.exe = exe;
  ro.jobs = jobs;
  ro.run_args = run_args(m.value("launch_detail", false));
  try {
    regress::run_pool(ptrs, ro, ev);
  } catch (const regress::Interrupted& e) {
    std::cout << now_utc() << " relgpu campaign worker: " << e.what() << std::endl;
    return 130;
  }
  return 0;
}

}  // namespace relgpu::app::campaign
