// A small command-line reader: subcommands with long options, each option
// named in errors, `--help` everywhere.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/error.h"

namespace relgpu::app {

class Args {
 public:
  Args(std::vector<std::string> a, std::string cmd) : a_(std::move(a)), cmd_(std::move(cmd)) {}
  bool done() const { return i_ >= a_.size(); }
  const std::string& peek() const { return a_[i_]; }
  std::string next() { return a_[i_++]; }
  // The value of an option like `--size small` or `--size=small`.
  std::string value(const std::string& opt) {
    if (done()) throw InputError(cmd_ + ": option " + opt + " needs a value (see `relgpu " + cmd_ + " --help`)");
    return next();
  }
  static bool split(const std::string& arg, std::string& opt, std::string& val) {
    auto eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) return false;
    opt = arg.substr(0, eq);
    val = arg.substr(eq + 1);
    return true;
  }
  // Reads the next argument as an option and returns its name: "--size" for
  // both `--size x` and `--size=x`; optval() then gives the value. An
  // argument that is not an option comes back as it is (see arg()).
  std::string next_opt() {
    arg_ = next();
    inline_.reset();
    std::string o, v;
    if (split(arg_, o, v)) {
      inline_ = v;
      return o;
    }
    return arg_;
  }
  std::string optval(const std::string& opt) { return inline_ ? *inline_ : value(opt); }
  bool opt_inline() const { return inline_.has_value(); }
  const std::string& arg() const { return arg_; }
  [[noreturn]] void unknown(const std::string& arg) const {
    throw InputError(cmd_ + ": unknown option '" + arg + "' (see `relgpu " + cmd_ + " --help`)");
  }
  const std::string& command() const { return cmd_; }

 private:
  std::vector<std::string> a_;
  std::string cmd_;
  size_t i_ = 0;
  std::string arg_;                    // the argument next_opt() read
  std::optional<std::string> inline_;  // its `=value`, if any
};

uint64_t parse_u64(const std::string& s, const std::string& what);
// 16 hex digits of the 64-bit FNV-1a hash of `text` (config identities).
std::string hash_hex(const std::string& text);

// `relgpu run`'s command line, parsed (app/run.cpp). Campaigns use it to
// compute a run's effective config exactly as the run itself will.
struct RunCommand {
  std::string workload, size = "default", config_file, stats_file, csv_file;
  std::string config_hash;        // --config-hash: refuse to run under any other effective config
  std::vector<std::string> sets;  // KEY=VALUE in command-line order (--mode, --rtl... included)
  uint64_t seed = 1;
  bool quiet = false, help = false, stats_compact = false, launch_detail = true;
};
RunCommand parse_run(Args& a);
// --config, then each --set in order; checks the RTL keys.
config::Config run_config(const RunCommand& c);

int cmd_list(Args& a);
int cmd_run(Args& a);
int cmd_ptx_info(Args& a);
int cmd_config(Args& a);
int cmd_regress(Args& a);  // app/regress.cpp
int cmd_exec(Args& a);     // app/exec.cpp
int cmd_campaign(Args& a); // app/campaign.cpp
int cmd_rf_age(Args& a);   // app/rf_age.cpp

}  // namespace relgpu::app
