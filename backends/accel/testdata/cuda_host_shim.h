// cuda_host_shim.h: just enough of CUDA to compile windtunnel's kernels.cu as host C++ and run
// it on the CPU (backends/accel TestCUDASourceOnCPU). Included before kernels.cu in one
// translation unit, compiled by clang as C++17 against libc and libm only (no libstdc++).
//
// Execution model, as CUDA's, checked where CUDA leaves things undefined:
//   - a block's threads are fibers (ucontext, a stack each) on the calling OS thread: each runs
//     until it reaches a __syncthreads or returns, then the next runs; so __syncthreads is a
//     real barrier (no thread passes it before every thread of the block has reached it). A
//     fiber is started with swapcontext and switched with _setjmp/_longjmp after that, which
//     leave the signal mask alone (swapcontext sets it with a system call at every switch);
//   - the threads run in a new pseudo-random order after every barrier (seeded per launch), so
//     a kernel that reads what another thread wrote since the last barrier (a missing
//     __syncthreads) sees it written in some phases and not in others, and fails its parity;
//   - every arrival at a barrier is tagged with its site: a phase where some threads wait at a
//     __syncthreads while others wait elsewhere or have returned (a barrier not every thread
//     of the block reaches) fails the launch;
//   - the blocks of a grid run one after another, last block first (a kernel may not depend on
//     the order of its blocks), so __shared__ arrays are ordinary statics in their own section,
//     set to NaN bytes (0xff) before every block: a read of shared memory not written in the
//     block shows;
//   - atomicAdd is an atomic compare-and-swap loop (one OS thread: as exact as a GPU's).
// Not modelled: blocks running at the same time (writes from two blocks to one element must be
// atomic on a GPU; here they cannot collide), warps in lock-step, fast-math intrinsics.
// Warp intrinsics (__shfl_*_sync, __ballot_sync ...) are not provided: kernels.cu does not use
// them, and a kernel that starts to is a compile error here until they are emulated.
#pragma once

#define __CUDACC_RTC__ 1 // take kernels.cu's NVRTC branch: threadIdx, atomicAdd, libm by name
#undef _FORTIFY_SOURCE   // its checked longjmp refuses to jump to another stack (a fiber's)

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <ucontext.h>

#define __global__
#define __host__
#define __device__ static inline
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __shared__ static __attribute__((section("wt_shared"), aligned(16)))

struct dim3 {
  unsigned x, y, z;
};

static dim3 threadIdx, blockIdx, blockDim, gridDim;

// Single-precision math CUDA has beyond C's (glibc's math.h already declares __expf and
// __logf, as expf and logf: accurate, where CUDA's are fast approximations).
__device__ float rsqrtf(float x) { return 1.f / sqrtf(x); }
__device__ float __fdividef(float a, float b) { return a / b; }
template <class T> __device__ T __ldg(const T* p) { return *p; }

__device__ float atomicAdd(float* p, float v) {
  uint32_t* u = (uint32_t*)p;
  uint32_t old = __atomic_load_n(u, __ATOMIC_RELAXED), next;
  float f;
  do {
    memcpy(&f, &old, 4);
    float s = f + v;
    memcpy(&next, &s, 4);
  } while (!__atomic_compare_exchange_n(u, &old, next, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
  return f;
}
__device__ int atomicAdd(int* p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }

extern "C" char __start_wt_shared[], __stop_wt_shared[];

namespace wt_host {

// Launch failures, returned by launch (0: success).
enum { OK = 0, BAD_GRID = -1, DYNAMIC_SHARED = -2, DIVERGENT_BARRIER = -3, NO_MEMORY = -5, BUSY = -6 };

typedef void (*Body)(void** args);

// Fiber is one thread of the block running now.
struct Fiber {
  ucontext_t ctx; // where it starts
  jmp_buf jb;     // where it waits at a __syncthreads
  int at;         // 0 running, 1 at a __syncthreads, 2 returned
  int started;
};

// Block is the state of the launch running now (one at a time: kernels are called from one
// Go goroutine, and a second launch while one runs fails with BUSY).
struct Block {
  ucontext_t sched; // swapcontext's scratch: a fiber comes back by sched_jb
  jmp_buf sched_jb;
  Fiber* fibers;
  char* stacks;
  int* order;
  int n, cur, busy;
  Body body;
  void** args;
  uint64_t rng;
};
static Block blk;

// wait is __syncthreads: back to the scheduler until every thread of the block is there.
static void wait(int) {
  Fiber* f = &blk.fibers[blk.cur];
  f->at = 1;
  if (_setjmp(f->jb) == 0) _longjmp(blk.sched_jb, 1);
}

static void fiber_main() {
  blk.body(blk.args);
  blk.fibers[blk.cur].at = 2;
  _longjmp(blk.sched_jb, 1); // back to the scheduler, never to return here
}

static uint32_t next_rand() {
  blk.rng ^= blk.rng << 13;
  blk.rng ^= blk.rng >> 7;
  blk.rng ^= blk.rng << 17;
  return (uint32_t)(blk.rng >> 32);
}

static const size_t stack_bytes = 64 << 10;

// run_block runs every thread of block k to its end, phase by phase, and returns OK or
// DIVERGENT_BARRIER.
static int run_block(long k) {
  blockIdx = {(unsigned)(k % gridDim.x), (unsigned)(k / gridDim.x % gridDim.y), (unsigned)(k / ((long)gridDim.x * gridDim.y))};
  memset(__start_wt_shared, 0xff, __stop_wt_shared - __start_wt_shared);
  for (int t = 0; t < blk.n; t++) {
    Fiber* f = &blk.fibers[t];
    getcontext(&f->ctx);
    f->ctx.uc_stack.ss_sp = blk.stacks + (size_t)t * stack_bytes;
    f->ctx.uc_stack.ss_size = stack_bytes;
    f->ctx.uc_link = &blk.sched;
    makecontext(&f->ctx, fiber_main, 0);
    f->at = 0;
    f->started = 0;
  }
  for (;;) {
    // One phase: every thread not returned runs to its next barrier or its end, in a fresh
    // order (Fisher-Yates).
    for (int i = blk.n - 1; i > 0; i--) {
      int j = (int)(next_rand() % (uint32_t)(i + 1)), x = blk.order[i];
      blk.order[i] = blk.order[j];
      blk.order[j] = x;
    }
    for (int i = 0; i < blk.n; i++) {
      int t = blk.order[i];
      Fiber* f = &blk.fibers[t];
      if (f->at == 2) continue;
      blk.cur = t;
      threadIdx = {t % blockDim.x, t / blockDim.x % blockDim.y, t / (blockDim.x * blockDim.y)};
      f->at = 0;
      // The fiber runs to its next barrier or its end and comes back here by sched_jb.
      if (_setjmp(blk.sched_jb) == 0) {
        if (f->started) _longjmp(f->jb, 1);
        f->started = 1;
        swapcontext(&blk.sched, &f->ctx);
      }
    }
    int waiting = 0, done = 0;
    for (int t = 0; t < blk.n; t++) {
      if (blk.fibers[t].at == 1) waiting++;
      else done++;
    }
    if (waiting == 0) return OK;
    if (done > 0) return DIVERGENT_BARRIER;
  }
}

// launch runs body over the grid and returns OK or the launch's failure.
static int launch(Body body, int gx, int gy, int gz, int bx, int by, int bz, int shared, void** args) {
  if (gx < 1 || gy < 1 || gz < 1 || bx < 1 || by < 1 || bz < 1 || (long)bx * by * bz > 1024) return BAD_GRID;
  if (gy > 65535 || gz > 65535 || bz > 64) return BAD_GRID;
  if (shared != 0) return DYNAMIC_SHARED;
  if (blk.busy) return BUSY;
  int n = bx * by * bz;
  gridDim = {(unsigned)gx, (unsigned)gy, (unsigned)gz};
  blockDim = {(unsigned)bx, (unsigned)by, (unsigned)bz};
  blk.fibers = (Fiber*)calloc(n, sizeof(Fiber));
  blk.stacks = (char*)malloc((size_t)n * stack_bytes);
  blk.order = (int*)malloc(n * sizeof(int));
  int err = OK;
  if (!blk.fibers || !blk.stacks || !blk.order) err = NO_MEMORY;
  blk.busy = 1;
  blk.n = n;
  blk.body = body;
  blk.args = args;
  blk.rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)gx << 32) ^ (uint64_t)n;
  for (int i = 0; i < n && err == OK; i++) blk.order[i] = i;
  long nb = (long)gx * gy * gz;
  for (long k = nb - 1; k >= 0 && err == OK; k--) err = run_block(k);
  free(blk.fibers);
  free(blk.stacks);
  free(blk.order);
  blk.busy = 0;
  return err;
}

} // namespace wt_host

#define __syncthreads() wt_host::wait(1)
