// `relgpu exec [options] -- PROGRAM [ARGS...]`: runs an unmodified CUDA
// program on the simulated GPU. The program must be built with
// `nvcc -cudart shared`; exec puts relgpu's libcudart.so.13 first on the
// library path, passes the configuration in the environment
// (cudart/runtime.h lists the variables) and replaces itself with the
// program, which so runs in a fresh process (SystemC elaborates once per
// process). The exit status is the program's.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/args.h"
#include "common/config.h"
#include "common/error.h"
#include "cudart/elf.h"
#include "cudart/keys.h"
#include "gpu/mode.h"

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
extern "C" void __asan_init();
#endif

namespace relgpu::app {

namespace fs = std::filesystem;

// A sanitizer build's libcudart.so.13 (scripts/test --sanitize) needs the
// ASan runtime first among the uninstrumented program's libraries: its path
// to preload, or "" in a normal build.
static std::string asan_runtime() {
#if defined(__SANITIZE_ADDRESS__)
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&__asan_init), &info) && info.dli_fname) return info.dli_fname;
#endif
  return "";
}

static const char* kExecHelp = R"(usage: relgpu exec [options] [--] PROGRAM [ARGS...]

Runs a CUDA program on the simulated GPU, unmodified. Build it with the
shared CUDA runtime and with PTX in it:
  nvcc -cudart shared -gencode arch=compute_75,code=compute_75 app.cu -o app
  relgpu exec --mode functional --stats app.json -- ./app
Its CUDA calls go to relgpu's libcudart.so.13; device printf prints; a
kernel fault prints relgpu's message and reaches the program as a CUDA error.

options:
  --config FILE          JSON configuration (see `relgpu config --explain`)
  --set KEY=VALUE        override one configuration key; repeatable; applied after --config
  --mode timing|functional  simulation mode (default: timing; same as --set sim.mode=...)
  --stats FILE           write the stats JSON, one record per kernel launch, at exit and at cudaDeviceReset
  --dump-ptx DIR         write the program's PTX into DIR; error messages then point into those files
  --quiet                no summary line at exit
  -h, --help             this text

exit status: the program's; 2 when relgpu cannot start it (bad option or
configuration, a program linked with the static CUDA runtime or without PTX,
an unwritable --stats file, ...) or cannot write the stats it was asked for
)";

// The directory holding libcudart.so.13: $RELGPU_CUDART_DIR, else ../lib
// beside this executable (<build>/bin/relgpu and <build>/lib).
static std::string cudart_dir() {
  if (const char* d = std::getenv("RELGPU_CUDART_DIR"); d && *d) return d;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw InputError("exec: cannot find the relgpu executable's directory; set RELGPU_CUDART_DIR");
  return (exe.parent_path().parent_path() / "lib").string();
}

static std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t a = 0;
  while (a <= p.size()) {
    size_t b = p.find(':', a);
    if (b == std::string::npos) b = p.size();
    std::string dir = p.substr(a, b - a);
    std::string cand = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (access(cand.c_str(), X_OK) == 0) return cand;
    a = b + 1;
  }
  throw InputError("exec: program '" + name + "' not found in PATH");
}

static void set_or_unset(const char* var, const std::string& value) {
  if (value.empty()) unsetenv(var);
  else setenv(var, value.c_str(), 1);
}

int cmd_exec(Args& a) {
  std::string config_file, stats_file, dump_dir;
  std::vector<std::string> sets;
  bool quiet = false;
  std::vector<std::string> prog;
  while (!a.done()) {
    std::string opt = a.next_opt(), arg = a.arg();
    if (arg == "--") break;
    if (arg.empty() || arg[0] != '-') {
      prog.push_back(arg);
      break;
    }
    auto v = [&] { return a.optval(opt); };
    if (opt == "-h" || opt == "--help") {
      std::cout << kExecHelp;
      return 0;
    } else if (opt == "--config") config_file = v();
    else if (opt == "--set") sets.push_back(v());
    else if (opt == "--mode") sets.push_back(gpu::mode_option(a.command(), v()));
    else if (opt == "--stats") stats_file = v();
    else if (opt == "--dump-ptx") dump_dir = v();
    else if (opt == "--quiet") quiet = true;
    else a.unknown(arg);
  }
  while (!a.done()) prog.push_back(a.next());
  if (prog.empty()) throw InputError("exec: missing PROGRAM (usage: relgpu exec [options] -- ./app args)");

  // The configuration is checked here, so that a mistake stops before the program starts.
  config::Config cfg;
  if (!config_file.empty()) cfg.load_file(config_file);
  for (auto& s : sets) {
    if (s.find('\n') != std::string::npos) throw InputError("exec: --set value contains a newline: '" + s + "'");
    cfg.set(s);
  }

  std::string lib_dir = cudart_dir();
  if (access((lib_dir + "/libcudart.so.13").c_str(), R_OK) != 0)
    throw InputError("exec: relgpu's CUDA runtime " + lib_dir +
                     "/libcudart.so.13 is missing; build it (cmake --build BUILD --target relgpu_cudart) or set "
                     "RELGPU_CUDART_DIR to its directory");

  std::string path = find_program(prog[0]);
  if (access(path.c_str(), X_OK) != 0)
    throw InputError("exec: " + path + ": " + std::strerror(errno));
  cudart::ElfInfo elf = cudart::read_elf(path);
  if (elf.is_elf) {
    std::string needed = elf.cudart_needed();
    if (elf.static_cudart())
      throw InputError("exec: " + path +
                       " is linked with the static CUDA runtime (nvcc's default, -cudart static), so its CUDA "
                       "calls would bypass relgpu. Rebuild it with -cudart shared, e.g.\n  nvcc -cudart shared "
                       "-gencode arch=compute_75,code=compute_75 app.cu -o app");
    if (!needed.empty() && needed != "libcudart.so.13")
      throw InputError("exec: " + path + " needs " + needed +
                       ", another CUDA version's runtime; relgpu stands in for libcudart.so.13 (CUDA 13): "
                       "rebuild it with nvcc 13 and -cudart shared");
    if (needed.empty())
      std::cerr << "relgpu exec: note: " << path
                << " neither needs libcudart.so.13 nor contains CUDA code; running it anyway (its libraries may)\n";
  }

  std::string ld = lib_dir;
  if (const char* old = std::getenv("LD_LIBRARY_PATH"); old && *old) ld += std::string(":") + old;
  setenv("LD_LIBRARY_PATH", ld.c_str(), 1);
  // DT_RPATH (unlike DT_RUNPATH) is searched before LD_LIBRARY_PATH and
  // could name NVIDIA's runtime: preload ours, which then satisfies the
  // program's need for libcudart.so.13 by its soname.
  std::string pre = asan_runtime();
  if (!elf.rpath.empty()) pre += (pre.empty() ? "" : ":") + lib_dir + "/libcudart.so.13";
  if (!pre.empty()) {
    if (const char* old = std::getenv("LD_PRELOAD"); old && *old) pre += std::string(":") + old;
    setenv("LD_PRELOAD", pre.c_str(), 1);
  }
  std::string set_text;
  for (auto& s : sets) set_text += s + "\n";
  set_or_unset("RELGPU_CONFIG", config_file.empty() ? "" : fs::absolute(config_file).string());
  set_or_unset("RELGPU_SET", set_text);
  set_or_unset("RELGPU_STATS", stats_file.empty() ? "" : fs::absolute(stats_file).string());
  if (!stats_file.empty()) {
    std::error_code ec;
    fs::remove(stats_file, ec);  // a stale file must not pass for this run's
    // Found now rather than after the whole run.
    std::ofstream probe(stats_file);
    if (!probe)
      throw InputError("exec: --stats " + stats_file + ": cannot write the stats file (" + std::strerror(errno) + ")");
    probe.close();
    fs::remove(stats_file, ec);
  }
  if (!dump_dir.empty()) {
    std::error_code ec;
    fs::create_directories(dump_dir, ec);
    if (ec) throw InputError("exec: --dump-ptx " + dump_dir + ": " + ec.message());
  }
  set_or_unset("RELGPU_DUMP_PTX", dump_dir.empty() ? "" : fs::absolute(dump_dir).string());
  set_or_unset("RELGPU_QUIET", quiet ? "1" : "");
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);

  std::vector<char*> argv;
  for (auto& s : prog) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  execv(path.c_str(), argv.data());
  throw InputError("exec: cannot run " + path + ": " + std::strerror(errno));
}

}  // namespace relgpu::app
