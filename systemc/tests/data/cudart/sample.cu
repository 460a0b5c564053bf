// Source of the sample fatbinaries next to it (cudart_fatbin_test.cpp):
//   nvcc -fatbin -gencode arch=compute_75,code=compute_75 [--compress-mode=M] sample.cu -o sample.M.fatbin
//   nvcc -fatbin -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=compute_80 sample.cu -o sample.multi.fatbin
//   nvcc -fatbin -gencode arch=compute_75,code=sm_75 sample.cu -o sample.sass.fatbin
// and of sample.o, an ELF file with a .nv_fatbin section and no libcudart.so
// (app_cli_test: `relgpu exec` refuses it as a static-runtime program):
//   nvcc -c -gencode arch=compute_75,code=compute_75 sample.cu -o sample.o
__constant__ float scale;
__global__ void relgpu_sample(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= scale;
}
