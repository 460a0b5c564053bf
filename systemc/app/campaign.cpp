// `relgpu campaign run|status|collect|worker` (see app/campaign.h).
#include <sys/vfs.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <regex>

#include "app/args.h"
#include "app/campaign.h"

namespace relgpu::app {

namespace fs = std::filesystem;
using namespace campaign;

static const char* kCampaignHelp = R"(usage: relgpu campaign run SPEC.json --store FILE [options]
       relgpu campaign status STORE
       relgpu campaign collect STORE
       relgpu campaign worker DIR --task N      (what a Slurm array task runs)

Runs every run of a spec (the regress suite format, README "Regressions")
and keeps each result in an SQLite store, one row per run, the moment it
finishes. A run is identified by its workload, size, seed, mode and
effective config: running the same command again resumes (runs already done
or failed are not redone), and a run whose config changed is a new run.
Exit status: 0 every run done and as expected, 1 some run failed or did not
meet its expectations, 2 bad input, 130 interrupted (the command resumes).

run options:
  --store FILE        the result store (created if missing; required)
  --backend B         local (default): child processes on this machine;
                      slurm: job arrays through sbatch (see below)
  -j, --jobs N        local: runs at once (default: the number of CPUs)
  --timeout SECONDS   per-run time limit, overriding the spec's timeout_s
  --retry-failed      run the failed runs again too
  --launch-detail     keep each launch's timing detail in the stored stats (left
                      out by default: it is most of a short run's stats; the run's
                      totals and the per-launch instruction counts are always kept)
  --bin FILE          the relgpu binary the runs use (default: this one)
  --dry-run           change nothing; local: list the runs to do;
                      slurm: print the sbatch script
slurm options:
  --spool DIR         where array tasks leave their results, on a file system
                      the compute nodes share (default: STORE.spool)
  --chunk N           runs per array task (default 10)
  --partition P       (default: the cluster's default partition)
  --account A         (default: the user's default account)
  --time T            time limit per array task, as sbatch --time (default 04:00:00)
  --mem M             memory per array task, as sbatch --mem (default 2G)
  --cpus-per-task N   runs at once inside a task (default 1)
  --no-wait           submit and return; `campaign collect` merges later
  --poll SECONDS      how often the waiting command merges results (default 2)

status: what a store holds, per campaign: runs done, failed, running,
queued and in Slurm jobs; failures with their reason.
collect: merges the results that Slurm array tasks left in the spool, and
queues again the runs of tasks that ended without reporting them.
)";

namespace {

bool tty_out() {
  const char* term = std::getenv("TERM");
  return isatty(STDOUT_FILENO) && !(term && std::string(term) == "dumb");
}

std::string self_exe() {
  std::error_code ec;
  std::string p = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw InputError("campaign: cannot find this relgpu binary (/proc/self/exe): " + ec.message());
  return p;
}

void check_option(const std::string& opt, const std::string& v, const char* pattern, const char* what) {
  if (!std::regex_match(v, std::regex(pattern)))
    throw InputError("campaign: " + opt + " '" + v + "': expected " + what);
}

// SQLite's locks are unreliable on NFS: say so when the store is there.
void warn_network_fs(const std::string& store) {
  struct statfs st {};
  fs::path dir = fs::absolute(store).parent_path();
  if (statfs(dir.c_str(), &st) != 0) return;
  const long nfs = 0x6969, smb = 0x517b, cifs = 0xff534d42, lustre = 0x0bd00bd0;
  long t = long(st.f_type);
  if (t == nfs || t == smb || t == cifs || t == lustre)
    std::cerr << "relgpu campaign: warning: " << store << " is on a network file system; keep every process that "
              << "opens it (run, collect, status) on this one host, or put the store on a local disk and only the "
              << "spool (--spool) on the shared file system\n";
}

int run_cmd(Args& a, const std::string& command) {
  Options o;
  std::string bin;
  std::optional<unsigned> jobs;
  while (!a.done()) {
    std::string opt = a.next_opt(), arg = a.arg();
    auto v = [&] { return a.optval(opt); };
    auto count = [&](const std::string& name, const std::string& text, uint64_t max) {
      uint64_t n = parse_u64(text, "campaign: " + name);
      if (n == 0 || n > max) throw InputError("campaign: " + name + " must be between 1 and " + std::to_string(max));
      return n;
    };
    auto seconds = [&](double max) {
      std::string t = v();
      char* end = nullptr;
      double d = std::strtod(t.c_str(), &end);
      if (t.empty() || *end || !(d > 0) || d > max)
        throw InputError("campaign: " + opt + ": expected a number of seconds above 0 and up to " +
                         std::to_string(int64_t(max)) + ", got '" + t + "'");
      return d;
    };
    if (opt == "-h" || opt == "--help") {
      std::cout << kCampaignHelp;
      return 0;
    } else if (opt == "--store") o.store_path = v();
    else if (opt == "--backend") o.backend = v();
    else if (opt == "-j" || opt == "--jobs") jobs = unsigned(count(opt, v(), 1024));
    else if (opt.rfind("-j", 0) == 0 && opt.size() > 2 && !a.opt_inline())
      jobs = unsigned(count("-j", opt.substr(2), 1024));
    else if (opt == "--timeout") o.timeout_s = seconds(1e9);
    else if (opt == "--retry-failed") o.retry_failed = true;
    else if (opt == "--launch-detail") o.launch_detail = true;
    else if (opt == "--bin") bin = v();
    else if (opt == "--dry-run") o.dry_run = true;
    else if (opt == "--no-wait") o.wait = false;
    else if (opt == "--poll") o.poll_s = seconds(3600);
    else if (opt == "--spool") o.spool = v();
    else if (opt == "--chunk") o.chunk = int64_t(count(opt, v(), 1000000));
    else if (opt == "--cpus-per-task") o.cpus_per_task = int64_t(count(opt, v(), 1024));
    else if (opt == "--partition")
      check_option(opt, o.partition = v(), "[A-Za-z0-9_.,+-]+", "a partition name (or a comma-separated list)");
    else if (opt == "--account") check_option(opt, o.account = v(), "[A-Za-z0-9_.+-]+", "an account name");
    else if (opt == "--time")
      check_option(opt, o.time = v(), "[0-9]+|[0-9]+:[0-9]+(:[0-9]+)?|[0-9]+-[0-9]+(:[0-9]+(:[0-9]+)?)?|INFINITE|UNLIMITED",
                   "a Slurm time limit: MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS");
    else if (opt == "--mem") check_option(opt, o.mem = v(), "[0-9]+[KMGT]?", "a size like 2G or 500M");
    else if (opt.rfind("-", 0) == 0) a.unknown(arg);
    else if (o.spec_path.empty()) o.spec_path = arg;
    else throw InputError("campaign run: one spec at a time (got '" + o.spec_path + "' and '" + arg + "')");
  }
  if (o.spec_path.empty()) throw InputError("campaign run: missing SPEC.json (see `relgpu campaign --help`)");
  if (o.store_path.empty()) throw InputError("campaign run: missing --store FILE (where the results go)");
  if (o.backend != "local" && o.backend != "slurm")
    throw InputError("campaign run: --backend must be 'local' or 'slurm', got '" + o.backend + "'");
  if (!bin.empty()) {
    if (access(bin.c_str(), X_OK) != 0) throw InputError("campaign: --bin " + bin + ": not an executable file");
    o.exe = fs::absolute(bin).string();
  } else {
    o.exe = o.backend == "slurm" ? self_exe() : "/proc/self/exe";
  }
  if (o.backend == "slurm") {
    if (o.spool.empty()) o.spool = o.store_path + ".spool";
    o.spool = fs::absolute(o.spool).lexically_normal().string();
    while (o.spool.size() > 1 && o.spool.back() == '/') o.spool.pop_back();
    // The path goes into #SBATCH lines, where sbatch splits at blanks.
    if (o.spool.find_first_of(" \t\n\"'%\\$`") != std::string::npos)
      throw InputError("campaign: --spool " + o.spool +
                       ": the spool path must not contain blanks, quotes, '%', '$' or '\\'");
  }
  o.jobs = jobs.value_or(regress::default_jobs());
  o.tty = tty_out();
  o.out = &std::cout;
  o.command = command;

  regress::Suite suite = regress::load_suite(o.spec_path);
  if (suite.runs.empty()) throw InputError(o.spec_path + ": the spec has no runs");
  std::vector<Planned> planned = plan(suite);

  if (o.dry_run) {
    std::map<std::string, std::string> st;
    std::optional<Store> store;
    if (fs::exists(o.store_path)) st = store.emplace(o.store_path, false, true).statuses(suite.name);
    std::vector<const Planned*> todo = runs_to_do(planned, st, o.retry_failed);
    std::cout << "# dry run: " << suite.name << ": " << planned.size() << " runs, " << todo.size()
              << " to run; nothing was changed\n";
    if (store) std::cout << describe(drift(todo, store->done_configs(suite.name)), o.store_path, suite.name, "# ");
    if (o.backend == "local") {
      for (auto* p : todo) std::cout << p->run->name << "\n    " << regress::reproduce(*p->run, "relgpu") << "\n";
      return 0;
    }
    int64_t n = int64_t(todo.size());
    if (n == 0) return 0;
    Options so = o;
    so.chunk = std::max<int64_t>(o.chunk, (n + 999) / 1000);
    std::cout << sbatch_script(so, suite.name, o.spool + "/sub-NEXT", n, (n + so.chunk - 1) / so.chunk, o.exe);
    return 0;
  }

  warn_network_fs(o.store_path);
  Lock lock(o.store_path);
  Store store(o.store_path, true);
  *o.out << describe(drift(runs_to_do(planned, store.statuses(suite.name), o.retry_failed),
                           store.done_configs(suite.name)),
                     o.store_path, suite.name, "relgpu campaign: ");
  store.sync(suite.name, o.spec_path, planned, o.retry_failed);
  return o.backend == "local" ? run_local(suite, planned, store, o) : run_slurm(suite, planned, store, o);
}

std::string store_arg(Args& a, const std::string& sub) {
  std::string path;
  while (!a.done()) {
    std::string arg = a.next();
    if (arg == "-h" || arg == "--help") return "";
    if (arg.rfind("-", 0) == 0) a.unknown(arg);
    if (!path.empty()) throw InputError("campaign " + sub + ": one store at a time");
    path = arg;
  }
  if (path.empty()) throw InputError("campaign " + sub + ": missing STORE (see `relgpu campaign --help`)");
  if (!fs::exists(path)) throw InputError(path + ": no such store");
  return path;
}

int status_cmd(Args& a) {
  std::string path = store_arg(a, "status");
  if (path.empty()) {
    std::cout << kCampaignHelp;
    return 0;
  }
  Store store(path, false, true);
  std::vector<std::string> names = store.campaigns();
  std::cout << "store " << path << ": " << names.size() << " campaign" << (names.size() == 1 ? "" : "s") << "\n";
  const size_t kList = 20;
  for (auto& name : names) {
    Counts c = store.counts(name);
    std::string spec, updated;
    {
      sql::Stmt s(store.db(), "SELECT spec, updated_at FROM campaigns WHERE name = ?");
      s.bind(1, name);
      if (s.step()) spec = s.text(0), updated = s.text(1);
    }
    std::cout << "\ncampaign " << name << " (spec " << spec << ", last run " << updated << ")\n";
    std::cout << "  " << c.total << " runs: " << c.done << " done";
    if (c.unmet) std::cout << " (" << c.unmet << " not as expected)";
    std::cout << ", " << c.failed << " failed, " << c.running << " running, " << c.submitted << " in Slurm jobs, "
              << c.queued << " queued\n";
    if (c.stale) std::cout << "  and " << c.stale << " runs of an earlier version of the spec (kept, not counted)\n";
    {
      sql::Stmt s(store.db(),
                  "SELECT coalesce(sum(wall_s), 0), count(DISTINCT host), group_concat(DISTINCT revision), "
                  "min(started_at), max(finished_at) FROM runs WHERE campaign = ? AND current = 1 "
                  "AND status IN ('done', 'failed')");
      s.bind(1, name);
      if (s.step() && c.done + c.failed > 0) {
        char b[64];
        std::snprintf(b, sizeof b, "%.1f", s.real(0));
        std::cout << "  " << b << " s of run time on " << s.i64(1) << " host" << (s.i64(1) == 1 ? "" : "s")
                  << ", from " << s.text(3) << " to " << s.text(4) << "; relgpu revision " << s.text(2) << "\n";
      }
    }
    for (auto& sub : store.active_submissions(name))
      std::cout << "  Slurm job " << (sub.job_id.empty() ? "(not submitted)" : sub.job_id) << ": " << sub.runs
                << " runs in " << sub.tasks << " tasks; spool " << sub.spool << "\n";
    auto list = [&](const char* title, const char* where) {
      std::string quoted;  // the name as an SQL string literal, for the query printed below too
      for (char c : name) quoted += c == '\'' ? std::string("''") : std::string(1, c);
      std::string cond = "campaign = '" + quoted + "' AND current = 1 AND " + where;
      sql::Stmt s(store.db(), "SELECT name, coalesce(message, '') FROM runs WHERE " + cond + " ORDER BY id");
      size_t n = 0;
      while (s.step()) {
        if (n++ == 0) std::cout << "  " << title << ":\n";
        if (n <= kList) std::cout << "    " << s.text(0) << ": " << s.text(1) << "\n";
      }
      if (n > kList)
        std::cout << "    ... and " << n - kList << " more: sqlite3 " << regress::shell_quote(path)
                  << " \"SELECT name, message FROM runs WHERE " << cond << "\"\n";
    };
    list("failed", "status = 'failed'");
    list("not as expected", "verdict = 'fail'");
  }
  return 0;
}

int collect_cmd(Args& a) {
  std::string path = store_arg(a, "collect");
  if (path.empty()) {
    std::cout << kCampaignHelp;
    return 0;
  }
  Lock lock(path);
  Store store(path, false);
  int64_t n = collect(store, &std::cout);
  std::cout << "relgpu campaign collect: " << n << " result" << (n == 1 ? "" : "s") << " merged into " << path << "\n";
  for (auto& name : store.campaigns()) {
    Counts c = store.counts(name);
    std::cout << "  " << name << ": " << c.done << " of " << c.total << " done, " << c.failed << " failed, "
              << c.submitted << " in Slurm jobs, " << c.queued << " queued\n";
  }
  return 0;
}

int worker_cmd(Args& a) {
  std::string dir;
  std::optional<int64_t> task;
  while (!a.done()) {
    std::string opt = a.next_opt(), arg = a.arg();
    if (opt == "-h" || opt == "--help") {
      std::cout << kCampaignHelp;
      return 0;
    } else if (opt == "--task") task = int64_t(parse_u64(a.optval(opt), "campaign worker: --task"));
    else if (opt.rfind("-", 0) == 0) a.unknown(arg);
    else if (dir.empty()) dir = arg;
    else throw InputError("campaign worker: one directory at a time");
  }
  if (dir.empty() || !task) throw InputError("campaign worker: needs DIR and --task N");
  unsigned jobs = 1;
  if (const char* c = std::getenv("SLURM_CPUS_PER_TASK")) {
    uint64_t n = parse_u64(c, "SLURM_CPUS_PER_TASK");
    jobs = unsigned(std::max<uint64_t>(1, std::min<uint64_t>(n, 1024)));
  }
  return worker(dir, *task, jobs, "/proc/self/exe");
}

}  // namespace

int cmd_campaign(Args& a) {
  if (a.done()) throw InputError("campaign: missing a subcommand: run, status or collect (see `relgpu campaign --help`)");
  std::string sub = a.next();
  if (sub == "-h" || sub == "--help") {
    std::cout << kCampaignHelp;
    return 0;
  }
  if (sub == "run") {
    std::string command = "relgpu campaign run";
    Args copy = a;
    while (!copy.done()) command += " " + regress::shell_quote(copy.next());
    return run_cmd(a, command);
  }
  if (sub == "status") return status_cmd(a);
  if (sub == "collect") return collect_cmd(a);
  if (sub == "worker") return worker_cmd(a);
  throw InputError("campaign: unknown subcommand '" + sub + "'; expected run, status or collect");
}

}  // namespace relgpu::app
