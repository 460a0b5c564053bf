// Independent thread scheduling (sm_70+): every thread of a warp takes the
// same spin lock (the classic intra-warp lock that deadlocks under a SIMT
// stack), and the two halves of a warp meet at __syncwarp() on different
// paths to exchange shared-memory values.
#include "check.h"

__global__ void locked_sum(int* lock, int* total, int* order) {
  int v = int(blockIdx.x * blockDim.x + threadIdx.x);
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  int t = *(volatile int*)total;
  *(volatile int*)total = t + v;
  order[v] = atomicAdd(&lock[1], 1);  // the ticket of this critical section
  __threadfence();
  atomicExch(lock, 0);
}

__global__ void halves(int* out) {
  __shared__ int s[64];
  int l = int(threadIdx.x);
  int w = l / 32 * 32, lane = l % 32;
  if (lane < 16) {
    s[l] = 2 * l;
    __syncwarp();
    out[l] = s[w + lane + 16];
  } else {
    s[l] = 3 * l;
    __syncwarp();
    out[l] = s[w + lane - 16];
  }
}

int main() {
  const int ctas = 3, threads = 64, n = ctas * threads;
  int *lock, *total, *order, *out;
  CHECK(cudaMalloc(&lock, 2 * sizeof(int)));
  CHECK(cudaMalloc(&total, sizeof(int)));
  CHECK(cudaMalloc(&order, n * sizeof(int)));
  CHECK(cudaMalloc(&out, threads * sizeof(int)));
  CHECK(cudaMemset(lock, 0, 2 * sizeof(int)));
  CHECK(cudaMemset(total, 0, sizeof(int)));
  locked_sum<<<ctas, threads>>>(lock, total, order);
  halves<<<1, threads>>>(out);
  CHECK(cudaDeviceSynchronize());
  int h_total = 0, h_order[n], h_out[threads];
  CHECK(cudaMemcpy(&h_total, total, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_order, order, sizeof h_order, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost));
  EXPECT(h_total == n * (n - 1) / 2, "locked total %d, expected %d", h_total, n * (n - 1) / 2);
  bool seen[n] = {};
  for (int i = 0; i < n; ++i) {
    EXPECT(h_order[i] >= 0 && h_order[i] < n && !seen[h_order[i]], "ticket %d of thread %d repeats", h_order[i], i);
    seen[h_order[i]] = true;
  }
  for (int l = 0; l < threads; ++l) {
    int w = l / 32 * 32, lane = l % 32, src = w + (lane < 16 ? lane + 16 : lane - 16);
    int want = lane < 16 ? 3 * src : 2 * src;
    EXPECT(h_out[l] == want, "halves: thread %d read %d, expected %d", l, h_out[l], want);
  }
  std::printf("warp_lock: PASS (%d threads took one lock; __syncwarp on diverged paths)\n", n);
  return 0;
}
