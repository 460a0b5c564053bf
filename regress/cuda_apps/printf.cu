// Device-side printf. The program captures its own stdout while the kernel
// runs and checks every line arrived, then echoes them.
#include <unistd.h>

#include <cstring>
#include <string>

#include "check.h"

__global__ void hello(int tag) {
  printf("hello from thread %d of block %d, tag %d, pi %.3f\n", threadIdx.x, blockIdx.x, tag, 3.14159f);
}

int main() {
  std::fflush(stdout);
  FILE* cap = std::tmpfile();
  EXPECT(cap != nullptr, "tmpfile");
  int saved = dup(1);
  dup2(fileno(cap), 1);
  hello<<<2, 4>>>(42);
  cudaError_t e = cudaDeviceSynchronize();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  CHECK(e);
  std::rewind(cap);
  std::string text;
  char buf[256];
  while (std::fgets(buf, sizeof buf, cap)) text += buf;
  std::fputs(text.c_str(), stdout);
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 4; ++t) {
      char want[128];
      std::snprintf(want, sizeof want, "hello from thread %d of block %d, tag 42, pi 3.142\n", t, b);
      EXPECT(text.find(want) != std::string::npos, "missing line: %s", want);
    }
  std::printf("printf: PASS (8 lines)\n");
  return 0;
}
