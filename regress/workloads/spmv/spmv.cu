// CSR sparse matrix-vector product y = A*x (irregular, gather-heavy), in the
// two usual mappings. Rows have very different lengths.

// One thread per row: simple, but lanes of a warp walk rows of different
// lengths (divergence) and gather from scattered addresses.
extern "C" __global__ void spmv_csr_scalar(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                           const float* __restrict__ vals, const float* __restrict__ x,
                                           float* __restrict__ y)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    float sum = 0.f;
    const int end = row_ptr[row + 1];
    for (int e = row_ptr[row]; e < end; ++e)
        sum = fmaf(vals[e], x[col_idx[e]], sum);
    y[row] = sum;
}

// One warp per row (grid-stride over rows): lane l takes elements l, l+32,
// ... of the row, then the 32 partial sums meet in a shuffle tree. The row
// index is the same for the whole warp, so every lane reaches the full-mask
// shuffles together; blockDim.x must be a multiple of 32.
extern "C" __global__ void spmv_csr_warp(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                         const float* __restrict__ vals, const float* __restrict__ x,
                                         float* __restrict__ y)
{
    const int lane = threadIdx.x & 31;
    const int nwarps = (gridDim.x * blockDim.x) >> 5;
    for (int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; row < rows; row += nwarps) {
        float sum = 0.f;
        const int end = row_ptr[row + 1];
        for (int e = row_ptr[row] + lane; e < end; e += 32)
            sum = fmaf(vals[e], x[col_idx[e]], sum);
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            sum += __shfl_down_sync(0xffffffffu, sum, off);
        if (lane == 0)
            y[row] = sum;
    }
}
