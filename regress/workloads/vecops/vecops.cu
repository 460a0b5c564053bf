// Streaming vector kernels (memory-bound), all with grid-stride loops so a
// fixed grid covers any length.
#include <cstddef>

// y = a*x + y
extern "C" __global__ void saxpy(size_t n, float a, const float* __restrict__ x, float* __restrict__ y)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = fmaf(a, x[i], y[i]);
}

// out = (b + s*c) * d over four arrays, four elements per float4 access.
// The arrays come from cudaMalloc (256-byte aligned), so the float4 casts are
// aligned; the n % 4 tail elements are done one at a time.
extern "C" __global__ void triad4(size_t n, float s, const float* __restrict__ b, const float* __restrict__ c,
                                  const float* __restrict__ d, float* __restrict__ out)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t n4 = n / 4;
    const float4* b4 = reinterpret_cast<const float4*>(b);
    const float4* c4 = reinterpret_cast<const float4*>(c);
    const float4* d4 = reinterpret_cast<const float4*>(d);
    float4* o4 = reinterpret_cast<float4*>(out);
    for (size_t i = tid; i < n4; i += stride) {
        const float4 vb = b4[i], vc = c4[i], vd = d4[i];
        float4 r;
        r.x = fmaf(s, vc.x, vb.x) * vd.x;
        r.y = fmaf(s, vc.y, vb.y) * vd.y;
        r.z = fmaf(s, vc.z, vb.z) * vd.z;
        r.w = fmaf(s, vc.w, vb.w) * vd.w;
        o4[i] = r;
    }
    for (size_t i = n4 * 4 + tid; i < n; i += stride)
        out[i] = fmaf(s, c[i], b[i]) * d[i];
}

// v = min(max(v, lo), hi) * scale, in place.
extern "C" __global__ void clamp_scale(size_t n, float lo, float hi, float scale, float* __restrict__ v)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        v[i] = fminf(fmaxf(v[i], lo), hi) * scale;
}
