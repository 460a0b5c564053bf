// The state behind relgpu's libcudart.so.13: the registered fatbinaries,
// kernels and variables, the simulated device (runtime::Device with the
// functional or timing engine), streams, events, the CUDA error state, and
// the stats of every launch. api.cpp maps each exported CUDA call onto one
// method here; methods report failures by throwing CudaError (or the
// InputError of the layer below), which api.cpp turns into cudaError_t.
//
// Configuration comes from the environment, set by `relgpu exec`:
//   RELGPU_CONFIG     a JSON config file
//   RELGPU_SET        "key=value" overrides, one per line
//   RELGPU_STATS      where to write the stats JSON (at exit and at cudaDeviceReset)
//   RELGPU_DUMP_PTX   a directory to write each fatbinary's PTX to (messages then name it)
//   RELGPU_QUIET      1: no summary line at exit
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/config.h"
#include "cudart/cuda_abi.h"
#include "cudart/keys.h"
#include "runtime/device.h"

namespace relgpu::cudart {

// A CUDA error code with the message relgpu prints for it (empty: print nothing).
struct CudaError : std::runtime_error {
  int code;
  CudaError(int c, const std::string& msg) : std::runtime_error(msg), code(c) {}
};

struct Options {
  std::string config_file;
  std::vector<std::string> sets;
  std::string stats_file, dump_ptx_dir;
  bool quiet = false;
  static Options from_env();
};

class Runtime {
 public:
  explicit Runtime(Options opt);
  ~Runtime();
  // The process's runtime, made from the environment at first use and never
  // destroyed (SystemC objects must outlive everything; the OS reclaims it).
  static Runtime& instance();
  std::recursive_mutex& mutex() { return mu_; }

  // ---- registration ABI (called from the program's static constructors)
  void** register_fatbin(const void* wrapper);
  void register_function(void** handle, const void* host_fn, const char* device_name);
  void register_var(void** handle, const void* host_var, const char* device_name, size_t size, bool constant);
  void unregister_fatbin(void** handle);
  // __cudaGetKernel: an opaque handle for a host stub (nullptr if unknown).
  cudaKernel_t kernel_handle(const void* host_fn) const;

  // ---- errors
  // Sticky: a kernel fault; every later device call returns it until cudaDeviceReset.
  int sticky() const { return sticky_; }
  int init_error() const { return init_error_code_; }
  const std::string& init_message() const { return init_error_; }
  void set_last(int e) { if (e) last_ = e; }
  int take_last() { int e = last_ ? last_ : sticky_; last_ = 0; return e; }
  int peek_last() const { return last_ ? last_ : sticky_; }
  // Prints "relgpu: <text>" on stderr unless that exact line was printed before.
  void say_once(const std::string& text);

  // ---- device
  runtime::Device& device();
  const config::Config& config() const { return cfg_; }
  void fill_properties(cudaDeviceProp& p) const;
  int attribute(int attr) const;  // throws CudaError for unknown attributes
  void reset();                   // cudaDeviceReset
  uint64_t global_mem_bytes() const;

  // ---- memory
  void* malloc(size_t n);
  void free(void* p);
  // cudaMallocManaged: device memory that the host also reaches at the same
  // address (a host mapping, copied to the device before each launch and
  // back after it; streams are serialized, so that is coherent).
  void* malloc_managed(size_t n);
  bool is_managed(const void* p, size_t n = 1) const;
  void* malloc_host(size_t n);
  void free_host(void* p);
  bool is_host_alloc(const void* p) const { return host_allocs_.count(const_cast<void*>(p)) != 0; }
  void memcpy(void* dst, const void* src, size_t n, int kind);
  void memset(void* dst, int value, size_t n);
  bool is_device(const void* p);
  // A registered __device__/__constant__ variable: its device address and size.
  runtime::DevPtr symbol(const void* host_var, size_t* size);

  // ---- kernels
  // cooperative: all CTAs must be resident at once (else
  // cudaErrorCooperativeLaunchTooLarge); the kernel gets a grid workspace
  // for cooperative groups' grid.sync().
  void launch(cudaKernel_t k, dim3 grid, dim3 block, void** args, size_t shmem, cudaStream_t s,
              bool cooperative = false);
  void launch_host_fn(const void* host_fn, dim3 grid, dim3 block, void** args, size_t shmem, cudaStream_t s,
                      bool cooperative = false);
  // cudaOccupancyAvailableDynamicSMemPerBlock: the most dynamic shared memory
  // a CTA may take so that `ctas` of them are resident on one SM.
  size_t available_dyn_shared(const void* host_fn, int ctas, int block_size);
  void func_attributes(const void* host_fn, cudaFuncAttributes& a);
  void set_max_dynamic_shared(const void* host_fn, int bytes);
  const char* func_name(const void* host_fn);
  int occupancy(const void* host_fn, int block_size, size_t dyn_shmem);

  // ---- streams and events (streams run serialized: every call completes before it returns)
  cudaStream_t stream_create();
  void stream_destroy(cudaStream_t s);
  void check_stream(cudaStream_t s) const;
  cudaEvent_t event_create(unsigned flags);
  void event_destroy(cudaEvent_t e);
  void event_record(cudaEvent_t e, cudaStream_t s);
  bool event_recorded(cudaEvent_t e) const;
  float event_elapsed_ms(cudaEvent_t start, cudaEvent_t end) const;
  uint64_t sim_time_ps() const { return sim_time_ps_; }

  // ---- stats
  void write_stats();  // to RELGPU_STATS if set; all launches since the start
  void finish();       // at exit: stats and the summary line, once
  void finish_device();  // Device::finish, and the last launch's record refreshed

 private:
  struct Module;
  struct Fn {
    Module* module;
    std::string name;
    const void* host_fn;
  };
  struct Var {
    Module* module;
    std::string name;
    size_t size;
    bool constant;
  };
  struct Module {
    std::string label;      // names the PTX in messages
    std::string ptx;        // empty when the fatbinary has none
    std::string error;      // why it cannot load (printed once)
    int error_code = 0;
    const ptx::Module* loaded = nullptr;
    uint64_t generation = 0;  // device generation `loaded` belongs to
    bool ptxas_ran = false;   // ptxas's registers per kernel (cudart.ptxas), found once
    std::optional<ptx::PtxasInfo> ptxas;
    std::string ptxas_why;    // why there is none
    bool live = true;
  };
  struct Event {
    unsigned flags = 0;
    bool recorded = false;
    uint64_t time_ps = 0;
  };

  const ptx::Module& load(Module& m);
  Fn& fn_of(const void* host_fn);
  const ptx::Function& kernel_of(Fn& f);
  uint64_t launch_time_ps(const runtime::LaunchRecord& r) const;
  config::json stats_json() const;
  void fail_kernel(const std::string& kernel, const std::string& msg);
  void finish_summary();

  std::recursive_mutex mu_;
  Options opt_;
  config::Config cfg_;
  std::string mode_;
  std::string init_error_;
  int init_error_code_ = 0;
  std::unique_ptr<runtime::Device> dev_;
  uint64_t generation_ = 0;
  std::vector<std::unique_ptr<Module>> modules_;
  std::vector<std::unique_ptr<Fn>> fns_;
  std::map<const void*, Fn*> fn_by_host_;
  std::map<const void*, Var> vars_;
  std::set<void*> host_allocs_;
  struct Managed {
    runtime::DevPtr alloc;  // the device allocation holding it
    size_t bytes;           // mapped at the key's address, page-aligned
  };
  std::map<uintptr_t, Managed> managed_;
  void managed_to_device();
  void managed_to_host();
  // Frees managed mappings, host allocations, streams and events.
  void release_handles();
  runtime::DevPtr grid_ws_ = 0;  // cooperative launches' grid workspace
  uint64_t grid_ws_generation_ = 0;
  std::map<cudaStream_t, uint64_t> streams_;  // -> id in the stats (1, 2, ...; 0 = default stream)
  uint64_t next_stream_id_ = 1;
  std::map<cudaEvent_t, Event> events_;
  std::map<const void*, int> max_dyn_shmem_;
  std::set<std::string> said_;
  int last_ = 0, sticky_ = 0;
  uint64_t sim_time_ps_ = 0;
  uint64_t next_handle_ = 0x10;
  int live_fatbins_ = 0;
  bool finished_ = false;
  config::json records_ = config::json::array();
  config::json detail_sum_ = config::json::object();  // every launch's detail, summed
  uint64_t thread_insn_ = 0, warp_insn_ = 0, failed_ = 0;
  bool stats_failed_ = false;
  double t_start_ = 0;
};

// The CUDA error code a KernelError's message stands for.
int kernel_error_code(const std::string& msg);
const char* error_name(int code);
const char* error_string(int code);

}  // namespace relgpu::cudart
