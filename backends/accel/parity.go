package accel

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// buffer describes one argument buffer of a parity case: its length and how it starts.
type buffer struct {
	n     int
	fill  byte // 'r' normal, 'p' positive, 'u' in (−1, 1), 'z' zeros, 'n' NaN (outputs), 'i' ints below bound, 'm' head mask
	bound int
}

// parityCase is one kernel launched on the same inputs on two devices: args are buffer
// indices (int) or scalars (int32, float32); a negative index is the null pointer.
type parityCase struct {
	name, kernel string
	bufs         []buffer
	args         []any
}

type bufIdx int

// parityCases launches every kernel of the catalogue at odd sizes, outputs filled with NaN
// first so an element a kernel fails to write shows.
func parityCases() []parityCase {
	const (
		n, t, h, d, v = 3, 5, 3, 15, 7 // sequences, length, heads, width, vocabulary
		rows          = n * t
		o, c, off     = 11, 6, 2
	)
	r := func(k int) buffer { return buffer{n: k, fill: 'r'} }
	nan := func(k int) buffer { return buffer{n: k, fill: 'n'} }
	z := func(k int) buffer { return buffer{n: k, fill: 'z'} }
	pos := func(k int) buffer { return buffer{n: k, fill: 'p'} }
	ints := func(k, b int) buffer { return buffer{n: k, fill: 'i', bound: b} }
	b := func(i int) bufIdx { return bufIdx(i) }
	null := bufIdx(-1)
	i32 := func(x int) int32 { return int32(x) }
	const big = 5003
	return []parityCase{
		{"fill", "wt_fill", []buffer{nan(big)}, []any{b(0), float32(1.5), i32(big)}},
		{"copy", "wt_copy", []buffer{nan(big), r(big)}, []any{b(0), b(1), i32(big)}},
		{"add", "wt_add", []buffer{nan(big), r(big), r(big)}, []any{b(0), b(1), b(2), i32(big)}},
		{"scale", "wt_scale", []buffer{nan(big), r(big)}, []any{b(0), b(1), float32(0.7), i32(big)}},
		{"embed", "wt_embed_fwd", []buffer{nan(rows * d), r(v * d), r(t * d), ints(rows, v)}, []any{b(0), b(1), b(2), b(3), i32(rows), i32(t), i32(d)}},
		{"embed backward", "wt_embed_bwd", []buffer{z(v * d), z(t * d), r(rows * d), ints(rows, v)}, []any{b(0), b(1), b(2), b(3), i32(rows), i32(t), i32(d)}},
		{"rmsnorm", "wt_rms_fwd", []buffer{nan(rows * d), nan(rows), r(rows * d), r(d)}, []any{b(0), b(1), b(2), b(3), null, i32(rows), i32(d), float32(1e-5)}},
		{"rmsnorm gather", "wt_rms_fwd", []buffer{nan(n * 2 * d), nan(n * 2), r(rows * d), r(d), ints(n*2, rows)}, []any{b(0), b(1), b(2), b(3), b(4), i32(n * 2), i32(d), float32(1e-5)}},
		{"rmsnorm backward", "wt_rms_bwd", []buffer{nan(rows * d), z(d), r(rows * d), r(rows * d), r(d), pos(rows)}, []any{b(0), b(1), b(2), b(3), b(4), b(5), null, i32(rows), i32(d)}},
		{"bias gelu", "wt_bias_act", []buffer{r(rows * o), nan(rows * o), nan(rows * o), r(o)}, []any{b(0), b(1), b(2), b(3), float32(0.9), i32(rows), i32(o), i32(1)}},
		{"no bias", "wt_bias_act", []buffer{r(rows * o)}, []any{b(0), null, null, null, float32(1), i32(rows), i32(o), i32(0)}},
		{"gelu backward", "wt_gelu_bwd", []buffer{nan(rows * o), r(rows * o), r(rows * o), {n: rows * o, fill: 'u'}}, []any{b(0), b(1), b(2), b(3), float32(0.8), i32(rows * o)}},
		{"column sums", "wt_colsum", []buffer{nan(o), r(rows * o)}, []any{b(0), b(1), i32(rows), i32(o)}},
		{"attention", "wt_attn_fwd", []buffer{nan(rows * d), nan(n * h * t * t), r(rows * d), r(rows * d), r(rows * d), {n: h, fill: 'm'}},
			[]any{b(0), b(1), b(2), b(3), b(4), b(5), i32(n), i32(t), i32(h), i32(d), float32(0.4)}},
		{"attention backward", "wt_attn_bwd", []buffer{nan(rows * d), nan(rows * d), nan(rows * d), z(n * h * t * t), pos(n * h * t * t), r(rows * d), r(rows * d), r(rows * d), r(rows * d), {n: h, fill: 'm'}},
			[]any{b(0), b(1), b(2), b(3), b(4), b(5), b(6), b(7), b(8), b(9), i32(n), i32(t), i32(h), i32(d), float32(0.4)}},
		{"cross-entropy", "wt_ce_fwd", []buffer{nan(rows), nan(rows * o), r(rows * o), ints(rows, c)}, []any{b(0), b(1), b(2), b(3), null, i32(rows), i32(o), i32(off), i32(c)}},
		{"cross-entropy soft", "wt_ce_fwd", []buffer{nan(rows), nan(rows * o), r(rows * o), pos(rows * c)}, []any{b(0), b(1), b(2), null, b(3), i32(rows), i32(o), i32(off), i32(c)}},
		{"cross-entropy backward", "wt_ce_bwd", []buffer{nan(rows * o), pos(rows * o), ints(rows, c)}, []any{b(0), b(1), b(2), null, float32(1), i32(rows), i32(o), i32(off), i32(c)}},
		{"cross-entropy soft backward", "wt_ce_bwd", []buffer{nan(rows * o), pos(rows * o), pos(rows * c)}, []any{b(0), b(1), null, b(2), float32(0.5), i32(rows), i32(o), i32(off), i32(c)}},
		{"sum", "wt_sum", []buffer{z(1), r(big)}, []any{b(0), b(1), float32(0.5), i32(big)}},
		{"sum of squares", "wt_sumsq", []buffer{z(1), r(big)}, []any{b(0), b(1), i32(big)}},
		{"adamw", "wt_adamw", []buffer{r(big), r(big), pos(big), r(big), pos(big), {n: 1, fill: 'p'}},
			[]any{b(0), b(1), b(2), b(3), b(4), b(5), i32(big), float32(1e-3), float32(0.9), float32(0.999), float32(1e-8), float32(0.01), float32(0.5), float32(0.1), float32(0.001)}},
	}
}

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
		case 'm':
			x[i] = 1
			if i == 1 {
				x[i] = 0
			}
		}
	}
	return x
}

// run launches c on dev from the inputs and returns every buffer afterwards.
func (c parityCase) run(dev Device, init [][]float32) ([][]float32, error) {
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
		}
		// Fewer blocks and threads than work items: every kernel's grid-stride loops and
		// block reductions must hold for any grid.
		g := Grid{Blocks: 3, Threads: 64}
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

// Parity launches every kernel of the catalogue on the same random inputs on devices a and b
// and reports each case whose buffers differ by more than tol·(1+|x|) (NaN only where both are
// NaN). It is the kernel-by-kernel check of a GPU against the host versions.
func Parity(a, b Device, seed uint64, tol float64) []error {
	var errs []error
	covered := map[string]bool{}
	for _, c := range parityCases() {
		covered[c.kernel] = true
		rng := rand.New(rand.NewPCG(seed, 1))
		init := make([][]float32, len(c.bufs))
		for i, bf := range c.bufs {
			init[i] = bf.initial(rng)
		}
		ra, err := c.run(a, init)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s on %s: %w", c.name, a.Name(), err))
			continue
		}
		rb, err := c.run(b, init)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s on %s: %w", c.name, b.Name(), err))
			continue
		}
		if err := compareBufs(c, ra, rb, tol); err != nil {
			errs = append(errs, err)
		}
	}
	for k := range Catalogue() {
		if !covered[k] {
			errs = append(errs, fmt.Errorf("kernel %s has no parity case", k))
		}
	}
	return errs
}

func compareBufs(c parityCase, ra, rb [][]float32, tol float64) error {
	for i := range ra {
		if c.bufs[i].fill == 'i' {
			continue
		}
		for j := range ra[i] {
			x, y := float64(ra[i][j]), float64(rb[i][j])
			if math.IsNaN(x) || math.IsNaN(y) {
				if math.IsNaN(x) != math.IsNaN(y) {
					return fmt.Errorf("%s: buffer %d[%d] is %v on one device, %v on the other", c.name, i, j, x, y)
				}
				continue
			}
			if math.Abs(x-y) > tol*(1+math.Abs(x)) {
				return fmt.Errorf("%s: buffer %d[%d] is %v on one device, %v on the other", c.name, i, j, x, y)
			}
		}
	}
	return nil
}
