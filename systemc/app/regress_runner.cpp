// The regression process pool.
//
// Each run is a child process: the relgpu binary itself (/proc/self/exe, so
// every run uses exactly the binary the suite started with, even if the file
// is rebuilt meanwhile) running `relgpu run ... --stats FILE --quiet`.
// Why processes, not threads: SystemC allows one elaboration per process,
// and a run that crashes, deadlocks or exhausts memory must not take the
// runner (and the other runs' results) down with it. posix_spawn is
// fork+exec without copying the parent's page tables; the child's output
// goes to a log file that the report quotes when the run fails.
//
// The pool polls its children every 10 ms (waitpid WNOHANG) rather than
// waiting on SIGCHLD: that keeps timeouts, Ctrl-C and the progress line in
// one simple loop, at a cost too small to measure next to a run.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
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
void on_interrupt(int) { g_interrupted = 1; }

// Catches Ctrl-C / SIGTERM for the pool's lifetime, so that the children
// are killed and the temporary files removed before the runner stops.
struct SignalGuard {
  struct sigaction old_int {}, old_term {};
  SignalGuard() {
    g_interrupted = 0;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }
  ~SignalGuard() {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "";
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
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
  size_t k = 0;  // position in `selected`
  pid_t pid = -1;
  Clock::time_point t0;
  double limit_s = 0;
  bool killed = false;
  std::string stats, log;
};

}  // namespace

std::vector<Result> execute(const Suite& s, const std::vector<size_t>& selected, const RunnerOptions& o) {
  std::string dir = o.keep_dir;
  bool temporary = dir.empty();
  if (temporary) {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string tmpl = (base / "relgpu-regress-XXXXXX").string();
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
  Progress progress(o.out, o.tty, selected.size());
  std::vector<Result> results(selected.size());
  std::vector<Child> running;
  const unsigned jobs = std::max(1u, o.jobs);
  size_t next = 0;

  auto start = [&](size_t k) {
    const Run& r = s.runs[selected[k]];
    Child c;
    c.k = k;
    c.t0 = Clock::now();
    c.limit_s = o.timeout_s.value_or(r.timeout_s);
    std::string base = (fs::path(dir) / safe_name(selected[k], r.name)).string();
    c.stats = base + ".stats.json";
    c.log = base + ".log";
    std::remove(c.stats.c_str());  // a kept directory may hold an old one
    std::vector<std::string> args = r.args();
    args.insert(args.begin(), "relgpu");
    args.insert(args.end(), {"--stats", c.stats, "--quiet"});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, c.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    int rc = posix_spawn(&c.pid, o.exe.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
      results[k] = evaluate(r, 127, 0, false, 0, "", "relgpu: cannot start " + o.exe + ": " + strerror(rc) + "\n");
      progress.finished(r, results[k]);
      return;
    }
    running.push_back(std::move(c));
  };

  while (next < selected.size() || !running.empty()) {
    if (g_interrupted) {
      for (auto& c : running) kill(c.pid, SIGKILL);
      for (auto& c : running) waitpid(c.pid, nullptr, 0);
      progress.clear();
      throw Interrupted("interrupted; " + std::to_string(running.size()) + " runs killed");
    }
    while (running.size() < jobs && next < selected.size()) start(next++);
    bool reaped = false;
    std::vector<std::pair<std::string, double>> names;
    for (size_t i = 0; i < running.size();) {
      Child& c = running[i];
      double t = std::chrono::duration<double>(Clock::now() - c.t0).count();
      int st = 0;
      pid_t w = waitpid(c.pid, &st, WNOHANG);
      if (w == c.pid || (w < 0 && errno == ECHILD)) {
        const Run& r = s.runs[selected[c.k]];
        int code = w == c.pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        int sig = w == c.pid && WIFSIGNALED(st) ? WTERMSIG(st) : 0;
        results[c.k] = evaluate(r, code, sig, c.killed, t, slurp(c.stats), slurp(c.log));
        progress.finished(r, results[c.k]);
        running.erase(running.begin() + long(i));
        reaped = true;
        continue;
      }
      if (!c.killed && t > c.limit_s) {
        kill(c.pid, SIGKILL);
        c.killed = true;
      }
      names.emplace_back(s.runs[selected[c.k]].name, t);
      ++i;
    }
    progress.tick(names);
    if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  progress.clear();
  return results;
}

}  // namespace relgpu::app::regress
