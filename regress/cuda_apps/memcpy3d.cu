// 3-D linear memory: cudaMalloc3D gives a pitched volume; cudaMemset3D
// clears it, cudaMemcpy3D copies a host volume in and a sub-box of it out
// (offsets in all three dimensions), and a kernel indexes it by pitch.
#include "check.h"

__global__ void add_z(cudaPitchedPtr v, int nx, int ny, int nz) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x >= nx || y >= ny || z >= nz) return;
  int* row = (int*)((char*)v.ptr + (size_t(z) * ny + y) * v.pitch);
  row[x] += 1000 * z;
}

int main() {
  const int nx = 40, ny = 12, nz = 5;
  cudaExtent ext = make_cudaExtent(nx * sizeof(int), ny, nz);
  cudaPitchedPtr d;
  CHECK(cudaMalloc3D(&d, ext));
  EXPECT(d.pitch >= nx * sizeof(int) && d.xsize == nx * sizeof(int) && d.ysize == ny, "pitch %zu", d.pitch);
  CHECK(cudaMemset3D(d, 0, ext));
  static int h[nz][ny][nx], out[3][4][5];
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) h[z][y][x] = x + 100 * y;
  cudaMemcpy3DParms in = {};
  in.srcPtr = make_cudaPitchedPtr(h, nx * sizeof(int), nx, ny);
  in.dstPtr = d;
  in.extent = ext;
  in.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&in));
  add_z<<<dim3(ny, nz), nx>>>(d, nx, ny, nz);
  cudaMemcpy3DParms back = {};
  back.srcPtr = d;
  back.srcPos = make_cudaPos(3 * sizeof(int), 2, 1);  // the box x 3..7, y 2..5, z 1..3
  back.dstPtr = make_cudaPitchedPtr(out, 5 * sizeof(int), 5, 4);
  back.extent = make_cudaExtent(5 * sizeof(int), 4, 3);
  back.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&back));
  for (int z = 0; z < 3; ++z)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 5; ++x) {
        int want = (x + 3) + 100 * (y + 2) + 1000 * (z + 1);
        EXPECT(out[z][y][x] == want, "out[%d][%d][%d] = %d, expected %d", z, y, x, out[z][y][x], want);
      }
  back.extent.width = d.pitch;  // past the pitch from x offset 12: refused
  EXPECT(cudaMemcpy3D(&back) == cudaErrorInvalidPitchValue, "a copy past the pitch was accepted");
  CHECK(cudaFree(d.ptr));
  std::printf("memcpy3d: PASS\n");
  return 0;
}
