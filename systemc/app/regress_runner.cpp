// The regression process pool.
//
// Each run is a child process: the relgpu binary itself (/proc/self/exe, so
// every run uses exactly the binary the suite started with, even if the file
// is rebuilt meanwhile) running `relgpu run ... --stats FILE --quiet`.
// Why processes, not threads: SystemC allows one elaboration per process,
// and a run that crashes, deadlocks or exhausts memory must not take the
// runner (and the other runs' results) down with it. The child's output
// goes to a log file that the report quotes when the run fails.
//
// Children run in their own process group (a terminal's Ctrl-C reaches the
// pool, which stops the children itself) and die with the pool even when it
// is killed with SIGKILL: the pool passes its pid in RELGPU_POOL_PID and the
// child sets PR_SET_PDEATHSIG at start (app/main.cpp). posix_spawn, not
// fork, because fork copies the pool's page tables for every run.
//
// The pool sleeps in poll() on a pipe that the SIGCHLD and SIGINT handlers
// write to, so it reaps a finished child at once (a campaign of short runs
// would otherwise lose the polling interval on every run), and wakes at
// least every 100 ms for timeouts and the progress line.
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "app/regress.h"
#include "common/error.h"

extern char** environ;

namespace relgpu::app::regress {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

unsigned default_jobs() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return unsigned(CPU_COUNT(&set));
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

namespace {

volatile sig_atomic_t g_interrupted = 0;
int g_wake_fd = -1;  // write end of the pool's wake-up pipe
void wake() {
  int e = errno;
  if (g_wake_fd >= 0) (void)!write(g_wake_fd, "x", 1);
  errno = e;
}
void on_interrupt(int) {
  g_interrupted = 1;
  wake();
}
void on_child(int) { wake(); }

// For the pool's lifetime: catches Ctrl-C / SIGTERM, so that the children
// are killed and the temporary files removed before the runner stops, and
// turns SIGCHLD into a byte on the wake-up pipe.
struct SignalGuard {
  int pipe_fd[2] = {-1, -1};
  struct sigaction old_int {}, old_term {}, old_chld {};
  SignalGuard() {
    if (pipe2(pipe_fd, O_CLOEXEC | O_NONBLOCK) != 0)
      throw InputError(std::string("cannot create a pipe: ") + strerror(errno));
    g_interrupted = 0;
    g_wake_fd = pipe_fd[1];
    struct sigaction sa {};
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sa.sa_handler = on_interrupt;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sa.sa_handler = on_child;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, &old_chld);
  }
  ~SignalGuard() {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    sigaction(SIGCHLD, &old_chld, nullptr);
    g_wake_fd = -1;
    close(pipe_fd[0]);
    close(pipe_fd[1]);
  }
  // Sleeps until a signal arrives or `ms` pass, then empties the pipe.
  void wait(int ms) {
    pollfd p{pipe_fd[0], POLLIN, 0};
    poll(&p, 1, ms);
    char buf[64];
    while (read(pipe_fd[0], buf, sizeof buf) > 0) {
    }
  }
};

// A whole file, or "" (a stats file can be a few MB: one read, no streams).
std::string slurp(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string s;
  struct stat st {};
  if (fstat(fd, &st) == 0 && st.st_size > 0) s.reserve(size_t(st.st_size));
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) s.append(buf, size_t(n));
  close(fd);
  return s;
}

std::string safe_name(size_t k, const std::string& name) {
  char b[16];
  std::snprintf(b, sizeof b, "%03zu_", k);
  std::string s = b;
  for (char c : name) s += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  return s;
}

std::string secs(double s) {
  char b[32];
  std::snprintf(b, sizeof b, s < 10 ? "%.2f s" : "%.0f s", s);
  return b;
}

class Progress {
 public:
  Progress(std::ostream* out, bool tty, size_t total) : out_(out), tty_(tty), total_(total) {
    last_print_ = Clock::now();
  }
  void finished(const Run& r, const Result& res) {
    ++done_;
    ++count_[int(res.status)];
    for (size_t i = 0; i < running_.size(); ++i)
      if (running_[i].first == r.name) running_.erase(running_.begin() + long(i--));
    if (!out_) return;
    bool ok = res.status == Status::pass;
    if (tty_ && ok) {  // on a terminal, passes only move the counters
      redraw(true);
      return;
    }
    clear();
    char head[64];
    int w = int(std::to_string(total_).size());
    std::snprintf(head, sizeof head, "[%*zu/%zu] %-7s ", w, done_, total_, status_name(res.status));
    *out_ << head << r.name << "  " << secs(res.wall_s) << "\n";
    std::string pad(std::strlen(head), ' ');
    size_t shown = 0;
    for (auto& m : res.mismatches) {
      if (++shown > 5) {
        *out_ << pad << "... and " << res.mismatches.size() - 5 << " more\n";
        break;
      }
      *out_ << pad << mismatch_line(m) << "\n";
    }
    if (res.mismatches.empty() && !res.message.empty()) *out_ << pad << res.message << "\n";
    out_->flush();
    last_print_ = Clock::now();
    redraw(true);
  }
  // Called every poll with the runs in flight: on a terminal, the updating
  // line; in a log, a line every minute so that a long run shows it is alive.
  void tick(const std::vector<std::pair<std::string, double>>& running) {
    running_ = running;
    if (!out_) return;
    if (tty_) {
      redraw(false);
    } else if (!running.empty() && Clock::now() - last_print_ > std::chrono::seconds(60)) {
      *out_ << "  ... running:";
      for (auto& [n, t] : running) *out_ << " " << n << " (" << secs(t) << ")";
      *out_ << "\n";
      out_->flush();
      last_print_ = Clock::now();
    }
  }
  void clear() {
    if (out_ && tty_ && drawn_) *out_ << "\r\x1b[K" << std::flush;
    drawn_ = false;
  }

 private:
  void redraw(bool now) {
    if (!tty_ || !out_) return;
    auto t = Clock::now();
    if (!now && t - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = t;
    std::string line = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "] pass " +
                       std::to_string(count_[0]) + " fail " + std::to_string(done_ - count_[0]);
    if (!running_.empty()) {
      line += "  running:";
      const char* sep = " ";
      for (auto& [n, s] : running_) {
        line += sep + n + (s >= 5 ? " (" + secs(s) + ")" : "");
        sep = ", ";
      }
    }
    winsize ws{};
    size_t width = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
    if (line.size() >= width) line = line.substr(0, width > 4 ? width - 4 : 0) + "...";
    *out_ << "\r" << line << "\x1b[K" << std::flush;
    drawn_ = true;
  }

  std::ostream* out_;
  bool tty_;
  size_t total_, done_ = 0;
  size_t count_[5] = {0, 0, 0, 0, 0};
  bool drawn_ = false;
  std::vector<std::pair<std::string, double>> running_;
  Clock::time_point last_draw_{}, last_print_;
};

struct Child {
  size_t k = 0;  // position in `runs`
  pid_t pid = -1;
  Clock::time_point t0;
  double limit_s = 0;
  bool killed = false;
  std::string stats, log;
};

// The children in flight. Whatever way the pool is left (done, Ctrl-C, an
// exception from an event), none outlives it.
struct Flight {
  std::vector<Child> children;
  ~Flight() {
    for (auto& c : children) kill(c.pid, SIGKILL);
    for (auto& c : children) waitpid(c.pid, nullptr, 0);
  }
};

// Starts `exe` with stdin from /dev/null and stdout+stderr into `log`, in
// its own process group. Returns the pid, or -1 with `error` set.
pid_t spawn(const std::string& exe, std::vector<std::string>& args, const std::string& log, std::string& error) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  static const std::string pool = "RELGPU_POOL_PID=" + std::to_string(getpid());
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "RELGPU_POOL_PID=", 16) != 0) envp.push_back(*e);
  envp.push_back(const_cast<char*>(pool.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&at, 0);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, exe.c_str(), &fa, &at, argv.data(), envp.data());
  posix_spawnattr_destroy(&at);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    error = "cannot start " + exe + ": " + strerror(rc);
    return -1;
  }
  return pid;
}

// regress's progress output as pool events, collecting the results.
struct Collect : PoolEvents {
  const Suite& s;
  const std::vector<size_t>& selected;
  Progress progress;
  std::vector<Result> results;
  Collect(const Suite& s, const std::vector<size_t>& sel, const RunnerOptions& o)
      : s(s), selected(sel), progress(o.out, o.tty, sel.size()), results(sel.size()) {}
  void finished(size_t k, const Ended& e) override {
    const Run& r = s.runs[selected[k]];
    results[k] = evaluate(r, e.exit_code, e.signal, e.timed_out, e.wall_s, e.stats, e.log);
    progress.finished(r, results[k]);
  }
  void tick(const std::vector<std::pair<std::string, double>>& running) override { progress.tick(running); }
};

}  // namespace

void run_pool(const std::vector<const Run*>& runs, const RunnerOptions& o, PoolEvents& ev) {
  std::string dir = o.keep_dir.empty() ? o.scratch_dir : o.keep_dir;
  bool temporary = o.keep_dir.empty() && o.scratch_dir.empty();
  if (temporary) {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string tmpl = (base / "relgpu-runs-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw InputError(tmpl + ": cannot create a temporary directory: " + strerror(errno));
    dir = tmpl;
  } else {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw InputError(dir + ": cannot create directory: " + ec.message());
  }
  struct Cleanup {
    std::string dir;
    bool on;
    ~Cleanup() {
      std::error_code ec;
      if (on) fs::remove_all(dir, ec);
    }
  } cleanup{dir, temporary};

  SignalGuard guard;
  Flight flight;  // declared after the guard: children die before the handlers go
  auto& running = flight.children;
  const unsigned jobs = std::max(1u, o.jobs);
  size_t next = 0;
  struct Pending {
    size_t k;
    Ended e;
    std::string stats_path, log_path;  // read after the refill; empty for a run that did not start
  };
  std::vector<Pending> ended;  // finished, their events not yet sent
  // Unless kept, a run's files are a slot's, reused once read, so that a
  // campaign's scratch directory never holds more than a few files.
  std::vector<bool> slot_busy;
  auto take_slot = [&] {
    size_t i = 0;
    while (i < slot_busy.size() && slot_busy[i]) ++i;
    if (i == slot_busy.size()) slot_busy.push_back(false);
    slot_busy[i] = true;
    return i;
  };
  auto release_slot = [&](const std::string& stats_path) {
    if (!o.keep_dir.empty() || stats_path.empty()) return;
    std::string n = fs::path(stats_path).filename().string();  // "slotN.stats.json"
    slot_busy[std::stoul(n.substr(4))] = false;
  };

  auto start = [&](size_t k) {
    const Run& r = *runs[k];
    Child c;
    c.k = k;
    c.t0 = Clock::now();
    c.limit_s = o.timeout_s.value_or(r.timeout_s);
    std::string base = (fs::path(dir) / (o.keep_dir.empty() ? "slot" + std::to_string(take_slot())
                                                             : safe_name(k, r.name))).string();
    c.stats = base + ".stats.json";
    c.log = base + ".log";
    std::remove(c.stats.c_str());  // an old one (a kept directory, a reused slot) must not pass for this run's
    std::vector<std::string> args = r.args();
    args.insert(args.begin(), "relgpu");
    args.insert(args.end(), {"--stats", c.stats, "--quiet"});
    args.insert(args.end(), o.run_args.begin(), o.run_args.end());
    std::string error;
    c.pid = spawn(o.exe, args, c.log, error);
    if (c.pid < 0) {
      release_slot(c.stats);
      Ended e;
      e.exit_code = 127;
      e.log = "relgpu: " + error + "\n";
      ended.push_back({k, std::move(e), "", ""});
      return;
    }
    running.push_back(std::move(c));
    ev.started(k);
  };
  auto fill = [&] {
    while (running.size() < jobs && next < runs.size()) start(next++);
  };

  while (next < runs.size() || !running.empty() || !ended.empty()) {
    if (g_interrupted) {
      size_t n = running.size();
      throw Interrupted("interrupted; " + std::to_string(n) + " run" + (n == 1 ? "" : "s") + " in flight killed");
    }
    fill();
    std::vector<std::pair<std::string, double>> names;
    for (size_t i = 0; i < running.size();) {
      Child& c = running[i];
      double t = std::chrono::duration<double>(Clock::now() - c.t0).count();
      int st = 0;
      pid_t w = waitpid(c.pid, &st, WNOHANG);
      if (w == c.pid || (w < 0 && errno == ECHILD)) {
        if (g_interrupted) break;  // it may have died of the same Ctrl-C: not a result
        Ended e;
        e.exit_code = w == c.pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        e.signal = w == c.pid && WIFSIGNALED(st) ? WTERMSIG(st) : 0;
        e.timed_out = c.killed;
        e.wall_s = t;
        ended.push_back({c.k, std::move(e), c.stats, c.log});
        running.erase(running.begin() + long(i));
        continue;
      }
      if (!c.killed && t > c.limit_s) {
        kill(c.pid, SIGKILL);
        c.killed = true;
      }
      names.emplace_back(runs[c.k]->name, t);
      ++i;
    }
    if (g_interrupted) continue;
    // Refill first: judging and storing a result then overlaps the next runs.
    fill();
    bool any = !ended.empty();
    std::vector<Pending> done;
    done.swap(ended);
    for (auto& p : done) {
      if (!p.stats_path.empty()) {
        p.e.stats = slurp(p.stats_path);
        p.e.log = slurp(p.log_path);
        release_slot(p.stats_path);
      }
      ev.finished(p.k, p.e);
    }
    ev.tick(names);
    if (!any) guard.wait(100);
  }
}

std::vector<Result> execute(const Suite& s, const std::vector<size_t>& selected, const RunnerOptions& o) {
  std::vector<const Run*> runs;
  for (size_t i : selected) runs.push_back(&s.runs[i]);
  Collect c(s, selected, o);
  try {
    run_pool(runs, o, c);
  } catch (...) {
    c.progress.clear();
    throw;
  }
  c.progress.clear();
  return std::move(c.results);
}

}  // namespace relgpu::app::regress
