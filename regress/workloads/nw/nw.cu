// Needleman-Wunsch global alignment score matrix, (n+1) x (n+1) ints, row 0
// and column 0 pre-filled by the host with the gap penalties.
//
// The interior is cut into 16x16 tiles. One launch computes one anti-diagonal
// of tiles (tile row + tile column == diag), one 16-thread block per tile, so
// every warp has at most 16 active lanes. Inside a tile the block sweeps the
// 31 anti-diagonals of cells; thread t owns tile row t and computes its cell
// on the current diagonal, with a barrier between diagonals.

#define TILE 16

extern "C" __global__ void nw_tile_diagonal(int* __restrict__ score, const unsigned char* __restrict__ seq_a,
                                            const unsigned char* __restrict__ seq_b,
                                            const int* __restrict__ subst, int alphabet, int n, int diag,
                                            int gap) {
  __shared__ int s[TILE + 1][TILE + 1];
  __shared__ unsigned char a[TILE], b[TILE];
  const int ntiles = n / TILE;
  const int t = threadIdx.x;
  const int first = max(0, diag - ntiles + 1);  // lowest tile row on this diagonal
  const int tile_row = first + blockIdx.x;
  const int tile_col = diag - tile_row;
  const size_t width = (size_t)n + 1;
  const size_t r0 = (size_t)tile_row * TILE, c0 = (size_t)tile_col * TILE;  // matrix row/col of s[0][0]

  // Borders: the row above and the column to the left, already final.
  if (t == 0) s[0][0] = score[r0 * width + c0];
  s[0][t + 1] = score[r0 * width + c0 + t + 1];
  s[t + 1][0] = score[(r0 + t + 1) * width + c0];
  a[t] = seq_a[r0 + t];
  b[t] = seq_b[c0 + t];
  __syncthreads();

  const int row_base = a[t] * alphabet;
  for (int d = 0; d < 2 * TILE - 1; ++d) {
    int j = d - t;  // this thread's column on diagonal d
    if (j >= 0 && j < TILE) {
      int diag_score = s[t][j] + subst[row_base + b[j]];
      int up = s[t][j + 1] - gap;
      int left = s[t + 1][j] - gap;
      s[t + 1][j + 1] = max(diag_score, max(up, left));
    }
    __syncthreads();
  }

  // Write back one tile row per step so consecutive threads store
  // consecutive columns.
  for (int i = 0; i < TILE; ++i) score[(r0 + i + 1) * width + c0 + t + 1] = s[i + 1][t + 1];
}
