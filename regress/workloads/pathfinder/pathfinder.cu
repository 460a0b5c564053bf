// Minimum-cost path down a grid of cell costs: row r's best cost at column c
// is cost[r][c] plus the least of the previous row's columns c-1, c, c+1.
//
// One launch advances `steps` rows. Each block loads blockDim.x columns of
// the previous row into shared memory and iterates in place; every step
// invalidates one more column at each edge of the block (its outer
// neighbour is unknown), so a block finishes blockDim.x - 2*steps columns and
// neighbouring blocks overlap by 2*steps. Columns outside the grid hold
// INT_MAX and never win the min. blockDim.x <= PF_MAX_BLOCK.

#include <climits>

#define PF_MAX_BLOCK 256

extern "C" __global__ void pathfinder_rows(const int* __restrict__ cost, const int* __restrict__ src,
                                           int* __restrict__ dst, int cols, int start_row, int steps) {
  __shared__ int prev[PF_MAX_BLOCK];
  __shared__ int next[PF_MAX_BLOCK];
  const int tx = threadIdx.x;
  const int width = blockDim.x;
  const int col = blockIdx.x * (width - 2 * steps) - steps + tx;
  const bool in_grid = col >= 0 && col < cols;
  prev[tx] = in_grid ? src[col] : INT_MAX;
  __syncthreads();

  for (int s = 0; s < steps; ++s) {
    const bool live = in_grid && tx > s && tx < width - 1 - s;
    if (live) {
      int best = min(prev[tx], min(prev[tx - 1], prev[tx + 1]));
      next[tx] = best + cost[(size_t)(start_row + s) * cols + col];
    }
    __syncthreads();
    if (live) prev[tx] = next[tx];
    __syncthreads();
  }
  if (in_grid && tx >= steps && tx < width - steps) dst[col] = prev[tx];
}
