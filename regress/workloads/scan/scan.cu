// Work-efficient exclusive prefix sum (Blelloch up-sweep / down-sweep) of an
// unsigned array larger than one block.
//
// scan_blocks: each block scans 2*blockDim.x elements held in dynamic shared
// memory (padded by one word per 32 so the tree's strided accesses spread
// over the banks) and writes its total to block_sums. The host scans
// block_sums the same way (recursively) and scan_add_offsets adds each
// block's offset. blockDim.x must be a power of two. `in` may equal `out`:
// a block reads its whole slice before writing it.

#define LOG_BANKS 5
#define PAD(i) ((i) + ((i) >> LOG_BANKS))

extern "C" __global__ void scan_blocks(const unsigned* in, unsigned* out, unsigned* block_sums,
                                       size_t n) {
  extern __shared__ unsigned s[];
  const unsigned tid = threadIdx.x;
  const unsigned m = 2 * blockDim.x;
  const size_t base = (size_t)blockIdx.x * m;
  const unsigned a = tid, b = tid + blockDim.x;
  s[PAD(a)] = base + a < n ? in[base + a] : 0u;
  s[PAD(b)] = base + b < n ? in[base + b] : 0u;

  // Up-sweep: after the level with stride `offset`, s[k*2*offset - 1] holds
  // the sum of the 2*offset elements ending there.
  unsigned offset = 1;
  for (unsigned active = m >> 1; active > 0; active >>= 1) {
    __syncthreads();
    if (tid < active) {
      unsigned i = offset * (2 * tid + 1) - 1;
      unsigned j = offset * (2 * tid + 2) - 1;
      s[PAD(j)] += s[PAD(i)];
    }
    offset <<= 1;
  }
  if (tid == 0) {
    block_sums[blockIdx.x] = s[PAD(m - 1)];
    s[PAD(m - 1)] = 0;
  }
  // Down-sweep: push prefixes back down the same tree.
  for (unsigned active = 1; active < m; active <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (tid < active) {
      unsigned i = offset * (2 * tid + 1) - 1;
      unsigned j = offset * (2 * tid + 2) - 1;
      unsigned left = s[PAD(i)];
      s[PAD(i)] = s[PAD(j)];
      s[PAD(j)] += left;
    }
  }
  __syncthreads();
  if (base + a < n) out[base + a] = s[PAD(a)];
  if (base + b < n) out[base + b] = s[PAD(b)];
}

// Adds offsets[blockIdx.x] (the exclusive scan of the block sums) to the
// 2*blockDim.x elements block blockIdx.x of scan_blocks produced.
extern "C" __global__ void scan_add_offsets(unsigned* data, const unsigned* __restrict__ offsets,
                                            size_t n) {
  const unsigned add = offsets[blockIdx.x];
  const size_t base = (size_t)blockIdx.x * 2 * blockDim.x;
  size_t i = base + threadIdx.x;
  if (i < n) data[i] += add;
  i += blockDim.x;
  if (i < n) data[i] += add;
}
