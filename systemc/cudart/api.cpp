// The exported CUDA runtime API of relgpu's libcudart.so.13: each function
// takes the runtime's lock, calls one Runtime method, and turns what it
// throws into a cudaError_t (printing relgpu's message once). Nothing
// throws across this boundary. Every other function NVIDIA's runtime
// exports is a stub (stubs.cpp) that returns cudaErrorNotSupported.
#include <cstring>
#include <new>
#include <vector>

#include "common/error.h"
#include "cudart/api_call.h"
#include "cudart/cuda_abi.h"
#include "cudart/runtime.h"
#include "func/memory.h"

using relgpu::InputError;
using relgpu::KernelError;
using relgpu::cudart::CudaError;
using relgpu::cudart::Runtime;
using relgpu::cudart::api;
using relgpu::cudart::null_arg;
using relgpu::cudart::rt;

namespace {

struct CallConfig {
  dim3 grid, block;
  size_t shmem;
  cudaStream_t stream;
};
thread_local std::vector<CallConfig> g_call_stack;

}  // namespace

// Called by every stub in stubs.cpp.
extern "C" int relgpu_cudart_unimplemented(const char* name) {
  Runtime& r = rt();
  std::lock_guard<std::recursive_mutex> lock(r.mutex());
  r.say_once(std::string(name) + " is not implemented by relgpu's CUDA runtime; it returns cudaErrorNotSupported");
  r.set_last(cudaErrorNotSupported);
  return cudaErrorNotSupported;
}

// ============================================================== registration ABI

API void** __cudaRegisterFatBinary(void* fat_cubin) {
  Runtime& r = rt();
  std::lock_guard<std::recursive_mutex> lock(r.mutex());
  return r.register_fatbin(fat_cubin);
}

API void __cudaRegisterFatBinaryEnd(void** handle) {}

API void __cudaUnregisterFatBinary(void** handle) {
  Runtime& r = rt();
  std::lock_guard<std::recursive_mutex> lock(r.mutex());
  try {
    r.unregister_fatbin(handle);
  } catch (const std::exception& e) {
    r.say_once(std::string("at exit: ") + e.what());
  }
}

API void __cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun, const char* device_name,
                                int thread_limit, void* tid, void* bid, dim3* bdim, dim3* gdim, int* wsize) {
  Runtime& r = rt();
  std::lock_guard<std::recursive_mutex> lock(r.mutex());
  r.register_function(handle, host_fun, device_name);
}

API void __cudaRegisterVar(void** handle, char* host_var, char* device_address, const char* device_name, int ext,
                           size_t size, int constant, int global) {
  Runtime& r = rt();
  std::lock_guard<std::recursive_mutex> lock(r.mutex());
  r.register_var(handle, host_var, device_name, size, constant != 0);
}

API void __cudaRegisterManagedVar(void** handle, void** host_var_ptr, char* device_address, const char* device_name,
                                  int ext, size_t size, int constant, int global) {
  Runtime& r = rt();
  std::lock_guard<std::recursive_mutex> lock(r.mutex());
  r.say_once(std::string("__managed__ variable '") + (device_name ? device_name : "?") +
             "' is not supported by relgpu (no unified memory); using it fails");
}

API char __cudaInitModule(void** handle) { return 1; }

API unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream) {
  g_call_stack.push_back({grid, block, shmem, stream});
  return 0;
}

API cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shmem, void* stream) {
  if (g_call_stack.empty()) return cudaErrorMissingConfiguration;
  CallConfig c = g_call_stack.back();
  g_call_stack.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shmem = c.shmem;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

API cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_fn) {
  return api("__cudaGetKernel", [&](Runtime& r) {
    *kernel = r.kernel_handle(host_fn);
    if (!*kernel) throw CudaError(cudaErrorInvalidDeviceFunction, "");
  }, false);
}

API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shmem,
                                   cudaStream_t stream) {
  return api("kernel launch", [&](Runtime& r) { r.launch(kernel, grid, block, args, shmem, stream); });
}

API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shmem,
                                        cudaStream_t stream) {
  return __cudaLaunchKernel(kernel, grid, block, args, shmem, stream);
}

// ============================================================== errors

API cudaError_t cudaGetLastError(void) {
  Runtime& r = rt();
  std::lock_guard<std::recursive_mutex> lock(r.mutex());
  if (r.init_error()) return r.init_error();
  return r.take_last();
}

API cudaError_t cudaPeekAtLastError(void) {
  Runtime& r = rt();
  std::lock_guard<std::recursive_mutex> lock(r.mutex());
  if (r.init_error()) return r.init_error();
  return r.peek_last();
}

API const char* cudaGetErrorString(cudaError_t e) { return relgpu::cudart::error_string(e); }
API const char* cudaGetErrorName(cudaError_t e) { return relgpu::cudart::error_name(e); }

// ============================================================== device

API cudaError_t cudaGetDeviceCount(int* n) {
  if (!n) return null_arg("cudaGetDeviceCount");
  return api("cudaGetDeviceCount", [&](Runtime&) { *n = 1; }, false);
}

API cudaError_t cudaGetDevice(int* d) {
  if (!d) return null_arg("cudaGetDevice");
  return api("cudaGetDevice", [&](Runtime&) { *d = 0; }, false);
}

API cudaError_t cudaSetDevice(int d) {
  return api("cudaSetDevice", [&](Runtime&) {
    if (d != 0) throw CudaError(cudaErrorInvalidDevice, "device " + std::to_string(d) + ": relgpu models one GPU, device 0");
  }, false);
}

API cudaError_t cudaInitDevice(int d, unsigned, unsigned) { return cudaSetDevice(d); }
API cudaError_t cudaSetDeviceFlags(unsigned) { return api("cudaSetDeviceFlags", [](Runtime&) {}, false); }
API cudaError_t cudaGetDeviceFlags(unsigned* f) {
  if (!f) return null_arg("cudaGetDeviceFlags");
  *f = 0;
  return cudaSuccess;
}

API cudaError_t cudaChooseDevice(int* d, const cudaDeviceProp*) {
  if (!d) return null_arg("cudaChooseDevice");
  *d = 0;
  return cudaSuccess;
}

API cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) {
  if (!p) return null_arg("cudaGetDeviceProperties");
  return api("cudaGetDeviceProperties", [&](Runtime& r) {
    if (d != 0) throw CudaError(cudaErrorInvalidDevice, "");
    r.fill_properties(*p);
  }, false);
}

API cudaError_t cudaDeviceGetAttribute(int* value, int attr, int d) {
  if (!value) return null_arg("cudaDeviceGetAttribute");
  return api("cudaDeviceGetAttribute", [&](Runtime& r) {
    if (d != 0) throw CudaError(cudaErrorInvalidDevice, "");
    *value = r.attribute(attr);
  }, false);
}

API cudaError_t cudaDriverGetVersion(int* v) {
  if (!v) return null_arg("cudaDriverGetVersion");
  *v = 13000;
  return cudaSuccess;
}

API cudaError_t cudaRuntimeGetVersion(int* v) {
  if (!v) return null_arg("cudaRuntimeGetVersion");
  *v = 13000;
  return cudaSuccess;
}

API cudaError_t cudaDeviceSynchronize(void) {
  return api("cudaDeviceSynchronize", [](Runtime& r) { r.device().synchronize(); });
}

API cudaError_t cudaDeviceReset(void) {
  return api("cudaDeviceReset", [](Runtime& r) { r.reset(); }, false);
}

API cudaError_t cudaDeviceSetLimit(int limit, size_t value) {
  return api("cudaDeviceSetLimit", [&](Runtime& r) {
    if (limit == cudaLimitStackSize) {
      size_t have = size_t(r.config().value("func.stack_bytes").get<int64_t>());
      if (value > have)
        throw CudaError(cudaErrorUnsupportedLimit, "cudaLimitStackSize " + std::to_string(value) +
                                                       " bytes: set the stack with --set func.stack_bytes=" +
                                                       std::to_string(value) + " instead (now " +
                                                       std::to_string(have) + ")");
    } else if (limit == cudaLimitMallocHeapSize) {
      relgpu::func::GlobalMemory& m = r.device().memory();
      if (m.heap_base())
        throw CudaError(cudaErrorInvalidValue, "cudaLimitMallocHeapSize: a kernel already used device malloc, "
                                               "which fixed the heap at " + std::to_string(m.heap_limit) + " bytes");
      if (value < 16 || m.bytes_allocated() + value > r.global_mem_bytes())
        throw CudaError(cudaErrorInvalidValue, "cudaLimitMallocHeapSize " + std::to_string(value) +
                                                   " bytes: must be at least 16 and fit in the free device memory");
      m.heap_limit = value;
    } else if (limit != cudaLimitPrintfFifoSize) {
      throw CudaError(cudaErrorUnsupportedLimit, "");
    }
  }, false);
}

API cudaError_t cudaDeviceGetLimit(size_t* value, int limit) {
  if (!value) return null_arg("cudaDeviceGetLimit");
  return api("cudaDeviceGetLimit", [&](Runtime& r) {
    if (limit == cudaLimitStackSize) *value = size_t(r.config().value("func.stack_bytes").get<int64_t>());
    else if (limit == cudaLimitPrintfFifoSize) *value = 1 << 20;
    else if (limit == cudaLimitMallocHeapSize) *value = size_t(r.device().memory().heap_limit);
    else throw CudaError(cudaErrorUnsupportedLimit, "");
  }, false);
}

// The L1/shared split is fixed by the configuration (sm.shared_bytes,
// l1d.sets x l1d.ways): a preference other than "none" is refused, saying so.
[[noreturn]] static void fixed_split(const std::string& what) {
  throw CudaError(cudaErrorNotSupported, what + " cannot change the modelled L1/shared-memory split, which the "
                                                "configuration fixes (sm.shared_bytes, l1d.sets x l1d.ways)");
}
static void cache_preference(int pref) {
  if (pref != 0) fixed_split("cache preference " + std::to_string(pref));  // 0: cudaFuncCachePreferNone
}
API cudaError_t cudaDeviceSetCacheConfig(int pref) {
  return api("cudaDeviceSetCacheConfig", [&](Runtime&) { cache_preference(pref); });
}
API cudaError_t cudaDeviceGetCacheConfig(int* c) {
  if (c) *c = 0;
  return c ? cudaSuccess : null_arg("cudaDeviceGetCacheConfig");
}
API cudaError_t cudaDeviceSetSharedMemConfig(int) { return cudaSuccess; }
API cudaError_t cudaDeviceGetSharedMemConfig(int* c) {
  if (c) *c = 1;  // cudaSharedMemBankSizeFourByte
  return c ? cudaSuccess : null_arg("cudaDeviceGetSharedMemConfig");
}
API cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = 0;
  return cudaSuccess;
}
API cudaError_t cudaDeviceCanAccessPeer(int* can, int, int) {
  if (!can) return null_arg("cudaDeviceCanAccessPeer");
  *can = 0;
  return cudaSuccess;
}
API cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
API cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

// ============================================================== memory

API cudaError_t cudaMalloc(void** p, size_t n) {
  if (!p) return null_arg("cudaMalloc");
  return api("cudaMalloc", [&](Runtime& r) { *p = r.malloc(n); });
}

API cudaError_t cudaFree(void* p) {
  return api("cudaFree", [&](Runtime& r) { r.free(p); });
}

// Streams run serialized, so stream-ordered allocation is allocation now.
API cudaError_t cudaMallocAsync(void** p, size_t n, cudaStream_t s) {
  if (!p) return null_arg("cudaMallocAsync");
  return api("cudaMallocAsync", [&](Runtime& r) {
    r.check_stream(s);
    *p = r.malloc(n);
  });
}
API cudaError_t cudaMallocAsync_ptsz(void** p, size_t n, cudaStream_t s) { return cudaMallocAsync(p, n, s); }
API cudaError_t cudaFreeAsync(void* p, cudaStream_t s) {
  return api("cudaFreeAsync", [&](Runtime& r) {
    r.check_stream(s);
    r.free(p);
  });
}
API cudaError_t cudaFreeAsync_ptsz(void* p, cudaStream_t s) { return cudaFreeAsync(p, s); }

API cudaError_t cudaMallocManaged(void** p, size_t n, unsigned flags) {
  if (!p) return null_arg("cudaMallocManaged");
  return api("cudaMallocManaged", [&](Runtime& r) {
    if (flags != 1 && flags != 2)  // cudaMemAttachGlobal, cudaMemAttachHost
      throw CudaError(cudaErrorInvalidValue, "flags must be cudaMemAttachGlobal or cudaMemAttachHost");
    *p = r.malloc_managed(n);
  });
}

API cudaError_t cudaMallocPitch(void** p, size_t* pitch, size_t width, size_t height) {
  if (!p || !pitch) return null_arg("cudaMallocPitch");
  return api("cudaMallocPitch", [&](Runtime& r) {
    *pitch = (width + 255) / 256 * 256;
    *p = r.malloc(*pitch * height);
  });
}

API cudaError_t cudaMallocHost(void** p, size_t n) {
  if (!p) return null_arg("cudaMallocHost");
  return api("cudaMallocHost", [&](Runtime& r) { *p = r.malloc_host(n); }, false);
}

API cudaError_t cudaHostAlloc(void** p, size_t n, unsigned flags) {
  if (!p) return null_arg("cudaHostAlloc");
  return api("cudaHostAlloc", [&](Runtime& r) {
    if (flags & 0x02)  // cudaHostAllocMapped
      throw CudaError(cudaErrorNotSupported, "cudaHostAllocMapped: relgpu's kernels cannot access host memory");
    *p = r.malloc_host(n);
  }, false);
}

API cudaError_t cudaFreeHost(void* p) {
  return api("cudaFreeHost", [&](Runtime& r) { r.free_host(p); }, false);
}

API cudaError_t cudaHostRegister(void*, size_t, unsigned) { return cudaSuccess; }
API cudaError_t cudaHostUnregister(void*) { return cudaSuccess; }

API cudaError_t cudaMemGetInfo(size_t* free_b, size_t* total) {
  return api("cudaMemGetInfo", [&](Runtime& r) {
    size_t t = r.global_mem_bytes(), used = r.device().memory().bytes_allocated();
    if (total) *total = t;
    if (free_b) *free_b = used < t ? t - used : 0;
  });
}

API cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p) {
  if (!a) return null_arg("cudaPointerGetAttributes");
  return api("cudaPointerGetAttributes", [&](Runtime& r) {
    std::memset(a, 0, sizeof *a);
    if (r.is_device(p)) {
      a->type = cudaMemoryTypeDevice;
      a->devicePointer = const_cast<void*>(p);
    } else if (r.is_host_alloc(p)) {
      a->type = cudaMemoryTypeHost;
      a->hostPointer = const_cast<void*>(p);
    } else {
      a->type = cudaMemoryTypeUnregistered;
      a->device = -2;
      a->hostPointer = const_cast<void*>(p);
    }
  });
}

API cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, int kind) {
  return api("cudaMemcpy", [&](Runtime& r) { r.memcpy(dst, src, n, kind); });
}
API cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t n, int kind) { return cudaMemcpy(dst, src, n, kind); }

API cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, int kind, cudaStream_t s) {
  return api("cudaMemcpyAsync", [&](Runtime& r) {
    r.check_stream(s);
    r.memcpy(dst, src, n, kind);
  });
}
API cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t n, int kind, cudaStream_t s) {
  return cudaMemcpyAsync(dst, src, n, kind, s);
}

static void copy_2d(Runtime& r, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                    size_t height, int kind) {
  if (width > dpitch || width > spitch)
    throw CudaError(cudaErrorInvalidPitchValue, "cudaMemcpy2D: width exceeds a pitch");
  for (size_t y = 0; y < height; ++y)
    r.memcpy(static_cast<char*>(dst) + y * dpitch, static_cast<const char*>(src) + y * spitch, width, kind);
}

API cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                             int kind) {
  return api("cudaMemcpy2D", [&](Runtime& r) { copy_2d(r, dst, dpitch, src, spitch, width, height, kind); });
}
API cudaError_t cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                  size_t height, int kind) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
API cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                  size_t height, int kind, cudaStream_t s) {
  return api("cudaMemcpy2DAsync", [&](Runtime& r) {
    r.check_stream(s);
    copy_2d(r, dst, dpitch, src, spitch, width, height, kind);
  });
}
API cudaError_t cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                       size_t height, int kind, cudaStream_t s) {
  return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, s);
}

API cudaError_t cudaMemset(void* p, int v, size_t n) {
  return api("cudaMemset", [&](Runtime& r) { r.memset(p, v, n); });
}
API cudaError_t cudaMemset_ptds(void* p, int v, size_t n) { return cudaMemset(p, v, n); }
API cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t s) {
  return api("cudaMemsetAsync", [&](Runtime& r) {
    r.check_stream(s);
    r.memset(p, v, n);
  });
}
API cudaError_t cudaMemsetAsync_ptsz(void* p, int v, size_t n, cudaStream_t s) { return cudaMemsetAsync(p, v, n, s); }
static void memset_2d(Runtime& r, void* p, size_t pitch, int v, size_t width, size_t height) {
  // One row needs no pitch; more rows with width > pitch: invalid value (the
  // CUDA 13 runtime on an H200, scripts/native_cuda_apps).
  if (width > pitch && height > 1)
    throw CudaError(cudaErrorInvalidValue, "width " + std::to_string(width) + " exceeds the pitch " +
                                               std::to_string(pitch) + " of " + std::to_string(height) + " rows");
  for (size_t y = 0; y < height; ++y) r.memset(static_cast<char*>(p) + y * pitch, v, width);
}
API cudaError_t cudaMemset2D(void* p, size_t pitch, int v, size_t width, size_t height) {
  return api("cudaMemset2D", [&](Runtime& r) { memset_2d(r, p, pitch, v, width, height); });
}
API cudaError_t cudaMemset2DAsync(void* p, size_t pitch, int v, size_t width, size_t height, cudaStream_t s) {
  return api("cudaMemset2DAsync", [&](Runtime& r) {
    r.check_stream(s);
    memset_2d(r, p, pitch, v, width, height);
  });
}
API cudaError_t cudaMemset2DAsync_ptsz(void* p, size_t pitch, int v, size_t width, size_t height, cudaStream_t s) {
  return cudaMemset2DAsync(p, pitch, v, width, height, s);
}

// ---- __device__ / __constant__ variables

static void to_symbol(Runtime& r, const void* symbol, const void* src, size_t count, size_t offset, int kind) {
  size_t size = 0;
  uint64_t addr = r.symbol(symbol, &size);
  if (offset > size || count > size - offset)
    throw CudaError(cudaErrorInvalidValue, std::to_string(count) + " bytes at offset " + std::to_string(offset) +
                                               " exceed the variable's " + std::to_string(size) + " bytes");
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    throw CudaError(cudaErrorInvalidMemcpyDirection, "");
  r.memcpy(reinterpret_cast<void*>(addr + offset), src, count, kind == cudaMemcpyDefault ? cudaMemcpyDefault : kind);
}

static void from_symbol(Runtime& r, void* dst, const void* symbol, size_t count, size_t offset, int kind) {
  size_t size = 0;
  uint64_t addr = r.symbol(symbol, &size);
  if (offset > size || count > size - offset)
    throw CudaError(cudaErrorInvalidValue, std::to_string(count) + " bytes at offset " + std::to_string(offset) +
                                               " exceed the variable's " + std::to_string(size) + " bytes");
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    throw CudaError(cudaErrorInvalidMemcpyDirection, "");
  r.memcpy(dst, reinterpret_cast<const void*>(addr + offset), count, kind);
}

API cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset, int kind) {
  return api("cudaMemcpyToSymbol", [&](Runtime& r) { to_symbol(r, symbol, src, count, offset, kind); });
}
API cudaError_t cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t count, size_t offset, int kind) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
API cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset, int kind,
                                        cudaStream_t s) {
  return api("cudaMemcpyToSymbolAsync", [&](Runtime& r) {
    r.check_stream(s);
    to_symbol(r, symbol, src, count, offset, kind);
  });
}
API cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src, size_t count, size_t offset,
                                             int kind, cudaStream_t s) {
  return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, s);
}
API cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset, int kind) {
  return api("cudaMemcpyFromSymbol", [&](Runtime& r) { from_symbol(r, dst, symbol, count, offset, kind); });
}
API cudaError_t cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t count, size_t offset, int kind) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
API cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset, int kind,
                                          cudaStream_t s) {
  return api("cudaMemcpyFromSymbolAsync", [&](Runtime& r) {
    r.check_stream(s);
    from_symbol(r, dst, symbol, count, offset, kind);
  });
}
API cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol, size_t count, size_t offset, int kind,
                                               cudaStream_t s) {
  return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, s);
}

API cudaError_t cudaGetSymbolAddress(void** p, const void* symbol) {
  if (!p) return null_arg("cudaGetSymbolAddress");
  return api("cudaGetSymbolAddress", [&](Runtime& r) { *p = reinterpret_cast<void*>(r.symbol(symbol, nullptr)); });
}

API cudaError_t cudaGetSymbolSize(size_t* n, const void* symbol) {
  if (!n) return null_arg("cudaGetSymbolSize");
  return api("cudaGetSymbolSize", [&](Runtime& r) { r.symbol(symbol, n); });
}

// ============================================================== streams

API cudaError_t cudaStreamCreate(cudaStream_t* s) {
  if (!s) return null_arg("cudaStreamCreate");
  return api("cudaStreamCreate", [&](Runtime& r) { *s = r.stream_create(); });
}
API cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) { return cudaStreamCreate(s); }
API cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned, int) { return cudaStreamCreate(s); }
API cudaError_t cudaStreamDestroy(cudaStream_t s) {
  return api("cudaStreamDestroy", [&](Runtime& r) { r.stream_destroy(s); }, false);
}
API cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  return api("cudaStreamSynchronize", [&](Runtime& r) { r.check_stream(s); });
}
API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) { return cudaStreamSynchronize(s); }
API cudaError_t cudaStreamQuery(cudaStream_t s) {
  return api("cudaStreamQuery", [&](Runtime& r) { r.check_stream(s); });
}
API cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) { return cudaStreamQuery(s); }
API cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned) {
  return api("cudaStreamWaitEvent", [&](Runtime& r) {
    r.check_stream(s);
    r.event_recorded(e);
  });
}
API cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t e, unsigned f) {
  return cudaStreamWaitEvent(s, e, f);
}
API cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void* user, unsigned) {
  cudaError_t e = api("cudaStreamAddCallback", [&](Runtime& r) { r.check_stream(s); });
  if (e == cudaSuccess && cb) cb(s, cudaSuccess, user);  // everything before it has completed
  return e;
}
API cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t s, cudaStreamCallback_t cb, void* user, unsigned f) {
  return cudaStreamAddCallback(s, cb, user, f);
}
API cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void* user) {
  cudaError_t e = api("cudaLaunchHostFunc", [&](Runtime& r) { r.check_stream(s); });
  if (e == cudaSuccess && fn) fn(user);
  return e;
}
API cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t s, cudaHostFn_t fn, void* user) {
  return cudaLaunchHostFunc(s, fn, user);
}

// ============================================================== events

API cudaError_t cudaEventCreate(cudaEvent_t* e) {
  if (!e) return null_arg("cudaEventCreate");
  return api("cudaEventCreate", [&](Runtime& r) { *e = r.event_create(0); });
}
API cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags) {
  if (!e) return null_arg("cudaEventCreateWithFlags");
  return api("cudaEventCreateWithFlags", [&](Runtime& r) { *e = r.event_create(flags); });
}
API cudaError_t cudaEventDestroy(cudaEvent_t e) {
  return api("cudaEventDestroy", [&](Runtime& r) { r.event_destroy(e); }, false);
}
API cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  return api("cudaEventRecord", [&](Runtime& r) { r.event_record(e, s); });
}
API cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s) { return cudaEventRecord(e, s); }
API cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned) { return cudaEventRecord(e, s); }
API cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s, unsigned) { return cudaEventRecord(e, s); }
API cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  return api("cudaEventSynchronize", [&](Runtime& r) { r.event_recorded(e); });
}
API cudaError_t cudaEventQuery(cudaEvent_t e) {
  return api("cudaEventQuery", [&](Runtime& r) { r.event_recorded(e); });
}
API cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms) return null_arg("cudaEventElapsedTime");
  return api("cudaEventElapsedTime", [&](Runtime& r) { *ms = r.event_elapsed_ms(start, end); });
}

// ============================================================== kernels

API cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shmem, cudaStream_t s) {
  return api("cudaLaunchKernel", [&](Runtime& r) { r.launch_host_fn(func, grid, block, args, shmem, s); });
}
API cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args, size_t shmem,
                                      cudaStream_t s) {
  return cudaLaunchKernel(func, grid, block, args, shmem, s);
}

API cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shmem,
                                           cudaStream_t s) {
  return api("cudaLaunchCooperativeKernel",
             [&](Runtime& r) { r.launch_host_fn(func, grid, block, args, shmem, s, true); });
}
API cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args, size_t shmem,
                                                cudaStream_t s) {
  return cudaLaunchCooperativeKernel(func, grid, block, args, shmem, s);
}

// What cudaLaunchKernelEx calls. Of the attributes only `cooperative`
// changes how relgpu runs a launch; the others are performance hints.
API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* c, const void* func, void** args) {
  if (!c || (c->numAttrs && !c->attrs)) return null_arg("cudaLaunchKernelExC");
  bool coop = false;
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == cudaLaunchAttributeCooperative) coop = c->attrs[i].val.cooperative != 0;
  return api("cudaLaunchKernelExC", [&](Runtime& r) {
    r.launch_host_fn(func, c->gridDim, c->blockDim, args, c->dynamicSmemBytes, c->stream, coop);
  });
}
API cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* c, const void* func, void** args) {
  return cudaLaunchKernelExC(c, func, args);
}

API cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* n, const void* func, int ctas, int block_size) {
  if (!n) return null_arg("cudaOccupancyAvailableDynamicSMemPerBlock");
  return api("cudaOccupancyAvailableDynamicSMemPerBlock",
             [&](Runtime& r) { *n = r.available_dyn_shared(func, ctas, block_size); });
}

API cudaError_t cudaGetKernel(cudaKernel_t* k, const void* func) { return __cudaGetKernel(k, func); }

API cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void* func) {
  if (!a) return null_arg("cudaFuncGetAttributes");
  return api("cudaFuncGetAttributes", [&](Runtime& r) { r.func_attributes(func, *a); });
}

API cudaError_t cudaFuncSetAttribute(const void* func, int attr, int value) {
  return api("cudaFuncSetAttribute", [&](Runtime& r) {
    r.func_name(func);  // a valid kernel
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) r.set_max_dynamic_shared(func, value);
    // -1: cudaSharedmemCarveoutDefault. Other attributes are hints.
    if (attr == cudaFuncAttributePreferredSharedMemoryCarveout && value != -1)
      fixed_split("a shared-memory carveout of " + std::to_string(value) + "%");
  });
}

API cudaError_t cudaFuncSetCacheConfig(const void* func, int pref) {
  return api("cudaFuncSetCacheConfig", [&](Runtime& r) {
    r.func_name(func);
    cache_preference(pref);
  });
}
API cudaError_t cudaFuncSetSharedMemConfig(const void* func, int) {
  return api("cudaFuncSetSharedMemConfig", [&](Runtime& r) { r.func_name(func); });
}

API cudaError_t cudaFuncGetName(const char** name, const void* func) {
  if (!name) return null_arg("cudaFuncGetName");
  return api("cudaFuncGetName", [&](Runtime& r) { *name = r.func_name(func); }, false);
}

API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, const void* func, int block_size,
                                                                       size_t dyn_shmem, unsigned) {
  if (!n) return null_arg("cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return api("cudaOccupancyMaxActiveBlocksPerMultiprocessor",
             [&](Runtime& r) { *n = r.occupancy(func, block_size, dyn_shmem); });
}
API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, const void* func, int block_size,
                                                              size_t dyn_shmem) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, func, block_size, dyn_shmem, 0);
}

// ============================================================== misc

// Returned by value (in memory, through the hidden pointer): a stub would not fill it.
API cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, int f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}
