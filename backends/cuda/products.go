package cuda

import (
	"fmt"
	"math"
	"runtime"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/blas"

	"windtunnel/backends/gemm"
)

// Sgemm computes C = alpha·op(A)·op(B) + beta·C in single precision, on the GPU when the product is large enough.
func (b *Backend) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, bm []float32, ldb int, beta float32, c []float32, ldc int) {
	if !gemm.CheckGemm(tA, tB, m, n, k, len(a), lda, len(bm), ldb, len(c), ldc) {
		return
	}
	if b.wantGPU(m, n, k, lda, ldb, ldc, alpha != 0) && gpuGemm(b, tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc) {
		return
	}
	b.cpuCalls.Add(1)
	b.cpu.Sgemm(tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
}

// Dgemm computes C = alpha·op(A)·op(B) + beta·C in double precision, on the GPU when the product is large enough.
func (b *Backend) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, bm []float64, ldb int, beta float64, c []float64, ldc int) {
	if !gemm.CheckGemm(tA, tB, m, n, k, len(a), lda, len(bm), ldb, len(c), ldc) {
		return
	}
	if b.wantGPU(m, n, k, lda, ldb, ldc, alpha != 0) && gpuGemm(b, tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc) {
		return
	}
	b.cpuCalls.Add(1)
	b.cpu.Dgemm(tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
}

// wantGPU reports whether a valid, non-empty product goes to the GPU: not
// when the GPU is off, when there is nothing to multiply (alpha or k zero:
// the CPU only scales C), when a size exceeds cuBLAS's int, or below the threshold.
func (b *Backend) wantGPU(m, n, k, lda, ldb, ldc int, alphaNonZero bool) bool {
	if b.off.Load() || !alphaNonZero || k == 0 {
		return false
	}
	for _, v := range [...]int{m, n, k, lda, ldb, ldc} {
		if v > math.MaxInt32 {
			return false
		}
	}
	return b.threshold <= 0 || float64(m)*float64(n)*float64(k) >= float64(b.threshold)
}

// gpuGemm computes the product on the GPU and reports whether it did; when it
// did not, C is unchanged and the caller computes it on the CPU.
func gpuGemm[T float32 | float64](b *Backend, tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, bm []T, ldb int, beta T, c []T, ldc int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.err != nil {
		return false
	}
	start := time.Now()
	cTouched, err := gpuGemmLocked(b, tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
	b.gpuNanos.Add(int64(time.Since(start)))
	runtime.KeepAlive(a)
	runtime.KeepAlive(bm)
	runtime.KeepAlive(c)
	if err == nil {
		b.gpuCalls.Add(1)
		return true
	}
	b.err = fmt.Errorf("cuda: GPU disabled, products run on %s from now on: %w", b.cpu.Name(), err)
	b.off.Store(true)
	if cTouched && beta != 0 {
		// C was partly overwritten by a failed copy and its old value is
		// lost: the product cannot be recomputed.
		panic(fmt.Sprintf("cuda: %v (C was partly overwritten and cannot be recomputed)", err))
	}
	return false
}

// storedLen is the number of elements spanned by a row-major rows×cols matrix with leading dimension ld.
func storedLen(rows, cols, ld int) int { return (rows-1)*ld + cols }

// gpuGemmLocked runs one product with b.mu held. cTouched reports whether
// host C may have been written when err is not nil.
func gpuGemmLocked[T float32 | float64](b *Backend, tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, bm []T, ldb int, beta T, c []T, ldc int) (cTouched bool, err error) {
	var zero T
	elem := unsafe.Sizeof(zero)
	single := elem == 4

	if err := b.dev.bind(); err != nil {
		return false, err
	}
	defer b.dev.unbind()

	// A and B are copied with their leading dimensions (the span from the
	// first to the last element they use).
	lenA := storedLen(m, k, lda)
	if tA != blas.NoTrans {
		lenA = storedLen(k, m, lda)
	}
	lenB := storedLen(k, n, ldb)
	if tB != blas.NoTrans {
		lenB = storedLen(n, k, ldb)
	}
	devA, err := b.operand(slotA, unsafe.Pointer(&a[0]), lenA, elem)
	if err != nil {
		return false, err
	}
	devB, err := b.operand(slotB, unsafe.Pointer(&bm[0]), lenB, elem)
	if err != nil {
		return false, err
	}

	// C lives densely on the device (leading dimension n): a C whose rows
	// are padded goes through a host staging buffer, so the padding between
	// its rows is never written.
	cBytes := uintptr(m) * uintptr(n) * elem
	devC, err := b.buffer(slotC, cBytes)
	if err != nil {
		return false, err
	}
	dense := ldc == n || m == 1
	var stage []T
	if !dense {
		stage = stageBuf[T](b, m*n)
	}
	if beta != 0 {
		src := unsafe.Pointer(&c[0])
		if !dense {
			for i := 0; i < m; i++ {
				copy(stage[i*n:(i+1)*n], c[i*ldc:i*ldc+n])
			}
			src = unsafe.Pointer(&stage[0])
		}
		if err := b.dev.htod(devC, src, cBytes); err != nil {
			return false, err
		}
		b.bytesTo.Add(int64(cBytes))
	}

	cl := colMajor(tA, tB, m, n, k, lda, ldb, n)
	x, y := devA, devB
	if cl.first == operandB {
		x, y = devB, devA
	}
	var pa, pb unsafe.Pointer
	if single {
		b.alpha32, b.beta32 = float32(alpha), float32(beta)
		pa, pb = unsafe.Pointer(&b.alpha32), unsafe.Pointer(&b.beta32)
	} else {
		b.alpha64, b.beta64 = float64(alpha), float64(beta)
		pa, pb = unsafe.Pointer(&b.alpha64), unsafe.Pointer(&b.beta64)
	}
	if err := b.dev.gemm(single, cl, pa, x, y, pb, devC); err != nil {
		return false, err
	}

	// The copy back waits for the product (same stream) and reports its errors.
	if dense {
		if err := b.dev.dtoh(unsafe.Pointer(&c[0]), devC, cBytes); err != nil {
			return true, err
		}
	} else {
		if err := b.dev.dtoh(unsafe.Pointer(&stage[0]), devC, cBytes); err != nil {
			return false, err
		}
		for i := 0; i < m; i++ {
			copy(c[i*ldc:i*ldc+n], stage[i*n:(i+1)*n])
		}
	}
	b.bytesFrom.Add(int64(cBytes))
	return false, nil
}

// stageBuf returns the host staging buffer as count elements of T.
func stageBuf[T float32 | float64](b *Backend, count int) []T {
	var zero T
	words := (count*int(unsafe.Sizeof(zero)) + 7) / 8
	if len(b.stage) < words {
		b.stage = make([]float64, words)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b.stage[0])), count)
}

// operand returns the device address of count elements at host address p:
// a valid resident copy when p lies in a resident slice (uploading it first
// when stale), else the pooled buffer of slot after an upload.
func (b *Backend) operand(slot int, p unsafe.Pointer, count int, elem uintptr) (devPtr, error) {
	bytes := uintptr(count) * elem
	start := uintptr(p)
	if elem == 4 {
		for _, r := range b.resident {
			if start < r.start || start+bytes > r.end {
				continue
			}
			if !r.valid {
				if err := b.upload(r); err != nil {
					return 0, err
				}
			} else {
				b.residentHits.Add(1)
			}
			return r.dev + devPtr(start-r.start), nil
		}
	}
	d, err := b.buffer(slot, bytes)
	if err != nil {
		return 0, err
	}
	if err := b.dev.htod(d, p, bytes); err != nil {
		return 0, err
	}
	b.bytesTo.Add(int64(bytes))
	return d, nil
}

// upload copies a resident slice to its device copy, allocating that on first use.
func (b *Backend) upload(r *residentBuf) error {
	bytes := uintptr(len(r.host)) * 4
	if r.dev == 0 {
		d, err := b.dev.alloc(bytes)
		if err != nil {
			return err
		}
		r.dev = d
	}
	if err := b.dev.htod(r.dev, unsafe.Pointer(&r.host[0]), bytes); err != nil {
		return err
	}
	r.valid = true
	b.residentUploads.Add(1)
	b.bytesTo.Add(int64(bytes))
	return nil
}

// buffer returns slot's pooled device buffer, grown (by at least half) when smaller than bytes.
func (b *Backend) buffer(slot int, bytes uintptr) (devPtr, error) {
	buf := &b.bufs[slot]
	if buf.size >= bytes {
		return buf.ptr, nil
	}
	size := max(bytes, buf.size+buf.size/2)
	const align = 1 << 16
	size = (size + align - 1) &^ (align - 1)
	if buf.ptr != 0 {
		if err := b.dev.free(buf.ptr); err != nil {
			return 0, err
		}
		*buf = devBuf{}
	}
	p, err := b.dev.alloc(size)
	if err != nil {
		return 0, err
	}
	*buf = devBuf{ptr: p, size: size}
	return p, nil
}
