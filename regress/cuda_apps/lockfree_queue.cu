// A lock-free multi-producer multi-consumer queue across CTAs: producer
// CTAs push items into a bounded ring with per-slot sequence numbers
// (Vyukov's queue) while consumer CTAs pop them at the same time; the ring
// is much smaller than the item count, so producers wait for consumers and
// consumers for producers. Every item must come out exactly once.
#include <cuda/atomic>

#include "check.h"

constexpr unsigned kRing = 64;

struct Queue {
  unsigned head, tail;
  unsigned seq[kRing];
  int value[kRing];
};

__device__ void push(Queue* q, int v) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> tail(q->tail);
  for (;;) {
    unsigned t = tail.load(cuda::memory_order_relaxed);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> seq(q->seq[t % kRing]);
    int d = int(seq.load(cuda::memory_order_acquire) - t);
    if (d == 0 && tail.compare_exchange_weak(t, t + 1, cuda::memory_order_relaxed)) {
      q->value[t % kRing] = v;
      seq.store(t + 1, cuda::memory_order_release);
      return;
    }
  }
}

__device__ int pop(Queue* q) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> head(q->head);
  for (;;) {
    unsigned h = head.load(cuda::memory_order_relaxed);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> seq(q->seq[h % kRing]);
    int d = int(seq.load(cuda::memory_order_acquire) - (h + 1));
    if (d == 0 && head.compare_exchange_weak(h, h + 1, cuda::memory_order_relaxed)) {
      int v = q->value[h % kRing];
      seq.store(h + kRing, cuda::memory_order_release);
      return v;
    }
  }
}

// CTAs 0..P-1 produce, the rest consume; one thread per warp takes part, so
// that warps, not lanes, contend (lanes of one warp would need independent
// thread scheduling to spin on each other).
__global__ void run(Queue* q, int* seen, int producers, int per_warp) {
  if (threadIdx.x % 32 != 0) return;
  int warp = int(threadIdx.x / 32), warps = int(blockDim.x / 32);
  if (int(blockIdx.x) < producers) {
    int base = (int(blockIdx.x) * warps + warp) * per_warp;
    for (int k = 0; k < per_warp; ++k) push(q, base + k);
  } else {
    for (int k = 0; k < per_warp; ++k) atomicAdd(&seen[pop(q)], 1);
  }
}

int main() {
  const int producers = 4, consumers = 4, threads = 128, per_warp = 50;
  const int items = producers * (threads / 32) * per_warp;
  Queue h = {};
  for (unsigned i = 0; i < kRing; ++i) h.seq[i] = i;
  Queue* q;
  int* seen;
  CHECK(cudaMalloc(&q, sizeof h));
  CHECK(cudaMalloc(&seen, items * sizeof(int)));
  CHECK(cudaMemcpy(q, &h, sizeof h, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(seen, 0, items * sizeof(int)));
  run<<<producers + consumers, threads>>>(q, seen, producers, per_warp);
  CHECK(cudaDeviceSynchronize());
  int* s = new int[items];
  CHECK(cudaMemcpy(s, seen, items * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < items; ++i) EXPECT(s[i] == 1, "item %d came out %d times", i, s[i]);
  delete[] s;
  std::printf("lockfree_queue: PASS (%d items through a %u-slot ring)\n", items, kRing);
  return 0;
}
