// Helpers for the campaign tests: a scratch directory, running the relgpu
// binary through the shell, and reading a store.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "app/campaign.h"

namespace relgpu::campaigntest {

namespace fs = std::filesystem;

struct Shell {
  int status;
  std::string out;  // stdout and stderr
};

inline std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline Shell sh(const std::string& cmd) {
  std::string out = (fs::temp_directory_path() / ("relgpu_campaign_out_" + std::to_string(getpid()))).string();
  int st = std::system((cmd + " >" + out + " 2>&1").c_str());
  std::string text = slurp(out);
  std::remove(out.c_str());
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, text};
}

inline std::string bin() {
  const char* b = std::getenv("RELGPU_BIN");
  return b ? b : "";
}

// A fresh directory, removed at the end of the test.
struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& tag) {
    dir = fs::temp_directory_path() / ("relgpu_campaign_" + tag + "_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  fs::path operator/(const std::string& n) const { return dir / n; }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

// One value from the store (the first column of the first row).
inline std::string query(const std::string& store, const std::string& q) {
  app::sql::Db db(store, false, true);
  app::sql::Stmt s(db, q);
  return s.step() ? s.text(0) : std::string("(no row)");
}

// The stats without what measures the host, for comparing two runs.
inline app::campaign::json deterministic(app::campaign::json s) {
  for (const char* k : {"wall_s", "host", "sim_rate_thread_insn_per_s", "sim_rate_cycle_per_s", "silicon_slowdown"})
    s.erase(k);
  return s;
}

}  // namespace relgpu::campaigntest
