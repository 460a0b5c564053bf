// Asymmetric resilience (thesis Ch6, spec 004 §7): the GPU only detects an
// error in a kernel; the CPU-side runtime checkpoints device buffers and, on
// a detected error, restores them and relaunches kernels, each kernel being
// an atomic transaction. It lives in runtime::Device because every CUDA
// runtime call (the workload drivers' and libcudart's) passes through it in
// issue order, and it owns the memory and the engine it restores and
// relaunches on.
//
// A kernel's buffers are classed from what the launch actually read and
// wrote (func::AccessLog, per allocation): read only = input (I), written
// only = output (O), both = input/output (IO; atomics count as both). This
// stands in for the thesis's hand annotation of its 12 non-relaunchable
// kernels. The sets are known only after the launch, so schemes that copy
// before a kernel snapshot every writable allocation first (simulator memory,
// no simulated time) and keep and charge only what the scheme copies.
//
// Dependency tracking (Fig. 6.8): host copy to b: D(b) = {copy}; kernel k:
// D(o) = {k} for o in O(k), D(io) += k for io in IO(k). Error in k
// (memory_protection): restore the copies heading D(io) for io in IO(k),
// replay those chains and k in issue order; closed over what the replayed
// kernels write, and checked by buffer versions so a replay that would read
// or leave a buffer other than it was is refused (KernelError), never wrong.
// Chain bound L: |D(io)| > L copies io to the host, D(io) = {copy}. Beyond
// Fig. 6.8: once the host or a kernel overwrites a buffer that a kernel in
// some D(x) read, that kernel cannot be relaunched: D(x) is stale, and x is
// copied the same way before a kernel updates it in place (as it was before
// that kernel: the thesis's hand-annotated I/O/IO sets would tell the runtime
// before the launch what our snapshot of the kernel-made buffers stands in
// for), at the chain bound, or when a recovery needs D(x).
#pragma once
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/config.h"
#include "func/access_log.h"
#include "runtime/device.h"

namespace relgpu::runtime {

inline const std::vector<std::string> kResilienceSchemes{"off", "file", "cpu_memory", "input_only",
                                                         "memory_protection"};
inline const config::Key<std::string> kResScheme{
    "resilience.scheme", "off", "",
    "kernel-granularity checkpoint and relaunch (thesis Ch6 Fig. 6.11): file = every writable buffer copied to the "
    "host and written to a file before each kernel; cpu_memory = every writable buffer copied to host memory "
    "before each kernel; input_only = the kernel's inputs (I and IO) before it runs; memory_protection = write "
    "protection plus the host copies as implicit checkpoints: only the chain bound copies IO buffers",
    kResilienceSchemes};
inline const config::Key<int64_t> kResChainBound{
    "resilience.chain_bound", 10, "kernels",
    "memory_protection: when an IO buffer's dependency list D(io) grows past L entries it is copied to the host "
    "(D(io) = {copy}); 0 = unbounded. Thesis sweeps L3-L30 (Fig. 6.13); 10 is our choice inside that range",
    0, 1 << 20};
inline const config::Key<double> kResPcieGbps{
    "resilience.pcie_gbytes_per_s", 12.0, "GB/s",
    "host<->device copy bandwidth of checkpoints, restores and the program's own copies (PCIe 3.0 x16, "
    "pinned memory, measured ~12 GB/s; the thesis's GTX 680/780 sit on PCIe 3.0)",
    0.01, 1000.0};
inline const config::Key<double> kResFileGbps{
    "resilience.file_gbytes_per_s", 0.5, "GB/s",
    "scheme file: the file system's write (checkpoint) and read (restore) bandwidth on top of the PCIe copy "
    "(inferred: a SATA SSD of the thesis's Core i5 host; the thesis gives no number)",
    0.001, 1000.0};
inline const config::Key<double> kResCopyLatencyUs{
    "resilience.copy_latency_us", 10.0, "us",
    "fixed cost of each checkpoint, restore or program copy (a cudaMemcpy call and DMA set-up, ~5-10 us)", 0.0, 1e6};
inline const config::Key<std::string> kResInjectLaunches{
    "resilience.inject_launches", "", "",
    "comma-separated program launch indices (0 = first launch; relaunches do not count) after which one word "
    "the kernel stored is corrupted and the error reported as detected (detection modelled as given, the "
    "thesis's DMR stand-in)"};
inline const config::Key<double> kResInjectProbability{
    "resilience.inject_probability", 0.0, "",
    "probability that each program launch ends with a detected error (thesis P5/P10/P20 = 0.05/0.1/0.2)", 0.0, 1.0};
inline const config::Key<int64_t> kResSeed{
    "resilience.seed", 1, "", "seed of the injection draws (which launches, word and bit)", 0, 1e18};
inline const config::Key<std::string> kResRecovery{
    "resilience.recovery", "replay_set", "",
    "how a detected error is recovered: replay_set = restore the checkpoints and relaunch the dependency set "
    "R (Fig. 6.8); no_restore and faulty_only (restore, relaunch only the faulty kernel) are wrong by design, "
    "ablations that show why each part is needed (the tests show their outputs differ)",
    std::vector<std::string>{"replay_set", "no_restore", "faulty_only"}};

// What the runtime needs from the device: untimed copies (Resilience charges
// the simulated time) and relaunches.
class CheckpointTarget {
 public:
  virtual ~CheckpointTarget() = default;
  virtual std::vector<uint8_t> copy_out(uint64_t base, uint64_t size) = 0;
  virtual void copy_in(uint64_t base, const std::vector<uint8_t>& bytes, uint64_t size) = 0;  // empty bytes: zeros
  virtual void flip_bit(uint64_t addr, unsigned bit) = 0;
  struct Launch {
    const ptx::Module* mod = nullptr;
    const ptx::Function* kernel = nullptr;
    Dim3 grid, block;
    uint64_t dyn_shmem = 0;
    std::vector<uint8_t> params;
  };
  virtual uint64_t relaunch(const Launch& l) = 0;  // its simulated time (ps; 0 in functional mode)
};

class Resilience {
 public:
  Resilience(const config::Config& cfg, func::GlobalMemory& mem, CheckpointTarget& target);
  static bool enabled(const config::Config& cfg) { return cfg.get(kResScheme) != "off"; }
  // Injection keys without a scheme are an InputError naming them.
  static void check(const config::Config& cfg);

  enum class HostWrite { copy, memset, device_copy, init };
  void allocated(uint64_t base, uint64_t size);
  void freed(uint64_t base);
  void host_wrote(uint64_t addr, uint64_t n, HostWrite how);
  void host_read(uint64_t n);  // the program's device-to-host copy (its run time)

  // Around a program launch; `log` is what the launch read and wrote.
  void before_launch();
  // `kernel_ps`: the launch's simulated time (0 in functional mode).
  void after_launch(CheckpointTarget::Launch l, const func::AccessLog& log, const std::string& what, uint64_t kernel_ps);

  nlohmann::ordered_json stats() const;

 private:
  struct Buf {
    uint64_t size = 0;
    uint64_t version = 0;          // op id of its last writer
    bool head_kernel = false;      // D(b) starts with a kernel (b was its output) or a copy
    uint64_t head = 0;             // that op's id
    std::vector<uint8_t> image;    // the copy's content (empty: zeros)
    std::vector<uint64_t> chain;   // kernels that updated b in place since
    bool stale = false;            // a kernel in D(b) read a buffer since overwritten: copy b before replaying
  };
  struct Kernel {
    CheckpointTarget::Launch launch;
    std::vector<std::pair<uint64_t, uint64_t>> reads;  // buffer, version read
    std::vector<uint64_t> writes;
  };
  struct Saved {
    uint64_t version;
    std::vector<uint8_t> bytes;
  };
  uint64_t copy_ps(uint64_t bytes, bool file) const;
  void charge_checkpoint(uint64_t bytes, bool file);
  Buf& buf(uint64_t base, const std::string& what);
  // Copy x to the host, D(x) = {copy}: its device content, or `image` (x as it was before the kernel just run);
  // at_recovery: charged to the recovery.
  void cut(uint64_t x, Buf& b, const std::vector<uint8_t>* image = nullptr, bool at_recovery = false);
  // w is overwritten (by the host or the kernel just run): the D(x) with a kernel that read w are stale;
  // freed: also those with a kernel that wrote w.
  void mark_readers_of(uint64_t w, bool freed = false);
  bool draw_injection();
  void inject(const func::AccessLog& log);
  void recover(uint64_t k, const std::vector<uint64_t>& io);

  func::GlobalMemory& mem_;
  CheckpointTarget& target_;
  std::string scheme_, recovery_;
  uint64_t bound_;
  double pcie_, file_, latency_ps_, probability_;
  std::set<uint64_t> inject_at_;
  std::mt19937_64 rng_;

  std::map<uint64_t, Buf> bufs_;
  std::map<uint64_t, Kernel> kernels_;  // by op id
  std::map<uint64_t, Saved> pre_;       // snapshot before the current launch (see before_launch)
  std::map<uint64_t, Saved> ckpt_;      // the current launch's checkpoint
  std::map<std::string, bool> kernel_io_;  // per kernel name: did a launch update a buffer in place
  uint64_t next_id_ = 0, launches_ = 0;

  // stats
  uint64_t host_copy_ps_ = 0, checkpoints_ = 0, checkpoint_bytes_ = 0, checkpoint_ps_ = 0, bound_copies_ = 0;
  uint64_t overwrite_copies_ = 0, recovery_copies_ = 0;
  uint64_t launches_with_io_ = 0, injected_ = 0, recoveries_ = 0, replayed_ = 0, restore_bytes_ = 0;
  uint64_t restore_ps_ = 0, max_chain_ = 0, kernel_ps_ = 0, replay_ps_ = 0;
};

}  // namespace relgpu::runtime
