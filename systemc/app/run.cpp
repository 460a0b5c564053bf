// `relgpu run WORKLOAD`: run one workload, check its output, print a summary,
// optionally write the stats JSON.
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "app/args.h"
#include "app/stats.h"
#include "blocks/instance.h"
#include "common/config.h"
#include "gpu/mode.h"
#include "runtime/device.h"
#include "workload.h"

namespace relgpu::app {

static const char* kRunHelp = R"(usage: relgpu run WORKLOAD [options]

Runs one workload (see `relgpu list`), checks its output against the CPU
reference, and prints a summary. Exits 1 if the output check fails.

options:
  --size small|default   input size: small for tests, default for experiments (default: default)
  --config FILE          JSON configuration (see `relgpu config --explain`)
  --set KEY=VALUE        override one configuration key; repeatable; applied after --config
  --mode timing|functional  simulation mode (default: timing; same as --set sim.mode=...)
  --seed N               seed for the workload's input data (default: 1)
  --stats FILE           write the stats as JSON
  --stats-compact        write them on one line, without indentation (for tools)
  --no-launch-detail     leave each launch's timing detail out of the stats (the run's
                         totals stay); most of a short timing run's stats are that detail
  --csv FILE             append one row of headline stats (header first if FILE is new), for sweeps
  --quiet                print nothing but errors
  --power                run the chip power model (timing mode; same as --set power.enable=true):
                         energy and average power per component in the stats' 'power' section
  --power-trace FILE.csv also write the per-SM power trace (implies --power): one row per SM per
                         --power-trace-interval N of its cycles (default 100; 1 = every cycle);
                         scripts/report power-trace FILE.csv plots it
  --pdn                  also run the power-delivery network (implies --power; same as --set
                         pdn.enable=true): per-SM supply every cycle, droop statistics in the
                         stats' 'pdn' section
  --voltage-trace FILE.csv  also write the voltage trace (implies --pdn): one row per
                         --voltage-trace-interval N steps (default 10), each SM's lowest voltage
                         (--set pdn.trace_nodes=true adds every grid node's: scripts/report
                         voltage-map FILE.csv draws the map at the deepest droop)
  --config-hash HASH     run only if the effective config hashes to HASH, else exit 2
                         (campaigns pass it, so no result is stored under another config)
  -h, --help             this text

RTL in the loop (timing mode; blocks the config does not enable are not instantiated):
  --rtl LIST             run these blocks as their Verilated RTL instead of the C++ models, in
                         every SM: a comma-separated list of patching_unit, loscache_table,
                         bank_org_table, droop_predictor, or 'all' (same as --set sim.rtl=LIST).
                         The RTL is built with configs/blocks/<block>.json; a config whose block
                         parameters differ is an input error (exit 2)
  --rtl-check            run the C++ model and the RTL side by side and compare every output
                         every cycle (the blocks in --rtl, or all blocks without --rtl); the
                         first mismatch stops the run with a report (time, SM, block, inputs,
                         both outputs) and exit status 5
  --trace-rtl FILE.fst   write the RTL waveforms, one FST file per block instance:
                         FILE.sm<N>.<block>.fst (needs --rtl or --rtl-check)

exit status: 0 pass, 1 output check failed, 2 bad input, 3 kernel error,
             5 --rtl-check mismatch
)";

RunCommand parse_run(Args& a) {
  RunCommand c;
  while (!a.done()) {
    std::string opt = a.next_opt(), arg = a.arg();
    auto v = [&] { return a.optval(opt); };
    if (opt == "-h" || opt == "--help") {
      c.help = true;
      return c;
    } else if (opt == "--size") c.size = v();
    else if (opt == "--config") c.config_file = v();
    else if (opt == "--set") c.sets.push_back(v());
    else if (opt == "--mode") c.sets.push_back(gpu::mode_option("run", v()));
    else if (opt == "--seed") c.seed = parse_u64(v(), "--seed");
    else if (opt == "--stats") c.stats_file = v();
    else if (opt == "--stats-compact") c.stats_compact = true;
    else if (opt == "--no-launch-detail") c.launch_detail = false;
    else if (opt == "--csv") c.csv_file = v();
    else if (opt == "--quiet") c.quiet = true;
    else if (opt == "--rtl") c.sets.push_back("sim.rtl=" + v());
    else if (opt == "--rtl-check") c.sets.push_back("sim.rtl_check=true");
    else if (opt == "--trace-rtl") c.sets.push_back("sim.trace_rtl=" + v());
    else if (opt == "--power") c.sets.push_back("power.enable=true");
    else if (opt == "--power-trace") c.sets.push_back("power.enable=true"), c.sets.push_back("power.trace=" + v());
    else if (opt == "--power-trace-interval") c.sets.push_back("power.trace_interval=" + v());
    else if (opt == "--pdn") c.sets.push_back("power.enable=true"), c.sets.push_back("pdn.enable=true");
    else if (opt == "--voltage-trace")
      c.sets.push_back("power.enable=true"), c.sets.push_back("pdn.enable=true"), c.sets.push_back("pdn.trace=" + v());
    else if (opt == "--voltage-trace-interval") c.sets.push_back("pdn.trace_interval=" + v());
    else if (opt == "--config-hash") c.config_hash = v();
    else if (opt.rfind("-", 0) == 0) a.unknown(arg);
    else if (c.workload.empty()) c.workload = arg;
    else throw InputError("run: one workload at a time (got '" + c.workload + "' and '" + arg + "')");
  }
  if (c.workload.empty()) throw InputError("run: missing WORKLOAD (see `relgpu list`)");
  if (!wl::find(c.workload))
    throw InputError("run: unknown workload '" + c.workload + "'; `relgpu list` shows the workloads");
  if (c.size != "small" && c.size != "default")
    throw InputError("run: --size must be 'small' or 'default', got '" + c.size + "'");
  return c;
}

config::Config run_config(const RunCommand& c) {
  config::Config cfg;
  if (!c.config_file.empty()) cfg.load_file(c.config_file);
  for (auto& s : c.sets) cfg.set(s);
  blocks::check_rtl_keys(cfg);
  return cfg;
}

int cmd_run(Args& a) {
  RunCommand c = parse_run(a);
  if (c.help) {
    std::cout << kRunHelp;
    return 0;
  }
  const std::string& name = c.workload;
  const wl::Workload* w = wl::find(name);
  wl::Size size = c.size == "small" ? wl::Size::small : wl::Size::standard;
  const uint64_t seed = c.seed;
  config::Config cfg = run_config(c);
  if (!c.config_hash.empty()) {
    std::string h = hash_hex(cfg.effective().dump());
    if (h != c.config_hash)
      throw InputError("run: the effective config (hash " + h + ") is not the one expected (--config-hash " +
                       c.config_hash + "): was a config file edited, or is this another relgpu build?");
  }

  runtime::Device dev(cfg);
  gpu::use_configured_engine(dev, cfg);
  std::ostringstream log;
  wl::Context ctx{dev, size, seed, wl::ptx_text(name), wl::ptx_path(name), wl::ptxas_info(name), log};
  auto t0 = std::chrono::steady_clock::now();
  wl::Result r = w->run(ctx);
  dev.finish();  // the timed L2 flush (l2.flush=end) belongs to the run
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  RunInfo info{name, c.size, cfg.get(gpu::kMode), seed, wall, r.pass, r.message, c.launch_detail};
  auto stats = run_stats(info, dev, cfg);
  if (!c.stats_file.empty()) write_json(c.stats_file, stats, c.stats_compact);
  if (!c.csv_file.empty()) append_csv(c.csv_file, stats, c.config_file);
  if (!c.quiet) {
    print_summary(std::cout, info, stats, log.str());
    // --rtl-check: how much the comparison covered (a block the run never
    // clocks would pass it trivially).
    for (const auto& [block, t] : blocks::check_tally())
      std::cout << "  rtl check         " << block << ": " << grouped(t.cycles) << " cycles of " << t.instances
                << " instances compared with the C++ model, no mismatch\n";
    std::set<std::string> notes;  // once per kernel
    for (const auto& l : dev.launches())
      if (std::string n = runtime::register_note(l); !n.empty() && notes.insert(n).second)
        std::cerr << "relgpu: note: " << n << "\n";
  }
  return r.pass ? 0 : 1;
}

}  // namespace relgpu::app
