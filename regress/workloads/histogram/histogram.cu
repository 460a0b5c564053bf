// 256-bin histogram of 32-bit values with bins of a run-time width
// (atomic-heavy). Each block counts into a private shared-memory copy of the
// bins, then adds its non-zero counts to the global histogram, so global
// atomics scale with blocks x bins rather than with the input length.
#define HIST_BINS 256

// Values below `lo` go to bin 0 and values past the last bin to bin 255
// (clamping rather than dropping, so every value is counted once).
extern "C" __global__ void histogram256(const unsigned int* __restrict__ data, int n, unsigned int lo,
                                        unsigned int width, unsigned int* __restrict__ hist)
{
    __shared__ unsigned int bins[HIST_BINS];
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x)
        bins[b] = 0;
    __syncthreads();

    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned int v = data[i];
        const unsigned int b = v < lo ? 0u : min((v - lo) / width, HIST_BINS - 1u);
        atomicAdd(&bins[b], 1u);
    }
    __syncthreads();

    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) {
        const unsigned int count = bins[b];
        if (count != 0)
            atomicAdd(&hist[b], count);
    }
}
