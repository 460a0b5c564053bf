// Host-side runtime API with CUDA runtime semantics. Each call maps directly
// to one CUDA runtime call, so the CUDA ABI layer (cudart/) is a thin shim:
//   load_module       <- __cudaRegisterFatBinary (PTX text from the fatbin)
//   malloc / free     <- cudaMalloc / cudaFree
//   memcpy_*          <- cudaMemcpy (H2D, D2H, D2D)
//   memset            <- cudaMemset
//   symbol            <- cudaMemcpyToSymbol / FromSymbol / cudaGetSymbolAddress
//   launch            <- cudaLaunchKernel (args[i] points at parameter i)
//   synchronize       <- cudaDeviceSynchronize
// Errors: bad input throws InputError, kernel faults throw KernelError; the
// CUDA shim turns both into cudaError_t codes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/config.h"
#include "ptx/ir.h"
#include "ptx/ptxas.h"

namespace relgpu::func {
class GlobalMemory;
struct AccessLog;
}  // namespace relgpu::func

namespace relgpu::runtime {

using DevPtr = uint64_t;

// Launch limits checked by Device::launch (sm_75 values).
inline const config::Key<int64_t> kMaxThreadsPerBlock{
    "gpu.max_threads_per_block", 1024, "threads", "largest CTA a launch may ask for", 32, 1024};
inline const config::Key<int64_t> kSharedBytesPerBlock{
    "gpu.shared_bytes_per_block", 49152, "bytes",
    "static + dynamic shared memory a CTA may use (48 KiB without opt-in)", 0, 1 << 20};

// Registers per thread an SM allocates (occupancy, RF rows): ptxas's count
// where the module comes with one (as GPGPU-Sim reads its ptxinfo file), or
// relgpu's allocator's count, an ablation (ptx::Function::regs_used).
inline const config::Key<std::string> kRegsPerThread{
    "gpu.regs_per_thread", "ptxas", "",
    "registers per thread each launch allocates: ptxas = ptxas's count where known (GPGPU-Sim's ptxinfo), else "
    "relgpu's allocator's; allocator = always relgpu's allocator's count (PTX registers; an ablation: fewer "
    "registers for most kernels, so more warps or more unused RF rows)",
    std::vector<std::string>{"ptxas", "allocator"}};
// Which of a kernel's registers stay outside the register banks when our
// allocator needs more than ptxas's count (ptx::fit_to_ptxas).
inline const config::Key<std::string> kRegsOutside{
    "gpu.regs_outside", "constants", "",
    "where relgpu's allocator needs more registers than ptxas's count, which physical registers fall outside "
    "the banks (no bank timing, no RF faults): constants = the constant operands first (parameters and their "
    "copies, which SASS reads from the constant bank; ptx::fit_to_ptxas); highest = the plain allocation's "
    "highest-numbered, whatever they hold (an ablation: relgpu before 2026-11-30)",
    std::vector<std::string>{"constants", "highest"}};

class Resilience;

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

// One record per kernel launch, also the stats JSON's per-launch entry.
struct LaunchRecord {
  std::string kernel;
  Dim3 grid, block;
  uint64_t dyn_shmem = 0;
  // Registers per thread (ptx::Function): what the launch allocated, ptxas's
  // count (0 = not known) and our allocator's.
  uint32_t regs_per_thread = 0, regs_ptxas = 0, regs_allocator = 0;
  uint64_t warp_insn = 0;     // warp instructions issued
  uint64_t thread_insn = 0;   // threads active in the SIMT mask per issued warp instruction (GPGPU-Sim's gpu_sim_insn)
  nlohmann::ordered_json detail;  // per-class counts and engine-specific stats
  nlohmann::ordered_json occupancy;  // timing mode: CTAs per SM and what limits them (sm/sm_core.h)
  bool replay = false;            // a relaunch by the checkpoint runtime's recovery (resilience.h)
};

// Simulated time of a launch (timing mode; 0 in functional mode).
uint64_t sim_time_ps(const LaunchRecord& r);

// The launch's register counts as stats fields: regs_per_thread (allocated),
// regs_ptxas (null when not known), regs_allocator; in timing mode also
// "occupancy", the CTAs per SM those registers and the other resources allow.
nlohmann::ordered_json register_stats(const LaunchRecord& r);
// One line for the user when the launch did not use ptxas's count as is (no
// ptxas count, or our allocator needs more); "" otherwise.
std::string register_note(const LaunchRecord& r);

// Executes launches. Functional now; the SystemC timing model is another Engine.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual void launch(const ptx::Module& mod, const ptx::Function& kernel, Dim3 grid, Dim3 block,
                      uint64_t dyn_shmem, const std::vector<uint8_t>& params, LaunchRecord& rec) = 0;
  // The host wrote device memory directly: an engine that caches data (the
  // timing model's L2) drops or refreshes its copies of [addr, addr+n).
  // copy: a host-to-device memcpy (which GPGPU-Sim also installs in its L2),
  // not a memset or device-to-device copy.
  virtual void host_wrote(uint64_t addr, uint64_t n, bool copy) {}
  // The host is about to read device memory: make what is cached dirty visible.
  virtual void host_reads(uint64_t addr, uint64_t n) {}
  // The program is done with the device (Device::finish): an engine that
  // caches data writes it back; the timing model counts that in `last`, the
  // record of the last launch.
  virtual void finish(LaunchRecord& last) {}
  // The next launches' grid workspace (cooperative launches; 0: none).
  uint64_t grid_workspace = 0;
  // Where the next launches record the allocations they read and write (null: not recorded).
  func::AccessLog* access_log = nullptr;
};

class Device {
 public:
  explicit Device(const config::Config& cfg);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // Parses, analyses and validates PTX; allocates and initialises its
  // .global/.const variables. `file` names the source in messages. `ptxas`:
  // ptxas's registers per kernel (ptx/ptxas.h); without it, or for a kernel
  // it does not name, occupancy uses our allocator's count.
  const ptx::Module& load_module(const std::string& ptx_text, const std::string& file,
                                 const ptx::PtxasInfo* ptxas = nullptr);
  // The device memory in bytes and the config key that sets it: a module
  // whose variables do not fit what is left is refused (the caller checks
  // its own allocations against it). Without it only GlobalMemory's limit.
  void set_memory_capacity(uint64_t bytes, std::string key);
  const ptx::Function& kernel(const ptx::Module& mod, const std::string& name) const;

  DevPtr malloc(size_t bytes);       // 256-byte aligned, like cudaMalloc
  void free(DevPtr p);
  void memcpy_to_device(DevPtr dst, const void* src, size_t n);
  void memcpy_to_host(void* dst, DevPtr src, size_t n);
  void memcpy_device(DevPtr dst, DevPtr src, size_t n);
  void memset(DevPtr dst, int value, size_t n);
  // Address and size of a module-scope variable (__device__ / __constant__).
  DevPtr symbol(const ptx::Module& mod, const std::string& name, size_t* size = nullptr) const;

  // args[i] points at the value of kernel parameter i (cudaLaunchKernel form).
  void launch(const ptx::Function& k, Dim3 grid, Dim3 block, size_t dyn_shmem, void* const* args);
  void synchronize() {}
  // The program is done with the device: before its stats are read, the
  // engine writes back what it caches (Engine::finish; with the timing
  // model's default l2.flush=end, the timed L2 flush, counted in the last
  // launch's record). Running it again adds nothing.
  void finish();
  // Cooperative launches: the grid workspace the next launches see (0: none).
  void set_grid_workspace(DevPtr p) { engine_->grid_workspace = p; }

  const std::vector<LaunchRecord>& launches() const { return launches_; }
  std::vector<LaunchRecord>& launches() { return launches_; }
  // Drops the records kept so far (a caller that keeps its own, bounded).
  void clear_launches() { launches_.clear(); }
  func::GlobalMemory& memory() { return *mem_; }
  const config::Config& config() const { return cfg_; }
  // Replaces the engine (the timing model installs itself here).
  void set_engine(std::unique_ptr<Engine> e);
  // The checkpoint runtime's stats (resilience.h); null when resilience.scheme=off.
  nlohmann::ordered_json resilience_stats() const;

 private:
  class Target;
  // Runs one launch and records it; returns its simulated time (ps).
  uint64_t run(const ptx::Module& mod, const ptx::Function& k, Dim3 grid, Dim3 block, uint64_t dyn_shmem,
               const std::vector<uint8_t>& params, bool replay);

  const config::Config& cfg_;
  std::unique_ptr<func::GlobalMemory> mem_;
  std::unique_ptr<Engine> engine_;
  std::vector<std::unique_ptr<ptx::Module>> modules_;
  std::vector<std::vector<DevPtr>> module_symbols_;  // per module: address of each global
  std::vector<LaunchRecord> launches_;
  uint64_t capacity_ = UINT64_MAX;
  std::string capacity_key_;
  std::unique_ptr<Target> target_;           // resilience.scheme != off: the runtime's
  std::unique_ptr<Resilience> resilience_;   // checkpoint runtime,
  std::unique_ptr<func::AccessLog> access_;  // and what the current launch touches
};

}  // namespace relgpu::runtime
