#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
struct Big { double d[3]; int k; };
__device__ __noinline__ Big twice(Big b) { for (int i = 0; i < 3; i++) b.d[i] *= 2; b.k++; return b; }
__global__ void k1(double* o, const double* in, Big b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = in[i];
  Big c = twice(b);
  o[i] = sin(x) + cos(x) + exp(x) + log(x) + pow(x, 1.5) + sqrt(x) + atan2(x, 2.0) + erf(x) + tanh(x) + fmod(x, 3.0) + c.d[1] + c.k + x / in[i+1] + rsqrt(x) + cbrt(x);
}
__global__ void k2(float* o, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[i];
  o[i] = erff(x) + tanhf(x) + atan2f(x, 2.f) + fmodf(x, 3.f) + __expf(x) + __logf(x) + __sinf(x) + exp2f(x) + log2f(x) + truncf(x) + roundf(x) + floorf(x) + ceilf(x) + fabsf(x) + copysignf(x, -1.f) + fmaf(x, x, x) + __saturatef(x) + rintf(x);
  int a = __float2int_rn(x); unsigned u = __float_as_uint(x);
  o[i+n] = (float)(__popc(u) + __clz(a) + __ffs(a) + __brev(u) + __byte_perm(u, a, 0x3210) + __funnelshift_l(u, a, 5) + (a / 7) + (a % 13) + (u / 9u) + __mul24(a, 3) + __sad(a, 5, u) + __dp4a(a, a, 1));
  long long l = (long long)x; o[i+2*n] = (float)(l * l / (l + 3) + __mul64hi(l, l));
  cg::thread_block tb = cg::this_thread_block(); tb.sync();
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(tb);
  o[i + 3*n] = w.shfl_up(x, 1) + __shfl_sync(0xffffffff, x, 0) + (float)__match_any_sync(0xffffffff, a);
  __half hx = __float2half(x); __nv_bfloat16 bx = __float2bfloat16(x);
  o[i+4*n] = __half2float(__hfma(hx, hx, hx)) + __bfloat162float(bx) + __half2float(hsqrt(hx)) + __half2float(hexp(hx));
  unsigned long long t = atomicAdd((unsigned long long*)o, 1ull); atomicAdd((double*)o + 1, 1.0); atomicMin((int*)o+2, a);
  atomicAdd((__half*)o+10, hx);
  __nanosleep(100);
  o[i + 5*n] = t + isnan(x) + isinf(x) + signbit(x); __threadfence_block();
  volatile float* vv = o; vv[0] = 1;
  float4 f4 = reinterpret_cast<const float4*>(in)[i]; reinterpret_cast<float4*>(o)[i] = f4;
  double2 d2 = reinterpret_cast<const double2*>(in)[i]; reinterpret_cast<double2*>(o)[i+1] = d2;
  uchar4 c4 = reinterpret_cast<const uchar4*>(in)[i]; reinterpret_cast<uchar4*>(o)[i+2] = c4;
  short2 s2 = reinterpret_cast<const short2*>(in)[i]; reinterpret_cast<short2*>(o)[i+3] = s2;
}
__device__ unsigned __lanemask_lt_() { unsigned r; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r)); return r; }
__global__ void k3(int* data, int n) {
  extern __shared__ int sm[];
  __shared__ int cnt;
  if (threadIdx.x == 0) cnt = 0; __syncthreads();
  atomicAdd(&cnt, 1); sm[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  int c = __syncthreads_count(sm[threadIdx.x] > 0) + __syncthreads_or(sm[0]) + __syncthreads_and(sm[1]);
  if (__all_sync(0xffffffff, c > 0)) data[threadIdx.x] = cnt + c + __lanemask_lt_() + (int)clock();
  asm volatile("membar.cta;");
  switch (data[n]) { case 0: data[1] = 3; break; case 1: data[2] = 4; break; case 2: data[3] = 5; break; case 3: data[7] = 1; break; case 4: data[9]=2; break; default: data[4] = 6; }
}
