// Tiled single-precision GEMM: C = alpha * A * B + beta * C, row-major,
// A is M x K, B is K x N. Each 16x16 block computes a 16x16 tile of C,
// staging one tile of A and one of B in shared memory per step of K.
// Edge tiles are zero-filled, so M, N and K need not be multiples of 16.
#define MM_TILE 16

extern "C" __global__ void __launch_bounds__(MM_TILE * MM_TILE)
sgemm_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
            int M, int N, int K, float alpha, float beta)
{
    __shared__ float As[MM_TILE][MM_TILE];
    __shared__ float Bs[MM_TILE][MM_TILE + 1];  // +1: no bank conflicts on the column read

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * MM_TILE + ty;
    const int col = blockIdx.x * MM_TILE + tx;
    float acc = 0.f;

    for (int k0 = 0; k0 < K; k0 += MM_TILE) {
        const int ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.f;
        Bs[ty][tx] = (kb < K && col < N) ? B[(size_t)kb * N + col] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < MM_TILE; ++k)
            acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N) {
        float* c = C + (size_t)row * N + col;
        *c = fmaf(alpha, acc, beta * *c);
    }
}
