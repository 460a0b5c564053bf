// k-means (Lloyd) steps on the device.
//
// kmeans_assign: each thread takes one point, finds the nearest centroid by
// squared Euclidean distance and records its cluster, counting changes with
// atomicAdd. Ties go to the lowest cluster index (strict <). Points are
// feature-major (features[f * npoints + i]) so a warp's loads coalesce;
// centroids live in constant memory (all lanes read the same value).
//
// kmeans_accumulate: per-cluster coordinate sums and point counts for the
// centroid update. Each block accumulates its points into dynamic shared
// memory with shared atomics, then adds its totals to global memory with
// global atomics. The host divides sums by counts.

#define KMEANS_MAX_CENTROID_FLOATS 2048

__constant__ float c_centroids[KMEANS_MAX_CENTROID_FLOATS];  // [k][nfeatures]

extern "C" __global__ void kmeans_assign(const float* __restrict__ features, int npoints, int nfeatures,
                                         int k, int* __restrict__ membership, int* __restrict__ changed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= npoints) return;
  float best = 3.402823466e38f;
  int best_c = 0;
  for (int c = 0; c < k; ++c) {
    float dist = 0.0f;
    for (int f = 0; f < nfeatures; ++f) {
      float diff = features[(size_t)f * npoints + i] - c_centroids[c * nfeatures + f];
      dist += diff * diff;
    }
    if (dist < best) {
      best = dist;
      best_c = c;
    }
  }
  if (membership[i] != best_c) {
    membership[i] = best_c;
    atomicAdd(changed, 1);
  }
}

// Dynamic shared memory: k * nfeatures floats, then k ints.
extern "C" __global__ void kmeans_accumulate(const float* __restrict__ features, int npoints, int nfeatures,
                                             int k, const int* __restrict__ membership, float* sums,
                                             int* counts) {
  extern __shared__ float s_sum[];
  int* s_count = (int*)(s_sum + k * nfeatures);
  const int nsum = k * nfeatures;
  for (int t = threadIdx.x; t < nsum + k; t += blockDim.x) s_sum[t] = 0.0f;  // also zeroes the counts
  __syncthreads();

  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < npoints) {
    const int c = membership[i];
    atomicAdd(&s_count[c], 1);
    for (int f = 0; f < nfeatures; ++f) atomicAdd(&s_sum[c * nfeatures + f], features[(size_t)f * npoints + i]);
  }
  __syncthreads();

  for (int t = threadIdx.x; t < nsum; t += blockDim.x)
    if (s_count[t / nfeatures] != 0) atomicAdd(&sums[t], s_sum[t]);
  for (int t = threadIdx.x; t < k; t += blockDim.x)
    if (s_count[t] != 0) atomicAdd(&counts[t], s_count[t]);
}
