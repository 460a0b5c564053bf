// libsystemc.so calls sc_main from its own main() and is linked with
// BIND_NOW, so the dynamic linker resolves sc_main when it loads
// libsystemc.so: a process without one does not start. A CUDA program has
// its own main() and never calls this one; the timing model calls
// sc_start() directly from the CUDA calls (SystemC permits that without
// sc_main). The symbol is exported by libcudart.map.
#include <cstdio>

extern "C" int sc_main(int, char**) {
  std::fprintf(stderr, "relgpu: sc_main of libcudart.so.13 called; it is only a placeholder\n");
  return 1;
}
