package accel

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// ParityTol is the tolerance of a kernel parity check against the Go versions: an element
// passes within ParityTol·(1+|x|). It covers float32 rounding in another order (block
// reductions, the GPU's fused multiply-adds, its libm).
const ParityTol = 2e-5

// initial returns a buffer's starting contents (ints as their bit patterns).
func (bf buffer) initial(rng *rand.Rand) []float32 {
	x := make([]float32, bf.n)
	for i := range x {
		switch bf.fill {
		case 'r':
			x[i] = float32(rng.NormFloat64())
		case 'p':
			x[i] = float32(0.05 + rng.Float64())
		case 'u':
			x[i] = float32(2*rng.Float64() - 1)
		case 'n':
			x[i] = float32(math.NaN())
		case 'i':
			x[i] = math.Float32frombits(uint32(rng.IntN(bf.bound)))
		case 'g':
			x[i] = math.Float32frombits(uint32(i/2*bf.bound + []int{1, bf.bound - 2}[i%2]))
		case 'm':
			x[i] = 1
			if i == 1 {
				x[i] = 0
			}
		}
	}
	return x
}

// run launches c over grid g on dev from the inputs and returns every buffer afterwards.
func (c parityCase) run(dev Device, init [][]float32, g Grid) ([][]float32, error) {
	var out [][]float32
	err := dev.Do(func() error {
		ptrs := make([]Ptr, len(c.bufs))
		defer func() {
			for _, p := range ptrs {
				if !p.IsNil() {
					_ = dev.Free(p)
				}
			}
		}()
		for i, bf := range c.bufs {
			p, err := dev.Alloc(bf.n)
			if err != nil {
				return err
			}
			ptrs[i] = p
			if err := dev.Write(p, init[i]); err != nil {
				return err
			}
		}
		args := make([]any, len(c.args))
		for i, a := range c.args {
			args[i] = a
			if bi, ok := a.(bufIdx); ok {
				args[i] = Ptr{}
				if bi >= 0 {
					args[i] = ptrs[bi]
				}
			}
			if ba, ok := a.(bufAt); ok {
				args[i] = ptrs[ba.buf].Add(ba.off)
			}
		}
		if err := dev.Launch(c.kernel, g, args...); err != nil {
			return err
		}
		for _, p := range ptrs {
			x := make([]float32, c.bufs[len(out)].n)
			if err := dev.Read(x, p); err != nil {
				return err
			}
			out = append(out, x)
		}
		return nil
	})
	return out, err
}

// ParityResult is one launch of a parity run: a kernel at one shape and grid on both devices.
type ParityResult struct {
	Case, Kernel, Shape, GridName string
	Grid                          Grid
	// Worst is the largest |a−b|/(1+|a|) over every element of every buffer (NaN on both
	// devices counts as equal).
	Worst float64
	// Err is a launch failure, or the first element beyond the tolerance or NaN on one
	// device only; nil when the case passed.
	Err error
}

// ParityRun launches every kernel of the catalogue at every shape of ParityShapes, over every
// grid of parityGrids, on the same random inputs on devices a and b, and returns one result a
// launch: the kernel-by-kernel check of a GPU (or of the CUDA source run on the CPU) against
// the host's Go versions.
func ParityRun(a, b Device, seed uint64, tol float64) []ParityResult {
	var res []ParityResult
	for _, s := range ParityShapes() {
		for _, c := range parityCases(s) {
			rng := rand.New(rand.NewPCG(seed, 1))
			init := make([][]float32, len(c.bufs))
			for i, bf := range c.bufs {
				init[i] = bf.initial(rng)
			}
			for _, g := range parityGrids(c) {
				r := ParityResult{Case: c.name, Kernel: c.kernel, Shape: s.Name, GridName: g.name, Grid: g.grid}
				r.Worst, r.Err = c.compare(a, b, init, g.grid, tol)
				if r.Err != nil {
					r.Err = fmt.Errorf("%s at %s sizes, grid %s (%d×%d): %w", c.name, s.Name, g.name, g.grid.Blocks, g.grid.Threads, r.Err)
				}
				res = append(res, r)
			}
		}
	}
	return res
}

// compare runs c on both devices and returns the worst difference and the first failure.
func (c parityCase) compare(a, b Device, init [][]float32, g Grid, tol float64) (float64, error) {
	ra, err := c.run(a, init, g)
	if err != nil {
		return 0, fmt.Errorf("on %s: %w", a.Name(), err)
	}
	rb, err := c.run(b, init, g)
	if err != nil {
		return 0, fmt.Errorf("on %s: %w", b.Name(), err)
	}
	return compareBufs(c, ra, rb, tol)
}

// Parity is ParityRun's failures, and a failure for each kernel of the catalogue no case runs.
func Parity(a, b Device, seed uint64, tol float64) []error {
	var errs []error
	covered := map[string]bool{}
	for _, r := range ParityRun(a, b, seed, tol) {
		covered[r.Kernel] = true
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	for k := range Catalogue() {
		if !covered[k] {
			errs = append(errs, fmt.Errorf("kernel %s has no parity case", k))
		}
	}
	return errs
}

// compareBufs returns the worst relative difference between ra and rb over every element of
// every buffer but the integer ones, and an error naming the first element beyond tol or NaN
// on one side only.
func compareBufs(c parityCase, ra, rb [][]float32, tol float64) (float64, error) {
	var worst float64
	var first error
	for i := range ra {
		if f := c.bufs[i].fill; f == 'i' || f == 'g' {
			continue
		}
		for j := range ra[i] {
			x, y := float64(ra[i][j]), float64(rb[i][j])
			if math.IsNaN(x) || math.IsNaN(y) {
				if math.IsNaN(x) != math.IsNaN(y) && first == nil {
					first = fmt.Errorf("buffer %d[%d] is %v on one device, %v on the other", i, j, x, y)
					worst = math.Inf(1)
				}
				continue
			}
			e := math.Abs(x-y) / (1 + math.Abs(x))
			worst = max(worst, e)
			if e > tol && first == nil {
				first = fmt.Errorf("buffer %d[%d] is %v on one device, %v on the other", i, j, x, y)
			}
		}
	}
	return worst, first
}
