// Finding and running ptxas, and its per-PTX cache (ptx/ptxas.h).
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/error.h"
#include "ptx/ptxas.h"

extern char** environ;

namespace relgpu::ptx {

namespace {

bool executable(const std::string& p) {
  struct stat st;
  return !p.empty() && stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
}

// Runs argv, returns its exit status (-1 if it could not start) and its
// stdout and stderr together. LD_PRELOAD is dropped from the environment:
// under `relgpu exec` it would load our libcudart.so.13 into ptxas.
int run_capture(const std::vector<std::string>& argv, std::string& out) {
  std::vector<std::string> env_keep;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) env_keep.push_back(*e);
  std::vector<char*> envp, args;
  for (auto& s : env_keep) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);
  int fd[2];
  if (pipe(fd) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
  posix_spawn_file_actions_addclose(&fa, fd[0]);
  posix_spawn_file_actions_addclose(&fa, fd[1]);
  pid_t pid;
  int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(fd[1]);
  if (rc != 0) {
    close(fd[0]);
    return -1;
  }
  char buf[4096];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) != 0;) {
    if (n > 0) out.append(buf, size_t(n));
    else if (errno != EINTR) break;
  }
  close(fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// "Cuda compilation tools, release 13.0, V13.0.88" from `ptxas --version`.
std::string ptxas_version(const std::string& ptxas) {
  std::string out;
  if (run_capture({ptxas, "--version"}, out) != 0) return "";
  std::istringstream in(out);
  std::string v;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("Cuda compilation tools", 0) == 0) v = line;
  return v;
}

// sm_75, or the PTX's own .target when that is higher (ptxas refuses to
// compile a module for an older SM than its target).
std::string arch_for(const std::string& ptx) {
  size_t p = ptx.find(".target");
  if (p == std::string::npos) return "sm_75";
  size_t s = ptx.find("sm_", p);
  size_t eol = ptx.find('\n', p);
  if (s == std::string::npos || s > eol) return "sm_75";
  unsigned v = 0;
  for (size_t i = s + 3; i < ptx.size() && std::isdigit(static_cast<unsigned char>(ptx[i])); ++i) v = v * 10 + unsigned(ptx[i] - '0');
  return v > 75 ? "sm_" + std::to_string(v) : "sm_75";
}

std::string hash_hex(const std::string& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

bool make_dirs(const std::string& path) {
  for (size_t p = 1; p <= path.size(); ++p)
    if (p == path.size() || path[p] == '/') {
      std::string d = path.substr(0, p);
      if (mkdir(d.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
  return true;
}

}  // namespace

std::string find_ptxas(const std::string& setting, std::string& why) {
  if (setting == "off") {
    why = "ptxas is off (cudart.ptxas=off)";
    return "";
  }
  if (setting != "auto") {
    if (executable(setting)) return setting;
    why = "ptxas '" + setting + "' is not an executable file";
    return "";
  }
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream in(path);
    for (std::string d; std::getline(in, d, ':');)
      if (!d.empty()) dirs.push_back(d);
  }
  if (const char* cuda = std::getenv("CUDA_HOME"); cuda && *cuda) dirs.push_back(std::string(cuda) + "/bin");
  dirs.push_back("/usr/local/cuda/bin");
  for (const std::string& d : dirs)
    if (executable(d + "/ptxas")) return d + "/ptxas";
  why = "ptxas not found in PATH, $CUDA_HOME/bin or /usr/local/cuda/bin";
  return "";
}

std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/relgpu/ptxas";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/relgpu/ptxas";
  const char* t = std::getenv("TMPDIR");
  return std::string(t && *t ? t : "/tmp") + "/relgpu-ptxas-" + std::to_string(getuid());
}

std::optional<PtxasInfo> run_ptxas(const std::string& ptxas, const std::string& ptx_text,
                                   const std::string& cache_dir, std::string& why) {
  std::string version = ptxas_version(ptxas);
  if (version.empty()) {
    why = "'" + ptxas + " --version' failed";
    return std::nullopt;
  }
  const std::string arch = arch_for(ptx_text);
  std::string cached;
  if (!cache_dir.empty()) {
    cached = cache_dir + "/" + hash_hex(version + "\n" + arch + "\n" + ptx_text) + ".ptxinfo";
    std::ifstream f(cached);
    if (f) {
      std::stringstream ss;
      ss << f.rdbuf();
      try {
        PtxasInfo info = from_json(ss.str(), cached);
        if (info.version == version && info.arch == arch) return info;
      } catch (const InputError&) {
        // A damaged cache entry: run ptxas again and replace it.
      }
    }
  }
  const char* t = std::getenv("TMPDIR");
  std::string tmpl = std::string(t && *t ? t : "/tmp") + "/relgpu-ptxas-XXXXXX.ptx";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back(0);
  int fd = mkstemps(name.data(), 4);
  if (fd < 0) {
    why = "cannot create a temporary file in " + std::string(t && *t ? t : "/tmp");
    return std::nullopt;
  }
  bool wrote = write(fd, ptx_text.data(), ptx_text.size()) == ssize_t(ptx_text.size());
  close(fd);
  std::string log;
  int rc = wrote ? run_capture({ptxas, "-v", "-arch=" + arch, "-o", "/dev/null", name.data()}, log) : -1;
  unlink(name.data());
  if (rc != 0) {
    std::string first = log.substr(0, log.find('\n'));
    why = ptxas + " failed on the PTX" + (first.empty() ? "" : ": " + first);
    return std::nullopt;
  }
  PtxasInfo info;
  try {
    info = parse_ptxas_log(log, ptxas);
  } catch (const InputError& e) {
    why = e.what();
    return std::nullopt;
  }
  info.version = version;
  info.arch = arch;
  if (!cached.empty() && make_dirs(cache_dir)) {
    // Written whole, then renamed: a concurrent reader never sees half a file.
    std::string tmp = cached + "." + std::to_string(getpid());
    std::ofstream(tmp) << to_json(info);
    if (std::rename(tmp.c_str(), cached.c_str()) != 0) std::remove(tmp.c_str());
  }
  return info;
}

}  // namespace relgpu::ptx
