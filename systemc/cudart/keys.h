// Configuration keys of the CUDA runtime replacement (libcudart.so.13).
// `relgpu exec` includes this header too, so that it validates these keys
// (and `relgpu config --explain` lists them) before it starts the program.
#pragma once
#include <cstdint>

#include "common/config.h"

namespace relgpu::cudart {

inline const config::Key<int64_t> kGlobalMemBytes{
    "cudart.global_mem_bytes", int64_t(1536) << 20, "bytes",
    "device memory the CUDA runtime reports (cudaDeviceProp.totalGlobalMem, cudaMemGetInfo) and lets "
    "cudaMalloc allocate, module variables included (GTX480: 1.5 GiB)",
    1 << 20, 1099511627776.0};

}  // namespace relgpu::cudart
