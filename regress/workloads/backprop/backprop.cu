// One fully connected layer of a small perceptron (n_in inputs -> 16 hidden
// units, sigmoid), forward and weight update. Weights are row-major
// [n_in + 1][16]; row 0 is the bias (input[0] == 1).
//
// bp_forward: a 16x16 block takes 16 input rows; thread (j, r) forms
// weight[row][j] * input[row] in shared memory and the block sums the 16
// rows with a barrier tree, writing one partial sum per hidden unit.
// bp_finish: adds the bias and the per-block partials, applies the sigmoid.
// bp_adjust: gradient step with momentum on every weight.

#define HIDDEN 16
#define ROWS 16

extern "C" __global__ void bp_forward(const float* __restrict__ input, const float* __restrict__ weight,
                                      float* __restrict__ partial) {
  __shared__ float s_in[ROWS];
  __shared__ float s_prod[ROWS][HIDDEN];
  const int j = threadIdx.x, r = threadIdx.y;
  const size_t row = (size_t)blockIdx.x * ROWS + r + 1;  // skip the bias row
  if (j == 0) s_in[r] = input[row];
  __syncthreads();
  s_prod[r][j] = weight[row * HIDDEN + j] * s_in[r];
  __syncthreads();
  for (int half = ROWS / 2; half > 0; half >>= 1) {
    if (r < half) s_prod[r][j] += s_prod[r + half][j];
    __syncthreads();
  }
  if (r == 0) partial[(size_t)blockIdx.x * HIDDEN + j] = s_prod[0][j];
}

extern "C" __global__ void bp_finish(const float* __restrict__ partial, int nblocks,
                                     const float* __restrict__ weight, float* __restrict__ hidden) {
  const int j = threadIdx.x;
  float sum = weight[j];  // bias row
  for (int b = 0; b < nblocks; ++b) sum += partial[(size_t)b * HIDDEN + j];
  hidden[j] = 1.0f / (1.0f + expf(-sum));
}

extern "C" __global__ void bp_adjust(const float* __restrict__ delta, const float* __restrict__ input,
                                     float* __restrict__ weight, float* __restrict__ prev_dw, int nrows,
                                     float eta, float momentum) {
  const int j = threadIdx.x;
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= nrows) return;
  const size_t idx = (size_t)row * HIDDEN + j;
  float dw = eta * delta[j] * input[row] + momentum * prev_dw[idx];
  weight[idx] += dw;
  prev_dw[idx] = dw;
}
