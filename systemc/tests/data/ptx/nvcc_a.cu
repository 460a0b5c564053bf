#include <cstdio>
#include <cuda_fp16.h>
__constant__ float cvals[4] = {1.0f, 2.0f, 3.5f, -1.0f};
__device__ int gcount = 7;
__device__ int* gptr = &gcount;
__device__ double gd[2] = {1.5, 2.5};
struct S { int a; float b; double c; };
extern __shared__ float dyn[];
__global__ void k_math(float* o, const float* in, int n, S s) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  if (i < n) o[i] = sinf(tile[threadIdx.x]) + cosf(in[i]) + powf(in[i], 2.3f) + expf(in[i]) + logf(in[i]) + s.b + cvals[i&3] + (float)sin((double)in[i]) + s.c;
}
__global__ void k_atom(int* o, unsigned* b, float4* v, float4* w) {
  int i = threadIdx.x;
  atomicAdd(o, i); atomicCAS(o+1, 0, i); atomicMax(o+2, i);
  atomicAdd((float*)(o+3), 1.0f);
  unsigned m = __ballot_sync(0xffffffff, i & 1);
  int x = __shfl_sync(0xffffffff, i, 3);
  int y = __shfl_down_sync(0xffffffff, x, 1);
  b[i] = m + y + *gptr + __popc(m) + __clz(m);
  w[i] = make_float4(v[i].x*2, v[i].y, v[i].z, v[i].w);
  dyn[i] = i; __syncthreads(); o[i+5] = dyn[31-i];
  if (__any_sync(0xffffffff, i > 4)) o[0] = 1;
}
__global__ void k_half(__half* h, long long* l, unsigned long long* u) {
  int i = threadIdx.x;
  h[i] = __hadd(h[i], __float2half(1.0f));
  l[i] = l[i] * 3 / 7 + (l[i] >> 3);
  u[i] = u[i] % 11;
  printf("hello %d %f\n", i, 1.0);
}
template<typename T> __global__ void k_t(T* x) { x[threadIdx.x] += T(1); }
template __global__ void k_t<float>(float*);
template __global__ void k_t<double>(double*);
