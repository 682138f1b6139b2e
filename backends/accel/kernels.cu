// windtunnel's device kernels: everything in a transformer training step that is not a
// matrix product (those go through cuBLAS). Compiled at run time by NVRTC (no CUDA at build
// time) and checked in CI by clang's CUDA device-only mode. float32 throughout, no fast-math.
//
// Every kernel is extern "C" and takes only float*, const float*, int*, const int*, int and
// float arguments: accel's contract test parses these signatures and compares them with the
// argument kinds Go launches them with (kernels.go). Grid-stride loops make every kernel
// correct for any grid; the Go side picks the grid.

#ifdef __CUDACC_RTC__
#define TID ((int)threadIdx.x)
#define BID ((int)blockIdx.x)
#define BDIM ((int)blockDim.x)
#define GDIM ((int)gridDim.x)
#define ATOMIC_ADD(p, v) atomicAdd((p), (v))
#else
// clang -x cuda --cuda-device-only -nocudainc -nocudalib: no CUDA headers, so spell the few
// builtins NVRTC provides.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define TID ((int)__nvvm_read_ptx_sreg_tid_x())
#define BID ((int)__nvvm_read_ptx_sreg_ctaid_x())
#define BDIM ((int)__nvvm_read_ptx_sreg_ntid_x())
#define GDIM ((int)__nvvm_read_ptx_sreg_nctaid_x())
#define ATOMIC_ADD(p, v) __nvvm_atom_add_gen_f((p), (v))
extern "C" __device__ float expf(float);
extern "C" __device__ float logf(float);
extern "C" __device__ float tanhf(float);
extern "C" __device__ float erff(float);
extern "C" __device__ float sqrtf(float);
extern "C" __device__ float fmaxf(float, float);
#endif

#define GRID_LOOP(i, n) for (int i = BID * BDIM + TID; i < (n); i += GDIM * BDIM)

// Block-wide sum of v (blockDim.x a power of two ≤ 1024); every thread gets the total.
__device__ float wt_block_sum(float v, float* sh) {
  sh[TID] = v;
  __syncthreads();
  for (int s = BDIM / 2; s > 0; s >>= 1) {
    if (TID < s) sh[TID] += sh[TID + s];
    __syncthreads();
  }
  float r = sh[0];
  __syncthreads();
  return r;
}

// Block-wide maximum of v, as wt_block_sum.
__device__ float wt_block_max(float v, float* sh) {
  sh[TID] = v;
  __syncthreads();
  for (int s = BDIM / 2; s > 0; s >>= 1) {
    if (TID < s) sh[TID] = fmaxf(sh[TID], sh[TID + s]);
    __syncthreads();
  }
  float r = sh[0];
  __syncthreads();
  return r;
}

// y[i] = v.
extern "C" __global__ void wt_fill(float* y, float v, int n) {
  GRID_LOOP(i, n) y[i] = v;
}

// y[i] = x[i].
extern "C" __global__ void wt_copy(float* y, const float* x, int n) {
  GRID_LOOP(i, n) y[i] = x[i];
}

// y[i] = a[i] + b[i] (gradient sums).
extern "C" __global__ void wt_add(float* y, const float* a, const float* b, int n) {
  GRID_LOOP(i, n) y[i] = a[i] + b[i];
}

// y[i] = s·x[i].
extern "C" __global__ void wt_scale(float* y, const float* x, float s, int n) {
  GRID_LOOP(i, n) y[i] = s * x[i];
}

// Row r of y (rows×d) is tok[ids[r]] + pos[r mod t].
extern "C" __global__ void wt_embed_fwd(float* y, const float* tok, const float* pos, const int* ids, int rows, int t, int d) {
  GRID_LOOP(i, rows * d) {
    int r = i / d, j = i % d;
    y[i] = tok[ids[r] * d + j] + pos[(r % t) * d + j];
  }
}

// Adds row r of g into dtok[ids[r]] and dpos[r mod t] (both zeroed by the caller).
extern "C" __global__ void wt_embed_bwd(float* dtok, float* dpos, const float* g, const int* ids, int rows, int t, int d) {
  GRID_LOOP(i, rows * d) {
    int r = i / d, j = i % d;
    ATOMIC_ADD(&dtok[ids[r] * d + j], g[i]);
    ATOMIC_ADD(&dpos[(r % t) * d + j], g[i]);
  }
}

// RMSNorm, one block a row: y[r] = x[s]·rinv[r]·g with s = src[r] (src null: s = r) and
// rinv[r] = 1/sqrt(mean(x[s]²)+eps).
extern "C" __global__ void wt_rms_fwd(float* y, float* rinv, const float* x, const float* g, const int* src, int rows, int d, float eps) {
  __shared__ float sh[1024];
  for (int r = BID; r < rows; r += GDIM) {
    int s = src ? src[r] : r;
    const float* xr = x + (long)s * d;
    float ss = 0.f;
    for (int j = TID; j < d; j += BDIM) ss += xr[j] * xr[j];
    ss = wt_block_sum(ss, sh);
    float inv = 1.f / sqrtf(ss / (float)d + eps);
    if (TID == 0) rinv[r] = inv;
    for (int j = TID; j < d; j += BDIM) y[(long)r * d + j] = xr[j] * inv * g[j];
  }
}

// RMSNorm backward, a block a row at a time: dx[s] = rinv·g⊙gy − x[s]·rinv³/d·Σ g⊙gy⊙x[s];
// dg += gy⊙x[s]·rinv, summed over the block's rows in shared memory first (one atomic add a
// column a block, d ≤ 4096). With src, dx is zeroed by the caller (rows not gathered get no
// gradient); dg is zeroed by the caller.
extern "C" __global__ void wt_rms_bwd(float* dx, float* dg, const float* gy, const float* x, const float* g, const float* rinv, const int* src, int rows, int d) {
  __shared__ float sh[1024];
  __shared__ float acc[4096];
  for (int j = TID; j < d; j += BDIM) acc[j] = 0.f;
  for (int r = BID; r < rows; r += GDIM) {
    int s = src ? src[r] : r;
    const float* xr = x + (long)s * d;
    const float* gr = gy + (long)r * d;
    float inv = rinv[r];
    float dot = 0.f;
    for (int j = TID; j < d; j += BDIM) dot += g[j] * gr[j] * xr[j];
    dot = wt_block_sum(dot, sh);
    float c = dot * inv * inv * inv / (float)d;
    for (int j = TID; j < d; j += BDIM) {
      dx[(long)s * d + j] = inv * g[j] * gr[j] - xr[j] * c;
      acc[j] += gr[j] * xr[j] * inv;
    }
  }
  for (int j = TID; j < d; j += BDIM) ATOMIC_ADD(&dg[j], acc[j]);
}

// After a product y = gb·x·W (+ residual): y += gb·b (b may be null), then with act = 1 GELU
// (tanh form): pre = y, th = tanh(√(2/π)(u + 0.044715u³)), y = u(1+th)/2; with act = 2 the
// exact GELU: pre = y, th = Φ(u) = (1 + erf(u/√2))/2, y = u·th.
extern "C" __global__ void wt_bias_act(float* y, float* pre, float* th, const float* b, float gb, int rows, int o, int act) {
  GRID_LOOP(i, rows * o) {
    float u = y[i];
    if (b) u += gb * b[i % o];
    if (act == 1) {
      float t = tanhf(0.7978845608028654f * (u + 0.044715f * u * u * u));
      pre[i] = u;
      th[i] = t;
      u = 0.5f * u * (1.f + t);
    } else if (act == 2) {
      float p = 0.5f * (1.f + erff(u * 0.7071067811865476f));
      pre[i] = u;
      th[i] = p;
      u = u * p;
    }
    y[i] = u;
  }
}

// GELU backward: dp = s·g·GELU'(pre) from the saved pre-activation and th (act as
// wt_bias_act's: 1 the tanh form, 2 the exact form, GELU' = Φ(u) + u·e^(−u²/2)/√(2π)).
extern "C" __global__ void wt_gelu_bwd(float* dp, const float* g, const float* pre, const float* th, float s, int n, int act) {
  GRID_LOOP(i, n) {
    float u = pre[i], t = th[i];
    if (act == 2) {
      dp[i] = s * g[i] * (t + u * 0.3989422804014327f * expf(-0.5f * u * u));
    } else {
      dp[i] = s * g[i] * (0.5f * (1.f + t) + 0.5f * u * (1.f - t * t) * 0.7978845608028654f * (1.f + 3.f * 0.044715f * u * u));
    }
  }
}

// db[j] = Σ_r g[r·o+j]: one thread a column.
extern "C" __global__ void wt_colsum(float* db, const float* g, int rows, int o) {
  GRID_LOOP(j, o) {
    float s = 0.f;
    for (int r = 0; r < rows; r++) s += g[(long)r * o + j];
    db[j] = s;
  }
}

// Causal attention, one block a (sequence, head), one thread a query row: p = softmax(q·kᵀ·scale)
// over keys ≤ the row (zero after), o = mask[head]·p·v. q, k, v are n·t rows of d values,
// ld apart (the column blocks of the fused projection's output: ld = 3d); o is (n·t)×d; head
// h in columns h·hd..(h+1)·hd; p is n·h·t·t.
extern "C" __global__ void wt_attn_fwd(float* o, float* p, const float* q, const float* k, const float* v, const float* mask, int n, int t, int h, int d, int ld, float scale) {
  int hd = d / h;
  for (int item = BID; item < n * h; item += GDIM) {
    int b = item / h, hh = item % h;
    long off = (long)b * t * ld + hh * hd, oo = (long)b * t * d + hh * hd;
    float mh = mask[hh];
    float* pm = p + (long)item * t * t;
    for (int i = TID; i < t; i += BDIM) {
      float* pr = pm + i * t;
      const float* qi = q + off + (long)i * ld;
      float mx = -3.402823466e38f;
      for (int j = 0; j <= i; j++) {
        const float* kj = k + off + (long)j * ld;
        float s = 0.f;
        for (int c = 0; c < hd; c++) s += qi[c] * kj[c];
        s *= scale;
        pr[j] = s;
        mx = fmaxf(mx, s);
      }
      float sum = 0.f;
      for (int j = 0; j <= i; j++) {
        float e = expf(pr[j] - mx);
        pr[j] = e;
        sum += e;
      }
      float inv = 1.f / sum;
      for (int j = 0; j <= i; j++) pr[j] *= inv;
      for (int j = i + 1; j < t; j++) pr[j] = 0.f;
      float* oi = o + oo + (long)i * d;
      for (int c = 0; c < hd; c++) {
        float s = 0.f;
        for (int j = 0; j <= i; j++) s += pr[j] * v[off + (long)j * ld + c];
        oi[c] = mh * s;
      }
    }
  }
}

// Causal attention backward, one block a (sequence, head). First a thread a query row i:
// dp_ij = mask·g_i·v_j, ds_ij = p_ij(dp_ij − Σ_l p_il dp_il), dq_i = scale·Σ_j ds_ij k_j;
// then a thread a key row j: dk_j = scale·Σ_i ds_ij q_i, dv_j = mask·Σ_i p_ij g_i.
// ds is n·h·t·t scratch; dq, dk, dv have rows ld apart like q, k, v; g is (n·t)×d.
extern "C" __global__ void wt_attn_bwd(float* dq, float* dk, float* dv, float* ds, const float* p, const float* q, const float* k, const float* v, const float* g, const float* mask, int n, int t, int h, int d, int ld, float scale) {
  int hd = d / h;
  for (int item = BID; item < n * h; item += GDIM) {
    int b = item / h, hh = item % h;
    long off = (long)b * t * ld + hh * hd, oo = (long)b * t * d + hh * hd;
    float mh = mask[hh];
    const float* pm = p + (long)item * t * t;
    float* dm = ds + (long)item * t * t;
    for (int i = TID; i < t; i += BDIM) {
      const float* gi = g + oo + (long)i * d;
      float dot = 0.f;
      for (int j = 0; j <= i; j++) {
        const float* vj = v + off + (long)j * ld;
        float s = 0.f;
        for (int c = 0; c < hd; c++) s += gi[c] * vj[c];
        s *= mh;
        dm[i * t + j] = s;
        dot += pm[i * t + j] * s;
      }
      for (int j = 0; j <= i; j++) dm[i * t + j] = pm[i * t + j] * (dm[i * t + j] - dot);
      for (int c = 0; c < hd; c++) {
        float s = 0.f;
        for (int j = 0; j <= i; j++) s += dm[i * t + j] * k[off + (long)j * ld + c];
        dq[off + (long)i * ld + c] = scale * s;
      }
    }
    __syncthreads();
    for (int j = TID; j < t; j += BDIM) {
      for (int c = 0; c < hd; c++) {
        float sk = 0.f, sv = 0.f;
        for (int i = j; i < t; i++) {
          sk += dm[i * t + j] * q[off + (long)i * ld + c];
          sv += pm[i * t + j] * g[oo + (long)i * d + c];
        }
        dk[off + (long)j * ld + c] = scale * sk;
        dv[off + (long)j * ld + c] = mh * sv;
      }
    }
    __syncthreads();
  }
}

// Softmax cross-entropy, one block a row of x (rows×o): prob = softmax(x_r); loss[r] =
// −log prob at off+tgt[r], or with soft targets −Σ_c soft[r·c+c']·log prob at off+c'.
extern "C" __global__ void wt_ce_fwd(float* loss, float* prob, const float* x, const int* tgt, const float* soft, int rows, int o, int off, int c) {
  __shared__ float sh[1024];
  for (int r = BID; r < rows; r += GDIM) {
    const float* xr = x + (long)r * o;
    float* pr = prob + (long)r * o;
    float mx = -3.402823466e38f;
    for (int j = TID; j < o; j += BDIM) mx = fmaxf(mx, xr[j]);
    mx = wt_block_max(mx, sh);
    float s = 0.f;
    for (int j = TID; j < o; j += BDIM) {
      float e = expf(xr[j] - mx);
      pr[j] = e;
      s += e;
    }
    s = wt_block_sum(s, sh);
    float inv = 1.f / s, lse = logf(s);
    for (int j = TID; j < o; j += BDIM) pr[j] *= inv;
    float l = 0.f;
    if (soft) {
      for (int j = TID; j < c; j += BDIM) {
        float w = soft[(long)r * c + j];
        if (w > 0.f) l -= w * (xr[off + j] - mx - lse);
      }
    } else if (TID == 0) {
      l = -(xr[off + tgt[r]] - mx - lse);
    }
    l = wt_block_sum(l, sh);
    if (TID == 0) loss[r] = l;
  }
}

// Cross-entropy backward: dx = gs/rows·(prob − target).
extern "C" __global__ void wt_ce_bwd(float* dx, const float* prob, const int* tgt, const float* soft, float gs, int rows, int o, int off, int c) {
  float sc = gs / (float)rows;
  GRID_LOOP(i, rows * o) {
    int r = i / o, j = i % o;
    float y = sc * prob[i];
    int cc = j - off;
    if (cc >= 0 && cc < c) {
      if (soft) y -= sc * soft[(long)r * c + cc];
      else if (tgt[r] == cc) y -= sc;
    }
    dx[i] = y;
  }
}

// out[0] += s·Σ x (out zeroed by the caller; any grid).
extern "C" __global__ void wt_sum(float* out, const float* x, float s, int n) {
  __shared__ float sh[1024];
  float v = 0.f;
  GRID_LOOP(i, n) v += x[i];
  v = wt_block_sum(v, sh);
  if (TID == 0) ATOMIC_ADD(out, s * v);
}

// out[0] += Σ x² (out zeroed by the caller; any grid).
extern "C" __global__ void wt_sumsq(float* out, const float* x, int n) {
  __shared__ float sh[1024];
  float v = 0.f;
  GRID_LOOP(i, n) v += x[i] * x[i];
  v = wt_block_sum(v, sh);
  if (TID == 0) ATOMIC_ADD(out, v);
}

// AdamW with global-norm clipping: sq[0] is Σ g² over every parameter; with clip > 0 and
// norm > clip the gradient is scaled by clip/(norm+1e-6). lrm[i] multiplies lr per element.
extern "C" __global__ void wt_adamw(float* w, float* m, float* v, const float* g, const float* lrm, const float* sq, int n, float lr, float b1, float b2, float eps, float decay, float clip, float bc1, float bc2) {
  float norm = sqrtf(sq[0]);
  float sc = (clip > 0.f && norm > clip) ? clip / (norm + 1e-6f) : 1.f;
  GRID_LOOP(i, n) {
    float gi = g[i] * sc;
    float mi = b1 * m[i] + (1.f - b1) * gi;
    float vi = b2 * v[i] + (1.f - b2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    float plr = lr * lrm[i];
    w[i] = w[i] * (1.f - plr * decay) - plr * (mi / bc1) / (sqrtf(vi / bc2) + eps);
  }
}
