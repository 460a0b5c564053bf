// Configuration keys of the CUDA runtime replacement (libcudart.so.13).
// `relgpu exec` includes this header too, so that it validates these keys
// (and `relgpu config --explain` lists them) before it starts the program.
#pragma once
#include <cstdint>
#include <string>

#include "common/config.h"

namespace relgpu::cudart {

inline const config::Key<int64_t> kGlobalMemBytes{
    "cudart.global_mem_bytes", int64_t(1536) << 20, "bytes",
    "device memory the CUDA runtime reports (cudaDeviceProp.totalGlobalMem, cudaMemGetInfo) and lets "
    "cudaMalloc allocate, module variables included (GTX480: 1.5 GiB)",
    1 << 20, 1099511627776.0};

// Read by Runtime::load (runtime.cpp) through ptx::find_ptxas.
inline const config::Key<std::string> kPtxas{
    "cudart.ptxas", "auto", "",
    "ptxas that gives each kernel's registers per thread (ptxas -v -arch=sm_75 on the program's PTX, cached per "
    "PTX in ~/.cache/relgpu/ptxas), as GPGPU-Sim takes them from its ptxinfo file: 'auto' looks in PATH, "
    "$CUDA_HOME/bin and /usr/local/cuda/bin; 'off' or a ptxas that is not found or fails: relgpu's own "
    "allocator's count, with a warning naming the kernel; else the path of ptxas"};
inline const config::Key<int64_t> kStatsDetailLaunches{
    "cudart.stats_detail_launches", 32, "launches",
    "--stats: the first this many launches keep their mechanism stats ('detail') in the stats JSON; "
    "later launches keep their headline fields and are only summed into the run totals, so that "
    "memory and the stats file stay bounded for programs with many launches",
    0, 9.2e18};

}  // namespace relgpu::cudart
