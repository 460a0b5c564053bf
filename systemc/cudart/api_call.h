// The wrapper every exported CUDA call of relgpu's libcudart.so.13 goes
// through (api.cpp, api_3d.cpp): the runtime's lock, the sticky error, and
// what a Runtime method throws turned into a cudaError_t, printing relgpu's
// message once. Nothing throws across this boundary.
#pragma once
#include <mutex>
#include <new>
#include <string>

#include "common/error.h"
#include "cudart/cuda_abi.h"
#include "cudart/runtime.h"

#define API extern "C" __attribute__((visibility("default")))

namespace relgpu::cudart {

inline Runtime& rt() { return Runtime::instance(); }

// Runs `f` under the runtime's lock. `device_call`: fails with the sticky
// error of an earlier kernel fault, as every device call does on a GPU.
template <class F> cudaError_t api(const char* name, F&& f, bool device_call = true) {
  Runtime& r = rt();
  std::lock_guard<std::recursive_mutex> lock(r.mutex());
  if (r.init_error()) {
    r.say_once(r.init_message());
    return r.init_error();
  }
  if (device_call && r.sticky()) return r.sticky();
  int code = cudaSuccess;
  try {
    f(r);
  } catch (const CudaError& e) {
    code = e.code;
    if (*e.what()) r.say_once(std::string(name) + ": " + e.what());
  } catch (const InputError& e) {
    code = cudaErrorInvalidValue;
    r.say_once(std::string(name) + ": " + e.what());
  } catch (const KernelError& e) {
    code = relgpu::cudart::kernel_error_code(e.what());
    r.say_once(std::string(name) + ": kernel error: " + e.what());
  } catch (const std::bad_alloc&) {
    code = cudaErrorMemoryAllocation;
  } catch (const std::exception& e) {
    code = cudaErrorUnknown;
    r.say_once(std::string(name) + ": internal error: " + e.what());
  }
  r.set_last(code);
  return code;
}

inline cudaError_t null_arg(const char* name) {
  rt().set_last(cudaErrorInvalidValue);
  return cudaErrorInvalidValue;
}

}  // namespace relgpu::cudart
