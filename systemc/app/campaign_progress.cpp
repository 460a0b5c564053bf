// The campaign's progress: done / failed / running / total, rate and ETA.
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "app/campaign.h"

namespace relgpu::app::campaign {

static double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static std::string hms(double s) {
  long t = long(s + 0.5);
  char b[32];
  std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  return b;
}

Progress::Progress(std::ostream* out, bool tty, const Counts& start, double every_s)
    : out_(out), tty_(tty), c_(start), every_s_(every_s) {
  start_finished_ = c_.done + c_.failed;
  t0_ = last_print_ = now_s();
}

std::string Progress::line() const {
  std::string s = "done " + std::to_string(c_.done) + "  failed " + std::to_string(c_.failed) + "  running " +
                  std::to_string(running_) + "  of " + std::to_string(c_.total);
  // The rate counts the runs finished by this command only, so a resumed
  // campaign's ETA is not flattered by the runs done before.
  int64_t now_done = c_.done + c_.failed - start_finished_;
  double t = now_s() - t0_;
  if (now_done > 0 && t > 0) {
    double rate = now_done / t;
    char b[64];
    std::snprintf(b, sizeof b, "  %.2f runs/s", rate);
    s += b;
    int64_t left = c_.total - c_.done - c_.failed;
    if (left > 0) s += "  ETA " + hms(left / rate);
  }
  return s;
}

void Progress::finished(const std::string& name, const Record& r) {
  if (r.status == "done") ++c_.done, c_.unmet += r.verdict == "fail";
  else ++c_.failed;
  c_.queued = std::max<int64_t>(0, c_.queued - 1);
  changed_ = true;
  if (!out_) return;
  if (r.status != "done" || r.verdict == "fail") {
    clear();
    *out_ << (r.status == "done" ? "not as expected: " : "failed: ") << name << ": " << r.message << "\n";
    out_->flush();
  }
  if (tty_) draw();
}

void Progress::set_counts(const Counts& c) {
  if (c.done != c_.done || c.failed != c_.failed) changed_ = true;
  c_ = c;
}

void Progress::tick() {
  if (!out_) return;
  if (tty_) {
    if (now_s() - last_draw_ >= 0.1) draw();
  } else if (changed_ && now_s() - last_print_ >= every_s_) {
    *out_ << line() << "\n" << std::flush;
    last_print_ = now_s();
    changed_ = false;
  }
}

void Progress::draw() {
  std::string s = line();
  winsize ws{};
  size_t width = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
  if (s.size() >= width) s = s.substr(0, width > 1 ? width - 1 : 0);
  *out_ << "\r" << s << "\x1b[K" << std::flush;
  drawn_ = true;
  last_draw_ = now_s();
}

void Progress::clear() {
  if (out_ && tty_ && drawn_) *out_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

int summary(Store& store, const std::string& campaign, const Options& o, double wall_s) {
  Counts c = store.counts(campaign);
  char wall[32];
  std::snprintf(wall, sizeof wall, "%.1f s", wall_s);
  bool all = c.done == c.total && c.unmet == 0;
  if (o.out) {
    if (all) {
      *o.out << campaign << ": all " << c.total << " runs done" << (c.total ? " as expected" : "") << " (" << wall
             << " this time); store " << o.store_path << "\n";
    } else {
      *o.out << campaign << ": " << c.done << " of " << c.total << " runs done";
      if (c.unmet) *o.out << " (" << c.unmet << " not as expected)";
      if (c.failed) *o.out << ", " << c.failed << " failed";
      int64_t left = c.total - c.done - c.failed;
      if (left) *o.out << ", " << left << " not finished";
      *o.out << " (" << wall << " this time); `relgpu campaign status " << o.store_path << "` lists them\n";
    }
    o.out->flush();
  }
  return all ? 0 : 1;
}

}  // namespace relgpu::app::campaign
