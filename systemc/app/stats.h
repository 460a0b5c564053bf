// The stats of one run, as JSON and as a human summary.
#pragma once
#include <ostream>
#include <string>

#include "common/config.h"
#include "runtime/device.h"

namespace relgpu::app {

struct RunInfo {
  std::string workload, size, mode;
  uint64_t seed;
  double wall_s;
  bool pass;
  std::string check_message;
  bool launch_detail = true;  // each launch's "detail" object in "launches"
};

// Deterministic for a given seed and config, except the fields that
// measure the host (wall_s, sim_rate_*), which are grouped under "host".
config::json run_stats(const RunInfo& r, const runtime::Device& dev, const config::Config& cfg);
// Indented for people; `compact`: one line, for tools (campaigns store it as is).
void write_json(const std::string& path, const config::json& j, bool compact = false);
// Appends one row of headline stats to a CSV file (with a header row if the
// file is new or empty); `config_file` goes in the first column.
void append_csv(const std::string& path, const config::json& stats, const std::string& config_file);
// 1234567 -> "1,234,567".
std::string grouped(uint64_t v);
void print_summary(std::ostream& os, const RunInfo& r, const config::json& stats, const std::string& log);

}  // namespace relgpu::app
