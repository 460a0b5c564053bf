// relgpu: command-line entry. libsystemc defines main() and calls sc_main.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <systemc>

#include "app/args.h"
#include "app/campaign.h"
#include "blocks/instance.h"
#include "common/error.h"

namespace relgpu::app {

static const char* kUsage = R"(relgpu: a SystemC/TLM-2.0 GPU model for reliability and energy research

usage: relgpu <command> [options]

commands:
  list                      the workloads, one per line: name, then a description
  run WORKLOAD [options]    run one workload and check its output (relgpu run --help)
  ptx-info FILE.ptx         kernels, registers, basic blocks, reconvergence points, dead bits
  config --explain [PREFIX] every configuration key with its type, default, range and doc
  regress SUITE.json        run a regression suite in parallel, compare stats (relgpu regress --help)
  campaign run SPEC.json --store FILE
                            run many runs, resumable, into an SQLite store; locally or
                            as Slurm job arrays (relgpu campaign --help)
  rf-age --store FILE       NBTI aging of the register files of many chips under the baseline,
                            PV-opt and NBTI-opt bank organisations (relgpu rf-age --help)
  exec [options] -- ./app   run a CUDA program (nvcc -cudart shared) on the simulated GPU (relgpu exec --help)

options:
  -h, --help                this text; `relgpu <command> --help` for a command's options
  --version                 relgpu's git revision (recorded with every campaign run) and SystemC's version

exit status: 0 success, 1 output check failed, 2 bad input, 3 kernel error,
             5 RTL and C++ model differ (relgpu run --rtl-check)
)";

static int dispatch(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (cmd == "--version" || cmd == "version") {
    std::cout << "relgpu " << campaign::revision() << "\nSystemC " << sc_core::sc_release() << "\n";
    return 0;
  }
  Args a(std::vector<std::string>(argv + 2, argv + argc), cmd);
  if (cmd == "list") return cmd_list(a);
  if (cmd == "run") return cmd_run(a);
  if (cmd == "ptx-info") return cmd_ptx_info(a);
  if (cmd == "config") return cmd_config(a);
  if (cmd == "regress") return cmd_regress(a);
  if (cmd == "exec") return cmd_exec(a);
  if (cmd == "campaign") return cmd_campaign(a);
  if (cmd == "rf-age") return cmd_rf_age(a);
  throw InputError("unknown command '" + cmd + "' (see `relgpu --help`)");
}

}  // namespace relgpu::app

// libsystemc's main prints its copyright banner before calling sc_main, so
// the variable that disables it must be set during static initialisation.
static const bool kNoBanner = [] { return setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0) == 0; }();

// A run started by a process pool (regress, campaigns) dies with the pool,
// even one killed with SIGKILL, instead of running on unwatched.
static void die_with_pool() {
  const char* p = std::getenv("RELGPU_POOL_PID");
  if (!p) return;
  long pool = std::strtol(p, nullptr, 10);
  unsetenv("RELGPU_POOL_PID");  // not for this process's own children
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != pool) _exit(137);  // the pool died before prctl
}

int sc_main(int argc, char** argv) {
  die_with_pool();
  try {
    return relgpu::app::dispatch(argc, argv);
  } catch (const relgpu::InputError& e) {
    std::cerr << "relgpu: error: " << e.what() << "\n";
    return 2;
  } catch (const relgpu::KernelError& e) {
    std::cerr << "relgpu: kernel error: " << e.what() << "\n";
    return 3;
  } catch (const relgpu::blocks::RtlMismatch& e) {
    std::cerr << "relgpu: " << e.what();
    return relgpu::blocks::kRtlMismatchExit;
  } catch (const std::exception& e) {
    std::cerr << "relgpu: internal error: " << e.what() << "\n";
    return 4;
  }
}
