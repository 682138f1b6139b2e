package accel

import (
	"fmt"
	"unsafe"

	"gonum.org/v1/gonum/blas"

	"windtunnel/backends/gemm"
)

// Host is a Device in this process's memory: allocations are Go slices, kernels are the Go
// functions of hostKernels and products go to a gemm.Backend. It runs the device executor
// without a GPU, so the executor can be tested against the CPU path anywhere.
type Host struct {
	be      gemm.Backend
	bufs    map[uint64][]float32
	next    uint64
	kernels map[string]func(args []any) error
	// Launches counts kernel launches and products, for tests.
	Launches int
}

// NewHost returns a host device whose products run on be (nil: pure-Go gonum).
func NewHost(be gemm.Backend) *Host {
	if be == nil {
		be = gemm.Gonum()
	}
	h := &Host{be: be, bufs: map[uint64][]float32{}}
	h.kernels = hostKernels(h)
	return h
}

// Name implements Device.
func (h *Host) Name() string { return "host (Go kernels, " + h.be.Name() + ")" }

// Do implements Device: it runs fn on the calling goroutine.
func (h *Host) Do(fn func() error) error { return fn() }

// Alloc implements Device.
func (h *Host) Alloc(n int) (Ptr, error) {
	if n < 0 {
		return Ptr{}, fmt.Errorf("accel: host: alloc %d elements", n)
	}
	h.next++
	h.bufs[h.next] = make([]float32, max(n, 1))
	return Ptr{Base: h.next}, nil
}

// Free implements Device.
func (h *Host) Free(p Ptr) error {
	if _, ok := h.bufs[p.Base]; !ok {
		return fmt.Errorf("accel: host: free of unknown buffer %d", p.Base)
	}
	delete(h.bufs, p.Base)
	return nil
}

// f returns the n elements at p, or an error if they are not inside one allocation.
func (h *Host) f(p Ptr, n int) ([]float32, error) {
	b, ok := h.bufs[p.Base]
	if !ok {
		return nil, fmt.Errorf("accel: host: unknown buffer %d", p.Base)
	}
	if p.Off < 0 || n < 0 || p.Off+n > len(b) {
		return nil, fmt.Errorf("accel: host: elements %d..%d outside buffer %d of %d", p.Off, p.Off+n, p.Base, len(b))
	}
	return b[p.Off : p.Off+n], nil
}

// ints views the n elements at p as int32s.
func (h *Host) ints(p Ptr, n int) ([]int32, error) {
	f, err := h.f(p, n)
	if err != nil || n == 0 {
		return nil, err
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&f[0])), n), nil
}

// Write implements Device.
func (h *Host) Write(dst Ptr, src []float32) error {
	d, err := h.f(dst, len(src))
	if err != nil {
		return err
	}
	copy(d, src)
	return nil
}

// WriteInts implements Device.
func (h *Host) WriteInts(dst Ptr, src []int32) error {
	d, err := h.ints(dst, len(src))
	if err != nil {
		return err
	}
	copy(d, src)
	return nil
}

// Read implements Device.
func (h *Host) Read(dst []float32, src Ptr) error {
	s, err := h.f(src, len(dst))
	if err != nil {
		return err
	}
	copy(dst, s)
	return nil
}

// Launch implements Device: it checks the arguments against the catalogue and runs the
// kernel's Go version (the grid only has to be valid).
func (h *Host) Launch(name string, g Grid, args ...any) error {
	if err := CheckArgs(name, args); err != nil {
		return err
	}
	if g.Blocks < 1 || g.Threads < 1 || g.Threads > 1024 {
		return fmt.Errorf("accel: %s: invalid grid %+v", name, g)
	}
	k, ok := h.kernels[name]
	if !ok {
		return fmt.Errorf("accel: host: kernel %s has no Go version", name)
	}
	h.Launches++
	if err := k(args); err != nil {
		return fmt.Errorf("accel: host: %s: %w", name, err)
	}
	return nil
}

// Gemm implements Device.
func (h *Host) Gemm(tA, tB bool, m, n, k int, alpha float32, a Ptr, lda int, b Ptr, ldb int, beta float32, c Ptr, ldc int) error {
	if m == 0 || n == 0 {
		return nil
	}
	ar, ac, br, bc := OperandShapes(tA, tB, m, n, k)
	as, err := h.f(a, span(ar, ac, lda))
	if err != nil {
		return fmt.Errorf("accel: gemm A: %w", err)
	}
	bs, err := h.f(b, span(br, bc, ldb))
	if err != nil {
		return fmt.Errorf("accel: gemm B: %w", err)
	}
	cs, err := h.f(c, span(m, n, ldc))
	if err != nil {
		return fmt.Errorf("accel: gemm C: %w", err)
	}
	h.Launches++
	h.be.Sgemm(trans(tA), trans(tB), m, n, k, alpha, as, lda, bs, ldb, beta, cs, ldc)
	return nil
}

// OperandShapes returns the stored rows and columns of A and B in the row-major product
// C(m×n) = op(A)·op(B) with inner dimension k.
func OperandShapes(tA, tB bool, m, n, k int) (ar, ac, br, bc int) {
	ar, ac, br, bc = m, k, k, n
	if tA {
		ar, ac = k, m
	}
	if tB {
		br, bc = n, k
	}
	return ar, ac, br, bc
}

// span is the number of elements a rows×cols row-major matrix with leading dimension ld covers.
func span(rows, cols, ld int) int {
	if rows == 0 || cols == 0 {
		return 0
	}
	return (rows-1)*ld + cols
}

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// Sync implements Device.
func (h *Host) Sync() error { return nil }

// Close implements Device.
func (h *Host) Close() error {
	h.bufs = map[uint64][]float32{}
	return nil
}
