// Kernels with the defects TestCUDAHostShim expects cuda_host_shim.h to expose, beside a
// correct one: the same block sum written right, without its barriers, reading shared memory
// no thread wrote, with a barrier only some threads reach, and a write past its buffer.

#define TID ((int)threadIdx.x)
#define BDIM ((int)blockDim.x)

// out[blockIdx.x] = Σ x over the block's threads (blockDim a power of two).
extern "C" __global__ void good_sum(float* out, const float* x) {
  __shared__ float sh[1024];
  sh[TID] = x[blockIdx.x * BDIM + TID];
  __syncthreads();
  for (int s = BDIM / 2; s > 0; s >>= 1) {
    if (TID < s) sh[TID] += sh[TID + s];
    __syncthreads();
  }
  if (TID == 0) out[blockIdx.x] = sh[0];
}

// good_sum without its barriers: each thread may read a partner's element before it is added.
extern "C" __global__ void racy_sum(float* out, const float* x) {
  __shared__ float sh[1024];
  sh[TID] = x[blockIdx.x * BDIM + TID];
  for (int s = BDIM / 2; s > 0; s >>= 1) {
    if (TID < s) sh[TID] += sh[TID + s];
  }
  if (TID == 0) out[blockIdx.x] = sh[0];
}

// Only the first half of the threads store, but the sum reads every element.
extern "C" __global__ void uninit_sum(float* out, const float* x) {
  __shared__ float sh[1024];
  if (TID < BDIM / 2) sh[TID] = x[blockIdx.x * BDIM + TID];
  __syncthreads();
  for (int s = BDIM / 2; s > 0; s >>= 1) {
    if (TID < s) sh[TID] += sh[TID + s];
    __syncthreads();
  }
  if (TID == 0) out[blockIdx.x] = sh[0];
}

// A barrier inside a branch not every thread takes.
extern "C" __global__ void divergent_sum(float* out, const float* x) {
  __shared__ float sh[1024];
  sh[TID] = x[blockIdx.x * BDIM + TID];
  if (TID < 5) __syncthreads();
  if (TID == 0) out[blockIdx.x] = sh[0] + sh[1];
}

// Writes one element past out's gridDim.x.
extern "C" __global__ void overrun(float* out, const float* x) {
  if (TID == 0) out[blockIdx.x + 1] = x[0];
}
