// Thermal-simulation stencil on a rows x cols chip grid: one explicit time
// step per launch (the host ping-pongs two buffers for several steps).
// Each 16x16 block stages its tile plus a one-cell halo in shared memory;
// cells outside the chip take the nearest edge value (an insulated boundary,
// so no heat flows across the chip edge).

#define TILE 16
#define HALO_W (TILE + 2)

extern "C" __global__ void hotspot_step(const float* __restrict__ temp, const float* __restrict__ power,
                                        float* __restrict__ out, int rows, int cols, float cap_inv,
                                        float rx_inv, float ry_inv, float rz_inv, float ambient) {
  __shared__ float t[HALO_W][HALO_W];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * TILE - 1, y0 = blockIdx.y * TILE - 1;

  // 256 threads fill the 18x18 halo tile, most of them twice.
  for (int k = ty * TILE + tx; k < HALO_W * HALO_W; k += TILE * TILE) {
    int ly = k / HALO_W, lx = k % HALO_W;
    int gy = min(max(y0 + ly, 0), rows - 1);
    int gx = min(max(x0 + lx, 0), cols - 1);
    t[ly][lx] = temp[(size_t)gy * cols + gx];
  }
  __syncthreads();

  const int x = x0 + 1 + tx, y = y0 + 1 + ty;
  if (x >= cols || y >= rows) return;
  const float c = t[ty + 1][tx + 1];
  const float north = t[ty][tx + 1], south = t[ty + 2][tx + 1];
  const float west = t[ty + 1][tx], east = t[ty + 1][tx + 2];
  const size_t idx = (size_t)y * cols + x;
  float flow = power[idx] + (north + south - 2.0f * c) * ry_inv + (east + west - 2.0f * c) * rx_inv +
               (ambient - c) * rz_inv;
  out[idx] = c + cap_inv * flow;
}
