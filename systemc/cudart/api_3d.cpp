// 3-D linear memory of the CUDA runtime API: cudaMalloc3D, cudaMemcpy3D and
// cudaMemset3D (and their Async forms; streams run serialized). A 3-D
// region is `depth` slices of `height` rows of `width` bytes, rows `pitch`
// bytes apart and slices pitch x ysize apart. CUDA arrays are not supported.
#include <string>

#include "cudart/api_call.h"

using relgpu::cudart::api;
using relgpu::cudart::CudaError;
using relgpu::cudart::null_arg;
using relgpu::cudart::Runtime;

namespace {

char* at(const cudaPitchedPtr& p, const cudaPos& o, size_t y, size_t z) {
  return static_cast<char*>(p.ptr) + (o.z + z) * p.pitch * p.ysize + (o.y + y) * p.pitch + o.x;
}

void check(const cudaPitchedPtr& p, const cudaPos& o, const cudaExtent& e, const char* side) {
  if (!p.ptr) throw CudaError(cudaErrorInvalidValue, std::string(side) + ".ptr is null");
  if (o.x + e.width > p.pitch)
    throw CudaError(cudaErrorInvalidPitchValue, std::string(side) + ": x offset " + std::to_string(o.x) + " + width " +
                                                    std::to_string(e.width) + " exceeds the pitch " +
                                                    std::to_string(p.pitch));
}

void copy_3d(Runtime& r, const cudaMemcpy3DParms* p) {
  if (p->srcArray || p->dstArray) throw CudaError(cudaErrorNotSupported, "CUDA arrays are not supported by relgpu");
  const cudaExtent& e = p->extent;
  check(p->srcPtr, p->srcPos, e, "srcPtr");
  check(p->dstPtr, p->dstPos, e, "dstPtr");
  for (size_t z = 0; z < e.depth; ++z)
    for (size_t y = 0; y < e.height; ++y)
      r.memcpy(at(p->dstPtr, p->dstPos, y, z), at(p->srcPtr, p->srcPos, y, z), e.width, p->kind);
}

void set_3d(Runtime& r, const cudaPitchedPtr& p, int v, const cudaExtent& e) {
  const cudaPos o{0, 0, 0};
  check(p, o, e, "pitchedDevPtr");
  for (size_t z = 0; z < e.depth; ++z)
    for (size_t y = 0; y < e.height; ++y) r.memset(at(p, o, y, z), v, e.width);
}

}  // namespace

API cudaError_t cudaMalloc3D(cudaPitchedPtr* p, cudaExtent e) {
  if (!p) return null_arg("cudaMalloc3D");
  return api("cudaMalloc3D", [&](Runtime& r) {
    size_t pitch = (e.width + 255) / 256 * 256;  // as cudaMallocPitch
    *p = cudaPitchedPtr{r.malloc(pitch * e.height * e.depth), pitch, e.width, e.height};
  });
}

API cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  if (!p) return null_arg("cudaMemcpy3D");
  return api("cudaMemcpy3D", [&](Runtime& r) { copy_3d(r, p); });
}
API cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms* p) { return cudaMemcpy3D(p); }
API cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t s) {
  if (!p) return null_arg("cudaMemcpy3DAsync");
  return api("cudaMemcpy3DAsync", [&](Runtime& r) {
    r.check_stream(s);
    copy_3d(r, p);
  });
}
API cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms* p, cudaStream_t s) { return cudaMemcpy3DAsync(p, s); }

API cudaError_t cudaMemset3D(cudaPitchedPtr p, int v, cudaExtent e) {
  return api("cudaMemset3D", [&](Runtime& r) { set_3d(r, p, v, e); });
}
API cudaError_t cudaMemset3D_ptds(cudaPitchedPtr p, int v, cudaExtent e) { return cudaMemset3D(p, v, e); }
API cudaError_t cudaMemset3DAsync(cudaPitchedPtr p, int v, cudaExtent e, cudaStream_t s) {
  return api("cudaMemset3DAsync", [&](Runtime& r) {
    r.check_stream(s);
    set_3d(r, p, v, e);
  });
}
API cudaError_t cudaMemset3DAsync_ptsz(cudaPitchedPtr p, int v, cudaExtent e, cudaStream_t s) {
  return cudaMemset3DAsync(p, v, e, s);
}
