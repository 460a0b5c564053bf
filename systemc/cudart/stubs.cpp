// A weak definition of every function NVIDIA's libcudart.so.13 exports
// (exports.inc), so that any program built against CUDA 13 loads: the
// dynamic linker refuses a program whose versioned symbols are missing.
// api.cpp's real definitions replace these at link time. A stub prints one
// line naming itself (once) and returns cudaErrorNotSupported (801); it
// never touches its arguments. Every CUDA runtime function returns
// cudaError_t (an int) except the few api.cpp implements for that reason
// (cudaGetErrorName/String, cudaCreateChannelDesc, the __cuda* registration calls).
// This file must not see the real prototypes (cuda_abi.h): the stubs declare
// every name as `int name()`.
extern "C" int relgpu_cudart_unimplemented(const char* name);

#define RELGPU_EXPORT(name) \
  extern "C" __attribute__((weak, visibility("default"))) int name() { return relgpu_cudart_unimplemented(#name); }
#include "cudart/exports.inc"
