// Shared helpers of the timing-model tests (gpu_*_test.cpp).
#pragma once
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

#include "common/config.h"
#include "gpu/timing_engine.h"
#include "runtime/device.h"
#include "test_paths.h"
#include "workload.h"

namespace relgpu::gputest {

using testpaths::source_dir;

inline std::string config_path(const std::string& name) { return source_dir() + "/configs/" + name + ".json"; }

// A config from configs/<name>.json ("" = code defaults) plus overrides.
inline config::Config make_config(const std::string& name, std::initializer_list<std::string> sets = {}) {
  config::Config cfg;
  if (!name.empty()) cfg.load_file(config_path(name));
  for (auto& s : sets) cfg.set(s);
  return cfg;
}

// A Device running the timing model.
struct TimingDevice {
  explicit TimingDevice(const config::Config& c) : cfg(c), dev(cfg) {
    auto e = std::make_unique<gpu::TimingEngine>(cfg, dev.memory());
    engine = e.get();
    dev.set_engine(std::move(e));
  }
  config::Config cfg;
  runtime::Device dev;
  gpu::TimingEngine* engine = nullptr;
};

struct WorkloadRun {
  wl::Result result;
  uint64_t thread_insn = 0, warp_insn = 0, cycles = 0;
  std::string details;  // every launch's detail JSON, for determinism checks
};

inline WorkloadRun run_workload(runtime::Device& dev, const std::string& name, uint64_t seed) {
  const wl::Workload* w = wl::find(name);
  if (!w) throw std::runtime_error("no workload " + name);
  std::ostringstream log;
  wl::Context ctx{dev, wl::Size::small, seed, wl::ptx_text(name), wl::ptx_path(name), wl::ptxas_info(name), log};
  WorkloadRun r;
  r.result = w->run(ctx);
  for (auto& l : dev.launches()) {
    r.thread_insn += l.thread_insn;
    r.warp_insn += l.warp_insn;
    if (l.detail.contains("gpu_sim_cycle")) r.cycles += l.detail["gpu_sim_cycle"].get<uint64_t>();
    r.details += l.kernel + " " + std::to_string(l.thread_insn) + " " + l.detail.dump() + "\n";
  }
  return r;
}

// Runs fn in a forked child and returns what it returned (or "error: ...").
// SystemC elaborates once per process: a test that needs two GPUs (two
// configs, or two clean runs) runs each in its own child.
inline std::string in_child(const std::function<std::string()>& fn) {
  int fd[2];
  if (pipe(fd) != 0) return "error: pipe";
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    std::string out;
    try {
      out = fn();
    } catch (const std::exception& e) {
      out = std::string("error: ") + e.what();
    }
    for (size_t off = 0; off < out.size();) {
      ssize_t n = write(fd[1], out.data() + off, out.size() - off);
      if (n <= 0) break;
      off += size_t(n);
    }
    close(fd[1]);
    _exit(0);
  }
  close(fd[1]);
  std::string out;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd[0], buf, sizeof buf)) > 0) out.append(buf, size_t(n));
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) out = "error: child crashed; output: " + out;
  return out;
}

}  // namespace relgpu::gputest
