// Sum reduction of a large unsigned array (unsigned so the sum wraps and the
// result is exact whatever the order).
//
// reduce_partial: each block reduces a grid-stride slice into shared memory
// (dynamic, blockDim.x words), halves it with barriers down to one warp, then
// finishes with __shfl_down_sync; thread 0 writes the block's partial sum.
// The host runs it twice: over the input, then with one block over the
// partials.
//
// reduce_atomic: the same tree with a static shared array, but every block
// adds its sum into one 64-bit total with atomicAdd (a single pass).

#define ATOMIC_BLOCK 256

// Adds the values held by the 32 lanes of warp 0; lane 0 gets the total.
__device__ __forceinline__ unsigned warp_sum(unsigned v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Tree over shared memory down to 64 values, then the first warp folds the
// last 64 into registers. Requires blockDim.x to be a power of two >= 64.
__device__ __forceinline__ unsigned block_sum(unsigned* s, unsigned v) {
  unsigned tid = threadIdx.x;
  s[tid] = v;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 32; half >>= 1) {
    if (tid < half) s[tid] += s[tid + half];
    __syncthreads();
  }
  unsigned sum = 0;
  if (tid < 32) sum = warp_sum(s[tid] + s[tid + 32]);
  return sum;
}

extern "C" __global__ void reduce_partial(const unsigned* __restrict__ in, size_t n,
                                          unsigned* __restrict__ partial) {
  extern __shared__ unsigned s_partial[];
  size_t stride = (size_t)gridDim.x * blockDim.x;
  unsigned v = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    v += in[i];
  unsigned sum = block_sum(s_partial, v);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

extern "C" __global__ void reduce_atomic(const unsigned* __restrict__ in, size_t n,
                                         unsigned long long* total) {
  __shared__ unsigned s_atomic[ATOMIC_BLOCK];
  size_t stride = (size_t)gridDim.x * blockDim.x;
  unsigned v = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    v += in[i];
  unsigned sum = block_sum(s_atomic, v);
  // 64-bit total: exact as long as each block's own sum fits in 32 bits
  // (the host sizes its inputs so that it does).
  if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)sum);
}
