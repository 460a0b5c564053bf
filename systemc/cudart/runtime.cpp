#include "cudart/runtime.h"

#include <cxxabi.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/error.h"
#include "cudart/fatbin.h"
#include "func/memory.h"
#include "gpu/keys.h"
#include "gpu/stats.h"
#include "gpu/mode.h"
#include "mem/address_map.h"
#include "mem/dram.h"
#include "mem/l2_cache.h"
#include "sm/keys.h"
#include "sm/occupancy.h"

namespace relgpu::cudart {

using config::json;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string program_name() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "program";
  buf[n] = 0;
  std::string s(buf);
  auto slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

std::string program_args() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>()), out;
  for (char c : all) out += c ? c : ' ';
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string demangle(const std::string& s) {
  int status = 0;
  char* d = abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return s;
  std::string r(d);
  std::free(d);
  return r;
}

template <class T> int64_t get_i(const config::Config& c, const config::Key<T>& k) { return int64_t(c.get(k)); }

}  // namespace

// ---------------------------------------------------------------- setup

Options Options::from_env() {
  Options o;
  if (const char* c = std::getenv("RELGPU_CONFIG"); c && *c) o.config_file = c;
  if (const char* s = std::getenv("RELGPU_SET"); s && *s) {
    std::istringstream in(s);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) o.sets.push_back(line);
  }
  if (const char* s = std::getenv("RELGPU_STATS"); s && *s) o.stats_file = s;
  if (const char* d = std::getenv("RELGPU_DUMP_PTX"); d && *d) o.dump_ptx_dir = d;
  if (const char* q = std::getenv("RELGPU_QUIET"); q && *q && std::string(q) != "0") o.quiet = true;
  return o;
}

Runtime::Runtime(Options opt) : opt_(std::move(opt)), t_start_(now_s()) {
  try {
    if (!opt_.config_file.empty()) cfg_.load_file(opt_.config_file);
    for (auto& s : opt_.sets) cfg_.set(s);
    mode_ = cfg_.get(gpu::kMode);
  } catch (const std::exception& e) {
    init_error_ = std::string("configuration: ") + e.what();
    init_error_code_ = cudaErrorInitializationError;
  }
}

Runtime& Runtime::instance() {
  static Runtime* r = new Runtime(Options::from_env());
  return *r;
}

void Runtime::say_once(const std::string& text) {
  if (!said_.insert(text).second) return;
  std::cout.flush();
  std::cerr << "relgpu: " << text << std::endl;
}

runtime::Device& Runtime::device() {
  if (init_error_code_) throw CudaError(init_error_code_, init_error_);
  if (!dev_) {
    dev_ = std::make_unique<runtime::Device>(cfg_);
    dev_->set_memory_capacity(global_mem_bytes(), kGlobalMemBytes.name);
    gpu::use_configured_engine(*dev_, cfg_);
    ++generation_;
  }
  return *dev_;
}

uint64_t Runtime::global_mem_bytes() const { return uint64_t(cfg_.get(kGlobalMemBytes)); }

// The program is done with the device (exit or cudaDeviceReset): the timed
// L2 flush (Device::finish) extends the last launch, whose record is refreshed.
void Runtime::finish_device() {
  if (!dev_ || dev_->launches().empty()) return;
  try {
    dev_->finish();
  } catch (const KernelError& e) {
    say_once(std::string("kernel error: ") + e.what());
    return;
  }
  const runtime::LaunchRecord& r = dev_->launches().back();
  for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
    if (it->contains("error")) continue;
    uint64_t t = launch_time_ps(r);
    sim_time_ps_ += t - (*it)["sim_time_ps"].get<uint64_t>();
    if (r.detail.is_object() && r.detail.contains("gpu_sim_cycle")) (*it)["cycles"] = r.detail["gpu_sim_cycle"];
    (*it)["sim_time_ps"] = t;
    if (!r.detail.is_null()) (*it)["detail"] = r.detail;
    break;
  }
}

void Runtime::release_handles() {
  for (auto& [p, m] : managed_) munmap(reinterpret_cast<void*>(p), m.bytes);
  managed_.clear();
  for (void* p : host_allocs_) std::free(p);
  host_allocs_.clear();
  for (auto& [s, _] : streams_) delete[] reinterpret_cast<char*>(s);
  streams_.clear();
  for (auto& [e, _] : events_) delete[] reinterpret_cast<char*>(e);
  events_.clear();
}

// instance() is never destroyed; a Runtime a test makes is, and gives back
// what its program did not (scripts/test --sanitize found the leak).
Runtime::~Runtime() { release_handles(); }

void Runtime::reset() {
  finish_device();
  write_stats();
  release_handles();
  dev_.reset();
  max_dyn_shmem_.clear();
  last_ = sticky_ = 0;
}

// ---------------------------------------------------------------- registration

void** Runtime::register_fatbin(const void* wrapper) {
  auto m = std::make_unique<Module>();
  int index = int(modules_.size());
  std::string prog = program_name();
  m->label = prog + "[fatbin " + std::to_string(index) + "]";
  try {
    Fatbin fb = parse_wrapper(wrapper, prog + " (fatbinary " + std::to_string(index) + ")");
    const FatbinEntry* e = fb.pick_ptx();
    if (!e) {
      m->error = no_ptx_message(fb, prog);
      m->error_code = cudaErrorNoKernelImageForDevice;
    } else {
      m->ptx = e->ptx;
      m->label = prog + ".fatbin" + std::to_string(index) + ".compute_" + std::to_string(e->arch) + ".ptx";
      if (!opt_.dump_ptx_dir.empty()) {
        std::string path = opt_.dump_ptx_dir + "/" + m->label;
        std::ofstream f(path);
        if (f << m->ptx) m->label = path;
        else say_once("cannot write PTX to " + path);
      }
    }
  } catch (const std::exception& e) {
    m->error = e.what();
    m->error_code = cudaErrorInvalidKernelImage;
  }
  // Said now, at program start, so the user sees why before any output.
  if (!m->error.empty()) say_once(m->error);
  if (m->error_code == cudaErrorNoKernelImageForDevice) {
    // No kernel could ever run: stop as `relgpu exec` stops a program
    // linked with the static runtime, before the program does anything.
    say_once("stopping the program (exit status 2)");
    std::fflush(nullptr);
    std::_Exit(2);
  }
  modules_.push_back(std::move(m));
  ++live_fatbins_;
  return reinterpret_cast<void**>(modules_.back().get());
}

void Runtime::register_function(void** handle, const void* host_fn, const char* device_name) {
  if (!handle || !host_fn || !device_name) return;
  auto f = std::make_unique<Fn>(Fn{reinterpret_cast<Module*>(handle), device_name, host_fn});
  fn_by_host_[host_fn] = f.get();
  fns_.push_back(std::move(f));
}

void Runtime::register_var(void** handle, const void* host_var, const char* device_name, size_t size,
                           bool constant) {
  if (!handle || !host_var || !device_name) return;
  vars_[host_var] = Var{reinterpret_cast<Module*>(handle), device_name, size, constant};
}

void Runtime::unregister_fatbin(void** handle) {
  if (handle) reinterpret_cast<Module*>(handle)->live = false;
  // The program's last fatbinary goes at exit (atexit handlers of its
  // registration code): the run is over.
  if (--live_fatbins_ == 0) finish();
}

cudaKernel_t Runtime::kernel_handle(const void* host_fn) const {
  auto it = fn_by_host_.find(host_fn);
  return it == fn_by_host_.end() ? nullptr : reinterpret_cast<cudaKernel_t>(it->second);
}

const ptx::Module& Runtime::load(Module& m) {
  // The reason was printed when it was found; later calls just fail.
  if (!m.error.empty()) throw CudaError(m.error_code, "");
  runtime::Device& d = device();
  if (m.loaded && m.generation == generation_) return *m.loaded;
  if (!m.ptxas_ran) {
    m.ptxas_ran = true;
    std::string ptxas = ptx::find_ptxas(cfg_.get(kPtxas), m.ptxas_why);
    if (!ptxas.empty()) m.ptxas = ptx::run_ptxas(ptxas, m.ptx, ptx::default_cache_dir(), m.ptxas_why);
  }
  try {
    m.loaded = &d.load_module(m.ptx, m.label, m.ptxas ? &*m.ptxas : nullptr);
    m.generation = generation_;
  } catch (const InputError& e) {
    m.error = std::string("cannot load the program's PTX: ") + e.what() +
              (opt_.dump_ptx_dir.empty() ? " (relgpu exec --dump-ptx DIR writes the PTX out)" : "");
    m.error_code = cudaErrorInvalidPtx;
    say_once(m.error);
    throw CudaError(m.error_code, "");
  }
  return *m.loaded;
}

Runtime::Fn& Runtime::fn_of(const void* host_fn) {
  auto it = fn_by_host_.find(host_fn);
  if (it == fn_by_host_.end())
    throw CudaError(cudaErrorInvalidDeviceFunction, "the function pointer is not a registered __global__ function");
  return *it->second;
}

const ptx::Function& Runtime::kernel_of(Fn& f) {
  const ptx::Module& pm = load(*f.module);
  try {
    return device().kernel(pm, f.name);
  } catch (const InputError& e) {
    throw CudaError(cudaErrorInvalidDeviceFunction, e.what());
  }
}

// ---------------------------------------------------------------- device properties

void Runtime::fill_properties(cudaDeviceProp& p) const {
  std::memset(&p, 0, sizeof p);
  int sms = int(get_i(cfg_, gpu::kNumSms));
  double mhz = cfg_.get(gpu::kSmClockMhz);
  std::ostringstream name;
  name << "relgpu " << mode_ << " model (" << sms << " SMs @ " << mhz << " MHz)";
  std::snprintf(p.name, sizeof p.name, "%s", name.str().c_str());
  std::memcpy(p.uuid.bytes, "relgpu-simulated", 16);
  p.totalGlobalMem = global_mem_bytes();
  p.sharedMemPerBlock = size_t(cfg_.get(runtime::kSharedBytesPerBlock));
  int64_t regs_sm = get_i(cfg_, sm::kRfBanks) * get_i(cfg_, sm::kRfEntries) * get_i(cfg_, sm::kRfEntryBits) / 32;
  p.regsPerBlock = int(std::min<int64_t>(regs_sm, 65536));
  p.warpSize = 32;
  p.memPitch = 2147483647;
  p.maxThreadsPerBlock = int(cfg_.get(runtime::kMaxThreadsPerBlock));
  p.maxThreadsDim[0] = p.maxThreadsPerBlock;
  p.maxThreadsDim[1] = p.maxThreadsPerBlock;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647;
  p.maxGridSize[1] = 65535;
  p.maxGridSize[2] = 65535;
  p.totalConstMem = 65536;
  p.major = 7;  // the PTX target relgpu executes (compute_75)
  p.minor = 5;
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.multiProcessorCount = sms;
  p.surfaceAlignment = 512;
  p.concurrentKernels = 0;  // launches run one after another
  p.asyncEngineCount = 0;
  p.unifiedAddressing = 1;
  p.memoryBusWidth = int(get_i(cfg_, mem::kNumPartitions) * get_i(cfg_, mem::kDramBusBytes) * 8);
  p.l2CacheSize = int(get_i(cfg_, mem::kL2Sets) * get_i(cfg_, mem::kL2Ways) * get_i(cfg_, mem::kL2LineBytes) *
                      get_i(cfg_, mem::kNumPartitions));
  p.maxThreadsPerMultiProcessor = int(get_i(cfg_, sm::kMaxThreads));
  p.globalL1CacheSupported = 1;
  p.localL1CacheSupported = 1;
  p.sharedMemPerMultiprocessor = size_t(get_i(cfg_, sm::kSharedBytes));
  p.regsPerMultiprocessor = int(regs_sm);
  p.sharedMemPerBlockOptin = p.sharedMemPerBlock;
  p.maxBlocksPerMultiProcessor = int(get_i(cfg_, sm::kMaxCtas));
  p.deviceNumaId = -1;
  p.hostNumaId = -1;
}

int Runtime::attribute(int a) const {
  cudaDeviceProp p;
  fill_properties(p);
  switch (a) {
    case cudaDevAttrMaxThreadsPerBlock: return p.maxThreadsPerBlock;
    case cudaDevAttrMaxBlockDimX: return p.maxThreadsDim[0];
    case cudaDevAttrMaxBlockDimY: return p.maxThreadsDim[1];
    case cudaDevAttrMaxBlockDimZ: return p.maxThreadsDim[2];
    case cudaDevAttrMaxGridDimX: return p.maxGridSize[0];
    case cudaDevAttrMaxGridDimY: return p.maxGridSize[1];
    case cudaDevAttrMaxGridDimZ: return p.maxGridSize[2];
    case cudaDevAttrMaxSharedMemoryPerBlock: return int(p.sharedMemPerBlock);
    case cudaDevAttrTotalConstantMemory: return int(p.totalConstMem);
    case cudaDevAttrWarpSize: return 32;
    case cudaDevAttrMaxPitch: return int(p.memPitch);
    case cudaDevAttrMaxRegistersPerBlock: return p.regsPerBlock;
    case cudaDevAttrClockRate: return int(cfg_.get(gpu::kSmClockMhz) * 1000);  // kHz
    case cudaDevAttrMemoryClockRate: return int(cfg_.get(mem::kDramClock) * 1000);
    case cudaDevAttrTextureAlignment: return int(p.textureAlignment);
    case cudaDevAttrMultiProcessorCount: return p.multiProcessorCount;
    case cudaDevAttrGlobalMemoryBusWidth: return p.memoryBusWidth;
    case cudaDevAttrL2CacheSize: return p.l2CacheSize;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return p.maxThreadsPerMultiProcessor;
    case cudaDevAttrUnifiedAddressing: return 1;
    case cudaDevAttrComputeCapabilityMajor: return p.major;
    case cudaDevAttrComputeCapabilityMinor: return p.minor;
    case cudaDevAttrGlobalL1CacheSupported:
    case cudaDevAttrLocalL1CacheSupported: return 1;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return int(p.sharedMemPerMultiprocessor);
    case cudaDevAttrMaxRegistersPerMultiprocessor: return p.regsPerMultiprocessor;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return int(p.sharedMemPerBlockOptin);
    case cudaDevAttrMaxBlocksPerMultiprocessor: return p.maxBlocksPerMultiProcessor;
    case cudaDevAttrGpuOverlap: case cudaDevAttrKernelExecTimeout: case cudaDevAttrIntegrated:
    case cudaDevAttrCanMapHostMemory: case cudaDevAttrComputeMode: case cudaDevAttrConcurrentKernels:
    case cudaDevAttrEccEnabled: case cudaDevAttrPciBusId: case cudaDevAttrPciDeviceId: case cudaDevAttrPciDomainId:
    case cudaDevAttrAsyncEngineCount: case cudaDevAttrStreamPrioritiesSupported: case cudaDevAttrManagedMemory:
    case cudaDevAttrCooperativeLaunch: return 0;
  }
  throw CudaError(cudaErrorNotSupported, "cudaDeviceGetAttribute: attribute " + std::to_string(a) +
                                             " is not modelled by relgpu");
}

// ---------------------------------------------------------------- memory

void* Runtime::malloc(size_t n) {
  runtime::Device& d = device();
  if (n == 0) return nullptr;
  if (d.memory().bytes_allocated() + n > global_mem_bytes())
    throw CudaError(cudaErrorMemoryAllocation,
                    "cudaMalloc of " + std::to_string(n) + " bytes: out of device memory (" +
                        std::to_string(d.memory().bytes_allocated()) + " of cudart.global_mem_bytes=" +
                        std::to_string(global_mem_bytes()) + " in use)");
  return reinterpret_cast<void*>(d.malloc(n));
}

void Runtime::free(void* p) {
  if (!p) return;
  auto m = managed_.find(reinterpret_cast<uintptr_t>(p));
  if (m != managed_.end()) {
    device().free(m->second.alloc);
    munmap(p, m->second.bytes);
    managed_.erase(m);
    return;
  }
  device().free(reinterpret_cast<runtime::DevPtr>(p));
}

void* Runtime::malloc_managed(size_t n) {
  if (n == 0) throw CudaError(cudaErrorInvalidValue, "cudaMallocManaged of 0 bytes");
  // A page-aligned part of a device allocation, mapped at the same address
  // on the host, so the one pointer works on both sides.
  const size_t page = 4096, bytes = (n + page - 1) / page * page;
  auto a = reinterpret_cast<uintptr_t>(malloc(bytes + page));
  uintptr_t p = (a + page - 1) & ~uintptr_t(page - 1);
  void* m = mmap(reinterpret_cast<void*>(p), bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (m != reinterpret_cast<void*>(p)) {
    if (m != MAP_FAILED) munmap(m, bytes);
    device().free(a);
    std::ostringstream s;
    s << "cudaMallocManaged of " << n << " bytes: the host cannot map memory at the device address 0x" << std::hex
      << p << " (" << std::strerror(errno) << ")";
    throw CudaError(cudaErrorMemoryAllocation, s.str());
  }
  managed_[p] = Managed{a, bytes};
  return m;
}

bool Runtime::is_managed(const void* p, size_t n) const {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto it = managed_.upper_bound(a);
  if (it == managed_.begin()) return false;
  --it;
  return a >= it->first && a + n <= it->first + it->second.bytes;
}

// The host's view is the truth between launches (streams are serialized).
void Runtime::managed_to_device() {
  for (auto& [p, m] : managed_) device().memcpy_to_device(p, reinterpret_cast<const void*>(p), m.bytes);
}

void Runtime::managed_to_host() {
  for (auto& [p, m] : managed_) device().memcpy_to_host(reinterpret_cast<void*>(p), p, m.bytes);
}

void* Runtime::malloc_host(size_t n) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, n ? n : 1) != 0) throw CudaError(cudaErrorMemoryAllocation, "");
  host_allocs_.insert(p);
  return p;
}

void Runtime::free_host(void* p) {
  if (!p) return;
  if (!host_allocs_.erase(p))
    throw CudaError(cudaErrorInvalidValue, "cudaFreeHost: pointer was not returned by cudaMallocHost/cudaHostAlloc");
  std::free(p);
}

bool Runtime::is_device(const void* p) {
  return device().memory().find(reinterpret_cast<uint64_t>(p)) != nullptr;
}

void Runtime::memcpy(void* dst, const void* src, size_t n, int kind) {
  if (n == 0) return;
  runtime::Device& d = device();
  if (kind == cudaMemcpyDefault) {
    bool sd = is_device(src), dd = is_device(dst);
    kind = sd ? (dd ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
              : (dd ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  }
  auto dp = [](const void* p) { return reinterpret_cast<runtime::DevPtr>(p); };
  bool sm = is_managed(src, n), dm = is_managed(dst, n);
  if (sm || dm) {
    // Managed memory is copied through its host mapping, whatever the kind says.
    bool sd = !sm && is_device(src), dd = !dm && is_device(dst);
    if (sd) d.memcpy_to_host(dst, dp(src), n);
    else if (dd) d.memcpy_to_device(dp(dst), src, n);
    else std::memmove(dst, src, n);
    return;
  }
  switch (kind) {
    case cudaMemcpyHostToHost: std::memmove(dst, src, n); return;
    case cudaMemcpyHostToDevice: d.memcpy_to_device(dp(dst), src, n); return;
    case cudaMemcpyDeviceToHost: d.memcpy_to_host(dst, dp(src), n); return;
    case cudaMemcpyDeviceToDevice: d.memcpy_device(dp(dst), dp(src), n); return;
  }
  throw CudaError(cudaErrorInvalidMemcpyDirection, "cudaMemcpy: invalid cudaMemcpyKind " + std::to_string(kind));
}

void Runtime::memset(void* dst, int value, size_t n) {
  if (n == 0) return;
  if (is_managed(dst, n)) {
    std::memset(dst, value, n);
    return;
  }
  device().memset(reinterpret_cast<runtime::DevPtr>(dst), value, n);
}

runtime::DevPtr Runtime::symbol(const void* host_var, size_t* size) {
  auto it = vars_.find(host_var);
  if (it == vars_.end())
    throw CudaError(cudaErrorInvalidSymbol, "the symbol is not a registered __device__ or __constant__ variable");
  const ptx::Module& pm = load(*it->second.module);
  try {
    return device().symbol(pm, it->second.name, size);
  } catch (const InputError& e) {
    throw CudaError(cudaErrorInvalidSymbol, e.what());
  }
}

// ---------------------------------------------------------------- kernels

int kernel_error_code(const std::string& msg) {
  if (msg.find("out-of-bounds") != std::string::npos || msg.find("__constant__") != std::string::npos ||
      msg.find("read-only") != std::string::npos || msg.find("not inside any allocation") != std::string::npos)
    return cudaErrorIllegalAddress;
  if (msg.find("misaligned") != std::string::npos) return cudaErrorMisalignedAddress;
  if (msg.find("exceeded") != std::string::npos) return cudaErrorLaunchTimeout;
  if (msg.find("trap") != std::string::npos || msg.find("illegal instruction") != std::string::npos)
    return cudaErrorIllegalInstruction;
  return cudaErrorLaunchFailure;
}

uint64_t Runtime::launch_time_ps(const runtime::LaunchRecord& r) const {
  if (r.detail.is_object() && r.detail.contains("sim_time_ps")) return r.detail["sim_time_ps"].get<uint64_t>();
  // Functional mode has no timing: an idealised estimate of one warp
  // instruction per SM per cycle at gpu.sm_clock_mhz (a lower bound).
  uint64_t sms = uint64_t(cfg_.get(gpu::kNumSms));
  uint64_t cycles = (r.warp_insn + sms - 1) / sms;
  return gpu::clock_from_mhz(cfg_.get(gpu::kSmClockMhz)).edge_ps(cycles);
}

void Runtime::fail_kernel(const std::string& kernel, const std::string& msg) {
  int code = kernel_error_code(msg);
  if (!sticky_) sticky_ = code;
  say_once("kernel error: " + msg);
  if (opt_.dump_ptx_dir.empty() && msg.find(".ptx:") != std::string::npos)
    say_once("the .ptx file:line above is the program's embedded PTX; relgpu exec --dump-ptx DIR writes it "
             "to DIR under that name");
  say_once(std::string("the program gets ") + error_name(sticky_) +
           " from its next CUDA call (launch errors are sticky, as on a GPU)");
}

void Runtime::launch(cudaKernel_t handle, dim3 grid, dim3 block, void** args, size_t shmem, cudaStream_t s,
                     bool cooperative) {
  if (!handle) throw CudaError(cudaErrorInvalidDeviceFunction, "launch of a function that is not a registered kernel");
  check_stream(s);
  Fn& f = *reinterpret_cast<Fn*>(handle);
  const ptx::Function& k = kernel_of(f);
  auto lim = max_dyn_shmem_.find(f.host_fn);
  if (shmem > 49152 && (lim == max_dyn_shmem_.end() || shmem > size_t(lim->second)))
    throw CudaError(cudaErrorInvalidValue, "launch of '" + demangle(f.name) + "' with " + std::to_string(shmem) +
                                               " bytes of dynamic shared memory: above 48 KiB needs "
                                               "cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)");
  runtime::Device& d = device();
  json rec = json::object();
  rec["kernel"] = f.name;
  rec["name"] = demangle(f.name);
  rec["grid"] = {grid.x, grid.y, grid.z};
  rec["block"] = {block.x, block.y, block.z};
  rec["dyn_shmem"] = shmem;
  auto sid = streams_.find(s);
  rec["stream"] = sid == streams_.end() ? 0 : sid->second;
  d.clear_launches();  // this runtime keeps its own records
  if (cooperative) {
    // Grid-wide barriers need every CTA resident at once.
    sm::CtaShape shape;
    shape.threads = uint32_t(uint64_t(block.x) * block.y * block.z);
    shape.regs_per_thread = k.regs_used();
    shape.shared_bytes = k.shared_bytes + shmem;
    uint64_t per_sm = sm::resident_ctas(cfg_, shape), sms = uint64_t(cfg_.get(gpu::kNumSms));
    uint64_t ctas = uint64_t(grid.x) * grid.y * grid.z;
    if (ctas > per_sm * sms)
      throw CudaError(cudaErrorCooperativeLaunchTooLarge,
                      "cooperative launch of '" + demangle(f.name) + "' with " + std::to_string(ctas) +
                          " CTAs: at most " + std::to_string(per_sm * sms) + " can be resident at once (" +
                          std::to_string(per_sm) + " per SM x " + std::to_string(sms) + " SMs)");
    if (!grid_ws_ || grid_ws_generation_ != generation_) grid_ws_ = d.malloc(256), grid_ws_generation_ = generation_;
    const uint32_t ws[2] = {8, 0};  // cooperative groups' {wsSize, barrier}
    d.memcpy_to_device(grid_ws_, ws, sizeof ws);
  }
  d.set_grid_workspace(cooperative ? grid_ws_ : 0);
  managed_to_device();
  try {
    d.launch(k, runtime::Dim3{grid.x, grid.y, grid.z}, runtime::Dim3{block.x, block.y, block.z}, shmem, args);
    managed_to_host();
  } catch (const KernelError& e) {
    managed_to_host();
    rec["error"] = e.what();
    records_.push_back(rec);
    ++failed_;
    fail_kernel(f.name, e.what());
    return;  // the launch itself "succeeds"; the error is sticky from here on
  } catch (const InputError& e) {
    throw CudaError(cudaErrorInvalidConfiguration, e.what());
  }
  if (d.launches().empty()) return;
  // The program's own launch: the checkpoint runtime's relaunches (resilience.h) follow it.
  auto own = std::find_if(d.launches().rbegin(), d.launches().rend(), [](auto& l) { return !l.replay; });
  runtime::LaunchRecord& r = own == d.launches().rend() ? d.launches().back() : *own;
  uint64_t t = launch_time_ps(r);
  sim_time_ps_ += t;
  json regs = runtime::register_stats(r);
  for (auto it = regs.begin(); it != regs.end(); ++it) rec[it.key()] = *it;
  if (std::string note = runtime::register_note(r); !note.empty())
    say_once("warning: " + note + (r.regs_ptxas || f.module->ptxas_why.empty() ? "" : " (" + f.module->ptxas_why + ")"));
  thread_insn_ += r.thread_insn;
  warp_insn_ += r.warp_insn;
  rec["gpu_sim_insn"] = r.thread_insn;
  rec["gpu_warp_insn"] = r.warp_insn;
  if (r.detail.is_object() && r.detail.contains("gpu_sim_cycle")) rec["cycles"] = r.detail["gpu_sim_cycle"];
  rec["sim_time_ps"] = t;
  if (r.detail.is_object()) {
    gpu::add_json(detail_sum_, r.detail);
    // Past the limit only the totals keep the detail: bounded memory and file.
    if (records_.size() < uint64_t(cfg_.get(kStatsDetailLaunches))) rec["detail"] = std::move(r.detail);
  }
  d.clear_launches();
  records_.push_back(std::move(rec));
}

void Runtime::launch_host_fn(const void* host_fn, dim3 grid, dim3 block, void** args, size_t shmem, cudaStream_t s,
                             bool cooperative) {
  launch(reinterpret_cast<cudaKernel_t>(&fn_of(host_fn)), grid, block, args, shmem, s, cooperative);
}

size_t Runtime::available_dyn_shared(const void* host_fn, int ctas, int block_size) {
  const ptx::Function& k = kernel_of(fn_of(host_fn));
  if (ctas <= 0 || block_size <= 0) throw CudaError(cudaErrorInvalidValue, "numBlocks and blockSize must be positive");
  sm::CtaShape shape;
  shape.threads = uint32_t(block_size);
  shape.regs_per_thread = k.regs_used();
  // More CTAs than threads, registers or CTA slots let reside: an error, as
  // the CUDA 13 runtime gives (measured on an H200: scripts/native_cuda_apps).
  if (const uint64_t fit = sm::resident_ctas(cfg_, shape); fit < uint64_t(ctas))
    throw CudaError(cudaErrorInvalidValue, std::to_string(ctas) + " CTAs of " + std::to_string(block_size) +
                                               " threads cannot reside on one SM (at most " + std::to_string(fit) +
                                               " by threads, registers and CTA slots)");
  uint64_t per = uint64_t(cfg_.get(sm::kSharedBytes)) / uint64_t(ctas);
  per = std::min<uint64_t>(per, uint64_t(cfg_.get(runtime::kSharedBytesPerBlock)));
  return per > k.shared_bytes ? size_t(per - k.shared_bytes) : 0;
}

void Runtime::func_attributes(const void* host_fn, cudaFuncAttributes& a) {
  Fn& f = fn_of(host_fn);
  const ptx::Function& k = kernel_of(f);
  const ptx::Module& pm = load(*f.module);
  std::memset(&a, 0, sizeof a);
  a.sharedSizeBytes = k.shared_bytes;
  for (const auto& g : pm.globals)
    if (g.space == ptx::Space::const_) a.constSizeBytes += g.size;
  a.localSizeBytes = k.local_bytes;
  uint64_t mx = uint64_t(cfg_.get(runtime::kMaxThreadsPerBlock));
  if (k.maxntid[0])
    mx = std::min<uint64_t>(mx, uint64_t(k.maxntid[0]) * (k.maxntid[1] ? k.maxntid[1] : 1) *
                                    (k.maxntid[2] ? k.maxntid[2] : 1));
  a.maxThreadsPerBlock = int(mx);
  a.numRegs = int(k.regs_used());
  a.ptxVersion = 75;
  a.binaryVersion = 75;
  uint64_t shmax = uint64_t(cfg_.get(runtime::kSharedBytesPerBlock));
  a.maxDynamicSharedSizeBytes = int(shmax > k.shared_bytes ? shmax - k.shared_bytes : 0);
  a.preferredShmemCarveout = -1;
}

void Runtime::set_max_dynamic_shared(const void* host_fn, int bytes) {
  Fn& f = fn_of(host_fn);
  uint64_t shmax = uint64_t(cfg_.get(runtime::kSharedBytesPerBlock));
  if (bytes < 0 || uint64_t(bytes) > shmax)
    throw CudaError(cudaErrorInvalidValue, "cudaFuncSetAttribute: " + std::to_string(bytes) +
                                               " bytes of dynamic shared memory exceed gpu.shared_bytes_per_block=" +
                                               std::to_string(shmax));
  max_dyn_shmem_[f.host_fn] = bytes;
}

const char* Runtime::func_name(const void* host_fn) { return fn_of(host_fn).name.c_str(); }

int Runtime::occupancy(const void* host_fn, int block_size, size_t dyn_shmem) {
  Fn& f = fn_of(host_fn);
  const ptx::Function& k = kernel_of(f);
  if (block_size <= 0) throw CudaError(cudaErrorInvalidValue, "block size must be positive");
  // The rule the timing model (and the functional engine) apply.
  sm::CtaShape shape;
  shape.threads = uint32_t(block_size);
  shape.regs_per_thread = k.regs_used();
  shape.shared_bytes = k.shared_bytes + dyn_shmem;
  return int(std::min<uint64_t>(sm::resident_ctas(cfg_, shape), INT32_MAX));
}

// ---------------------------------------------------------------- streams and events

cudaStream_t Runtime::stream_create() {
  auto s = reinterpret_cast<cudaStream_t>(new char[1]);
  streams_[s] = next_stream_id_++;
  return s;
}

void Runtime::check_stream(cudaStream_t s) const {
  if (s == nullptr || s == RELGPU_STREAM_LEGACY || s == RELGPU_STREAM_PER_THREAD || streams_.count(s)) return;
  throw CudaError(cudaErrorInvalidResourceHandle, "invalid stream handle (destroyed, or not from cudaStreamCreate)");
}

void Runtime::stream_destroy(cudaStream_t s) {
  if (!streams_.erase(s))
    throw CudaError(cudaErrorInvalidResourceHandle, "cudaStreamDestroy: invalid stream handle");
  delete[] reinterpret_cast<char*>(s);
}

cudaEvent_t Runtime::event_create(unsigned flags) {
  auto e = reinterpret_cast<cudaEvent_t>(new char[1]);
  events_[e].flags = flags;
  return e;
}

void Runtime::event_destroy(cudaEvent_t e) {
  if (!events_.erase(e)) throw CudaError(cudaErrorInvalidResourceHandle, "cudaEventDestroy: invalid event handle");
  delete[] reinterpret_cast<char*>(e);
}

void Runtime::event_record(cudaEvent_t e, cudaStream_t s) {
  check_stream(s);
  auto it = events_.find(e);
  if (it == events_.end()) throw CudaError(cudaErrorInvalidResourceHandle, "cudaEventRecord: invalid event handle");
  it->second.recorded = true;
  it->second.time_ps = sim_time_ps_;
}

bool Runtime::event_recorded(cudaEvent_t e) const {
  auto it = events_.find(e);
  if (it == events_.end()) throw CudaError(cudaErrorInvalidResourceHandle, "invalid event handle");
  return it->second.recorded;
}

float Runtime::event_elapsed_ms(cudaEvent_t start, cudaEvent_t end) const {
  auto a = events_.find(start), b = events_.find(end);
  if (a == events_.end() || b == events_.end())
    throw CudaError(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: invalid event handle");
  if ((a->second.flags | b->second.flags) & RELGPU_EVENT_DISABLE_TIMING)
    throw CudaError(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event was created with RELGPU_EVENT_DISABLE_TIMING");
  if (!a->second.recorded || !b->second.recorded)
    throw CudaError(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event was never recorded");
  return float((double(b->second.time_ps) - double(a->second.time_ps)) * 1e-9);
}

// ---------------------------------------------------------------- stats

json Runtime::stats_json() const {
  json s = json::object();
  s["program"] = program_name();
  s["command"] = program_args();
  s["mode"] = mode_;
  s["kernel_launches"] = records_.size();
  s["failed_launches"] = failed_;
  s["gpu_sim_insn"] = thread_insn_;
  s["gpu_warp_insn"] = warp_insn_;
  for (auto it = detail_sum_.begin(); it != detail_sum_.end(); ++it) s[it.key()] = *it;
  gpu::derive_ratios(s);
  s["sim_time_ps"] = sim_time_ps_;
  s["sim_time_model"] = mode_ == "timing" ? "timing model" : "functional estimate: 1 warp instruction per SM per cycle";
  s["launches_with_detail"] = std::min<uint64_t>(records_.size(), uint64_t(cfg_.get(kStatsDetailLaunches)));
  if (json res = dev_ ? dev_->resilience_stats() : json(); !res.is_null()) s["resilience"] = res;
  s["launches"] = records_;
  gpu::add_host_rates(s, now_s() - t_start_);
  s["config"] = cfg_.effective();
  s["config_sources"] = cfg_.sources();
  return s;
}

void Runtime::write_stats() {
  if (opt_.stats_file.empty() || init_error_code_ || stats_failed_) return;
  std::ofstream f(opt_.stats_file);
  if (f << stats_json().dump(2) << "\n" && f.flush()) return;
  stats_failed_ = true;
  say_once("--stats " + opt_.stats_file + ": cannot write the stats file (" + std::strerror(errno) +
           "); the run ends with exit status 2");
}

void Runtime::finish() {
  if (finished_) return;
  finished_ = true;
  finish_device();
  write_stats();
  finish_summary();
  if (stats_failed_) {
    // Asked-for stats are missing: the run must not pass for a good one.
    std::cout.flush();
    std::fflush(nullptr);
    std::_Exit(2);
  }
}

void Runtime::finish_summary() {
  if (opt_.quiet || init_error_code_) return;
  uint64_t insn = 0, cycles = 0;
  bool timed = false;
  for (const auto& r : records_) {
    if (r.contains("gpu_sim_insn")) insn += r["gpu_sim_insn"].get<uint64_t>();
    if (r.contains("cycles")) cycles += r["cycles"].get<uint64_t>(), timed = true;
  }
  std::ostringstream line;
  line << records_.size() << " kernel launch" << (records_.size() == 1 ? "" : "es") << ", " << insn
       << " thread instructions";
  if (timed) line << ", " << cycles << " cycles";
  line << " (" << mode_ << " mode)";
  if (!opt_.stats_file.empty() && !stats_failed_) line << "; stats in " << opt_.stats_file;
  std::cout.flush();
  std::cerr << "relgpu: " << line.str() << std::endl;
}

// ---------------------------------------------------------------- error names

namespace {
struct ErrText {
  int code;
  const char* name;
  const char* text;
};
const ErrText kErrors[] = {
    {0, "cudaSuccess", "no error"},
    {1, "cudaErrorInvalidValue", "invalid argument"},
    {2, "cudaErrorMemoryAllocation", "out of memory"},
    {3, "cudaErrorInitializationError", "initialization error"},
    {4, "cudaErrorCudartUnloading", "driver shutting down"},
    {9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {12, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {13, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {16, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {17, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {21, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {52, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {100, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {101, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {200, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {209, "cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"},
    {215, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {218, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
    {400, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {500, "cudaErrorSymbolNotFound", "named symbol not found"},
    {600, "cudaErrorNotReady", "device not ready"},
    {700, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {701, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {702, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {715, "cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
    {716, "cudaErrorMisalignedAddress", "misaligned address"},
    {719, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {720, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {800, "cudaErrorNotPermitted", "operation not permitted"},
    {801, "cudaErrorNotSupported", "operation not supported"},
    {999, "cudaErrorUnknown", "unknown error"},
};
const ErrText* find_err(int code) {
  for (const auto& e : kErrors)
    if (e.code == code) return &e;
  return nullptr;
}
}  // namespace

const char* error_name(int code) {
  const ErrText* e = find_err(code);
  return e ? e->name : "cudaErrorUnknown";
}

const char* error_string(int code) {
  const ErrText* e = find_err(code);
  return e ? e->text : "unrecognized error code";
}

}  // namespace relgpu::cudart
