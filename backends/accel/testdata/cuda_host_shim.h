// cuda_host_shim.h: just enough of CUDA to compile windtunnel's kernels.cu as host C++ and run
// it on the CPU (backends/accel TestCUDASourceOnCPU). Included before kernels.cu in one
// translation unit, compiled by clang as C++17 against libc and pthreads only (no libstdc++).
//
// Execution model, as CUDA's, checked where CUDA leaves things undefined:
//   - a block's threads are real OS threads (pthreads), one per thread of the block, so the
//     threads of a block interleave as the scheduler likes;
//   - __syncthreads is a real barrier; every arrival is tagged with its site, and a barrier
//     phase whose arrivals come from different sites (a __syncthreads that not every thread of
//     the block reaches, or a thread that finished while others wait) fails the launch; so
//     does a barrier that waits more than 30 s (a deadlock);
//   - the blocks of a grid run one after another, last block first (a kernel may not depend on
//     the order of its blocks), so __shared__ arrays are ordinary statics in their own section,
//     set to NaN bytes (0xff) before every block: a read of shared memory not written in the
//     block shows;
//   - atomicAdd is an atomic compare-and-swap loop.
// Warp intrinsics (__shfl_*_sync, __ballot_sync ...) are not provided: kernels.cu does not use
// them, and a kernel that starts to is a compile error here until they are emulated.
#pragma once

#define __CUDACC_RTC__ 1 // take kernels.cu's NVRTC branch: threadIdx, atomicAdd, libm by name

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

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

static thread_local dim3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;

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
enum { OK = 0, BAD_GRID = -1, DYNAMIC_SHARED = -2, DIVERGENT_BARRIER = -3, DEADLOCK = -4, NO_THREAD = -5, BUSY = -6 };

// The barrier of the block running now: one phase per __syncthreads, each arrival tagged by
// its site (1: __syncthreads, 2: the launcher's block boundary).
struct Barrier {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int n, count, tag, err;
  unsigned gen;
};
static Barrier bar = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0};

static void wait(int tag) {
  pthread_mutex_lock(&bar.mu);
  if (bar.err) {
    pthread_mutex_unlock(&bar.mu);
    return;
  }
  if (bar.count == 0) bar.tag = tag;
  else if (bar.tag != tag) bar.err = DIVERGENT_BARRIER;
  if (++bar.count == bar.n || bar.err) {
    bar.count = 0;
    bar.gen++;
    pthread_cond_broadcast(&bar.cv);
  } else {
    unsigned g = bar.gen;
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 30;
    while (g == bar.gen && !bar.err) {
      if (pthread_cond_timedwait(&bar.cv, &bar.mu, &dl) == ETIMEDOUT) {
        bar.err = DEADLOCK;
        pthread_cond_broadcast(&bar.cv);
      }
    }
  }
  pthread_mutex_unlock(&bar.mu);
}

typedef void (*Body)(void** args);

struct Worker {
  pthread_t th;
  unsigned t;
  Body body;
  void** args;
};

// run is one thread of the block: every block of the grid in turn, last first.
static void* run(void* p) {
  Worker* w = (Worker*)p;
  threadIdx = {w->t % blockDim.x, w->t / blockDim.x % blockDim.y, w->t / (blockDim.x * blockDim.y)};
  long nb = (long)gridDim.x * gridDim.y * gridDim.z;
  for (long k = nb - 1; k >= 0; k--) {
    blockIdx = {(unsigned)(k % gridDim.x), (unsigned)(k / gridDim.x % gridDim.y), (unsigned)(k / ((long)gridDim.x * gridDim.y))};
    if (w->t == 0) memset(__start_wt_shared, 0xff, __stop_wt_shared - __start_wt_shared);
    wait(2);
    w->body(w->args);
    wait(2);
  }
  return nullptr;
}

static pthread_mutex_t launching = PTHREAD_MUTEX_INITIALIZER;

// launch runs body over the grid and returns OK or the launch's failure.
static int launch(Body body, int gx, int gy, int gz, int bx, int by, int bz, int shared, void** args) {
  if (gx < 1 || gy < 1 || gz < 1 || bx < 1 || by < 1 || bz < 1 || (long)bx * by * bz > 1024) return BAD_GRID;
  if (gy > 65535 || gz > 65535 || bz > 64) return BAD_GRID;
  if (shared != 0) return DYNAMIC_SHARED;
  if (pthread_mutex_trylock(&launching) != 0) return BUSY;
  int nt = bx * by * bz;
  gridDim = {(unsigned)gx, (unsigned)gy, (unsigned)gz};
  blockDim = {(unsigned)bx, (unsigned)by, (unsigned)bz};
  bar.n = nt;
  bar.count = bar.err = 0;
  static Worker ws[1024];
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 << 10);
  int started = 0, err = OK;
  for (; started < nt; started++) {
    ws[started] = {0, (unsigned)started, body, args};
    if (pthread_create(&ws[started].th, &attr, run, &ws[started]) != 0) {
      err = NO_THREAD;
      // The started threads wait for ones that will never come: fail their barrier.
      pthread_mutex_lock(&bar.mu);
      bar.err = NO_THREAD;
      pthread_cond_broadcast(&bar.cv);
      pthread_mutex_unlock(&bar.mu);
      break;
    }
  }
  for (int i = 0; i < started; i++) pthread_join(ws[i].th, nullptr);
  pthread_attr_destroy(&attr);
  if (err == OK) err = bar.err;
  pthread_mutex_unlock(&launching);
  return err;
}

} // namespace wt_host

#define __syncthreads() wt_host::wait(1)
