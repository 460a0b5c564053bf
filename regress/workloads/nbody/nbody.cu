// All-pairs gravitational acceleration with Plummer softening (compute-bound).
// Bodies are float4 {x, y, z, mass}. Each block stages NBODY_TILE bodies at a
// time in shared memory and every thread sums the pull of the tile on its own
// body. The sums use explicit fmaf so that the host reference can repeat the
// exact operation order.
#define NBODY_TILE 64

extern "C" __global__ void __launch_bounds__(NBODY_TILE)
nbody_accel(const float4* __restrict__ pos, float4* __restrict__ acc, int n, float eps2)
{
    __shared__ float4 tile[NBODY_TILE];
    const int i = blockIdx.x * NBODY_TILE + threadIdx.x;
    const bool active = i < n;
    const float4 me = active ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    float ax = 0.f, ay = 0.f, az = 0.f;

    for (int base = 0; base < n; base += NBODY_TILE) {
        const int j = base + threadIdx.x;
        // Slots past the last body get zero mass, so they add exactly zero.
        tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
        __syncthreads();
        if (active) {
#pragma unroll 8
            for (int k = 0; k < NBODY_TILE; ++k) {
                const float4 p = tile[k];
                const float dx = p.x - me.x;
                const float dy = p.y - me.y;
                const float dz = p.z - me.z;
                const float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
                const float inv = rsqrtf(r2);
                const float s = p.w * (inv * inv * inv);
                ax = fmaf(dx, s, ax);
                ay = fmaf(dy, s, ay);
                az = fmaf(dz, s, az);
            }
        }
        __syncthreads();
    }
    if (active)
        acc[i] = make_float4(ax, ay, az, 0.f);
}

// Semi-implicit Euler step: kick the velocity, then drift the position.
extern "C" __global__ void nbody_integrate(float4* __restrict__ pos, float4* __restrict__ vel,
                                           const float4* __restrict__ acc, int n, float dt)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float4 a = acc[i];
        float4 v = vel[i];
        float4 p = pos[i];
        v.x = fmaf(a.x, dt, v.x);
        v.y = fmaf(a.y, dt, v.y);
        v.z = fmaf(a.z, dt, v.z);
        p.x = fmaf(v.x, dt, p.x);
        p.y = fmaf(v.y, dt, p.y);
        p.z = fmaf(v.z, dt, p.z);
        vel[i] = v;
        pos[i] = p;
    }
}
