// Shared by the CUDA test programs: stop with a message on a CUDA error or a
// wrong result. Each program checks its own results and exits 0 only if all pass.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                    \
  do {                                                                                                 \
    cudaError_t e_ = (call);                                                                           \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_), \
                   cudaGetErrorString(e_));                                                            \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

#define EXPECT(cond, ...)                                        \
  do {                                                           \
    if (!(cond)) {                                               \
      std::fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                         \
      std::fprintf(stderr, "\n");                                \
      std::exit(1);                                              \
    }                                                            \
  } while (0)
