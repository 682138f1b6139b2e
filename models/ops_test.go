package models

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
	"windtunnel/backends/par"
)

// Each custom kernel is checked alone, in float64, against
//   - the same computation composed from stock gorgonia ops (forward and every input gradient),
//   - central finite differences of its own forward pass,
//
// and its float32 instantiation (fast tanh/exp) against its float64 one.

// kcase is one kernel configuration with its inputs and its composed-op equivalent.
type kcase struct {
	name   string
	k      kernel
	scalar bool
	in     []*tensor.Dense
	stock  func(g *G.ExprGraph, x []*G.Node) *G.Node // float64; panics on error; nil: none
}

// opSizes are the dimensions of the test batch: n sequences of t tokens, width d.
type opSizes struct{ n, t, d, workers int }

var smallSizes = opSizes{n: 2, t: 4, d: 6, workers: 2}

// The norms' eps is large so that a misplaced eps would show.
const testEps = 0.05

// kernelCases builds every kernel configuration in element type T. The inputs depend only
// on sz, so the float32 and float64 cases see the same values.
func kernelCases[T Float](sz opSizes) []kcase {
	rng := rand.New(rand.NewPCG(11, 12))
	pl, be := par.Pool{Workers: sz.workers}, gemm.Go() // float32 on the go backend, float64 on gonum
	n, tl, d := sz.n, sz.t, sz.d
	m := n * tl
	const o = 5 // linear output width
	mat := func(r, c int) *tensor.Dense { return randDense(rng, r, c, 1) }

	var cs []kcase

	// RMSNorm over all rows, then over gathered rows (positions 1 and 3 of each sequence).
	rms := func(x, g *G.Node) *G.Node {
		inv := G.Must(G.Inverse(G.Must(G.Sqrt(G.Must(G.Add(rowMean(G.Must(G.Square(x))), G.NewConstant(testEps)))))))
		return perCol(G.BroadcastHadamardProd, perRow(G.BroadcastHadamardProd, x, inv), g)
	}
	cs = append(cs, kcase{
		name: "RMSNorm", k: &rmsKernel[T]{eps: testEps, p: pl},
		in:    []*tensor.Dense{mat(m, d), mat(1, d)},
		stock: func(_ *G.ExprGraph, x []*G.Node) *G.Node { return rms(x[0], x[1]) },
	})
	gs := &gatherSpec{t: tl, pos: []int{1, 3}}
	var rows []int
	for r := 0; r < n*len(gs.pos); r++ {
		rows = append(rows, gs.row(r))
	}
	cs = append(cs, kcase{
		name: "RMSNorm/gather", k: &rmsKernel[T]{eps: testEps, p: pl, gather: gs},
		in: []*tensor.Dense{mat(m, d), mat(1, d)},
		stock: func(g *G.ExprGraph, x []*G.Node) *G.Node {
			return rms(G.Must(G.ByIndices(x[0], intVec(g, "rows", rows), 0)), x[1])
		},
	})

	// Linear: plain, bias+GELU, bias+residual, transposed weight.
	gelu := func(u *G.Node) *G.Node {
		inner := scale(G.Must(G.Add(u, scale(G.Must(G.Cube(u)), 0.044715))), geluC)
		return G.Must(G.HadamardProd(scale(u, 0.5), G.Must(G.Add(G.Must(G.Tanh(inner)), G.NewConstant(1.0)))))
	}
	cs = append(cs,
		kcase{
			name: "Linear", k: &linKernel[T]{be: be, p: pl},
			in:    []*tensor.Dense{mat(m, d), mat(d, o)},
			stock: func(_ *G.ExprGraph, x []*G.Node) *G.Node { return G.Must(G.Mul(x[0], x[1])) },
		},
		kcase{
			name: "Linear/bias+GELU", k: &linKernel[T]{be: be, p: pl, bias: true, act: actGELU},
			in: []*tensor.Dense{mat(m, d), mat(d, o), mat(1, o)},
			stock: func(_ *G.ExprGraph, x []*G.Node) *G.Node {
				return gelu(perCol(G.BroadcastAdd, G.Must(G.Mul(x[0], x[1])), x[2]))
			},
		},
		// The exact GELU: gorgonia has no erf to compose it from, so no stock graph; the
		// float32 case (the vector kernel where it runs) is checked against float64's math.Erf.
		kcase{
			name: "Linear/bias+GELUErf", k: &linKernel[T]{be: be, p: pl, bias: true, act: actGELUErf},
			in: []*tensor.Dense{mat(m, d), mat(d, o), mat(1, o)},
		},
		kcase{
			name: "Linear/bias+residual", k: &linKernel[T]{be: be, p: pl, bias: true, res: true},
			in: []*tensor.Dense{mat(m, d), mat(d, o), mat(1, o), mat(m, o)},
			stock: func(_ *G.ExprGraph, x []*G.Node) *G.Node {
				return G.Must(G.Add(perCol(G.BroadcastAdd, G.Must(G.Mul(x[0], x[1])), x[2]), x[3]))
			},
		},
		kcase{
			name: "Linear/transposedW", k: &linKernel[T]{be: be, p: pl, transW: true},
			in: []*tensor.Dense{mat(m, d), mat(o, d)},
			stock: func(_ *G.ExprGraph, x []*G.Node) *G.Node {
				return G.Must(G.Mul(x[0], G.Must(G.Transpose(x[1]))))
			},
		},
	)

	// The fused projections: x·[Wq | Wk | Wv].
	cs = append(cs, kcase{
		name: "QKV", k: &qkvKernel[T]{be: be},
		in: []*tensor.Dense{mat(m, d), mat(d, d), mat(d, d), mat(d, d)},
		stock: func(_ *G.ExprGraph, x []*G.Node) *G.Node {
			return G.Must(G.Concat(1, G.Must(G.Mul(x[0], x[1])), G.Must(G.Mul(x[0], x[2])), G.Must(G.Mul(x[0], x[3]))))
		},
	})

	// Causal attention on the fused (N·T)×3d input, composed per sequence and head with an
	// additive −1e9 mask.
	for _, mask := range [][]float64{{1, 0}, {1, 1, 1}} {
		h := len(mask)
		hd := d / h
		causal := make([]float64, tl*tl)
		for i := 0; i < tl; i++ {
			for j := i + 1; j < tl; j++ {
				causal[i*tl+j] = -1e9
			}
		}
		name := "CausalAttention/head1off"
		if h == 3 {
			name = "CausalAttention/3heads"
		}
		cs = append(cs, kcase{
			name: name, k: &attnKernel[T]{be: be, p: pl, t: tl, heads: h, mask: mask},
			in: []*tensor.Dense{mat(m, 3*d)},
			stock: func(g *G.ExprGraph, x []*G.Node) *G.Node {
				cm := fconst(g, "causal", tl, tl, causal)
				var seqs []*G.Node
				for b := 0; b < n; b++ {
					var heads []*G.Node
					for hh := 0; hh < h; hh++ {
						blk := func(part int) *G.Node { // part 0, 1, 2: queries, keys, values
							c0 := part*d + hh*hd
							return G.Must(G.Slice(x[0], G.S(b*tl, (b+1)*tl), G.S(c0, c0+hd)))
						}
						s := scale(G.Must(G.Mul(blk(0), G.Must(G.Transpose(blk(1))))), 1/math.Sqrt(float64(hd)))
						p := G.Must(G.SoftMax(G.Must(G.Add(s, cm))))
						heads = append(heads, scale(G.Must(G.Mul(p, blk(2))), mask[hh]))
					}
					seqs = append(seqs, G.Must(G.Concat(1, heads...)))
				}
				return G.Must(G.Concat(0, seqs...))
			},
		})
	}

	// Cross-entropy over rows of logits R×width, classes at columns off..off+c.
	const width, off, classes = 5, 1, 3
	r := n * 3
	tgt := make([]int, r)
	for i := range tgt {
		tgt[i] = rng.IntN(classes)
	}
	soft := make([]float64, r*classes)
	for i := 0; i < r; i++ {
		row := soft[i*classes : (i+1)*classes]
		s := 0.0
		for c := range row {
			if rng.IntN(4) > 0 { // leave some zeros
				row[c] = rng.Float64()
				s += row[c]
			}
		}
		if s == 0 {
			row[0], s = 1, 1
		}
		for c := range row {
			row[c] /= s
		}
	}
	ce := func(tm []float64) func(*G.ExprGraph, []*G.Node) *G.Node {
		return func(g *G.ExprGraph, x []*G.Node) *G.Node {
			lp := G.Must(G.LogSoftMax(x[0]))
			return scale(G.Must(G.Sum(G.Must(G.HadamardProd(lp, fconst(g, "targets", r, width, tm))))), -1/float64(r))
		}
	}
	hard := make([]float64, r*width)
	for i, c := range tgt {
		hard[i*width+off+c] = 1
	}
	softM := make([]float64, r*width)
	for i := 0; i < r; i++ {
		copy(softM[i*width+off:], soft[i*classes:(i+1)*classes])
	}
	noSoft := []float64(nil)
	cs = append(cs,
		kcase{
			name: "CrossEntropy/hard", scalar: true,
			k:     &ceKernel[T]{p: pl, off: off, c: classes, tgt: &tgt, soft: &noSoft},
			in:    []*tensor.Dense{randDense(rng, r, width, 3)},
			stock: ce(hard),
		},
		kcase{
			name: "CrossEntropy/soft", scalar: true,
			k:     &ceKernel[T]{p: pl, off: off, c: classes, tgt: &tgt, soft: &soft},
			in:    []*tensor.Dense{randDense(rng, r, width, 3)},
			stock: ce(softM),
		},
	)

	// LayerNorm.
	cs = append(cs, kcase{
		name: "LayerNorm", k: &layerNormKernel[T]{eps: testEps, p: pl},
		in: []*tensor.Dense{mat(m, d), mat(1, d), mat(1, d)},
		stock: func(_ *G.ExprGraph, x []*G.Node) *G.Node {
			xc := perRow(G.BroadcastSub, x[0], rowMean(x[0]))
			rs := G.Must(G.Inverse(G.Must(G.Sqrt(G.Must(G.Add(rowMean(G.Must(G.Square(xc))), G.NewConstant(testEps)))))))
			return perCol(G.BroadcastAdd, perCol(G.BroadcastHadamardProd, perRow(G.BroadcastHadamardProd, xc, rs), x[1]), x[2])
		},
	})

	// Embed: token table V×d, position table longer than T (rows ≥ T get no gradient).
	const vocab = 5
	ids, posIdx := make([]int, m), make([]int, m)
	for i := range ids {
		ids[i], posIdx[i] = rng.IntN(vocab), i%tl
	}
	cs = append(cs, kcase{
		name: "Embed", k: &embedKernel[T]{t: tl, ids: &ids},
		in: []*tensor.Dense{mat(vocab, d), mat(tl+2, d)},
		stock: func(g *G.ExprGraph, x []*G.Node) *G.Node {
			return G.Must(G.Add(G.Must(G.ByIndices(x[0], intVec(g, "ids", ids), 0)), G.Must(G.ByIndices(x[1], intVec(g, "pos", posIdx), 0))))
		},
	})

	// One-hot prefix input layer of the MLP: the one-hot matrix of the prefix times W, plus b.
	const pv = 3
	pids := make([]int, m)
	for i := range pids {
		pids[i] = rng.IntN(pv)
	}
	ppos := []int{1, 3}
	for _, tokenOnly := range []bool{false, true} {
		wRows := (tl + 1) * pv // longer than T·V, as for a model with a larger maximum length
		oneHot := make([]float64, n*len(ppos)*wRows)
		for s := 0; s < n; s++ {
			for p, pos := range ppos {
				for t := 0; t <= pos; t++ {
					if !tokenOnly || t == pos {
						oneHot[(s*len(ppos)+p)*wRows+t*pv+pids[s*tl+t]] = 1
					}
				}
			}
		}
		name := "OneHotPrefix"
		if tokenOnly {
			name += "/tokenOnly"
		}
		cs = append(cs, kcase{
			name: name, k: &prefixKernel[T]{t: tl, vocab: pv, tokenOnly: tokenOnly, pos: ppos, ids: &pids},
			in: []*tensor.Dense{mat(wRows, o), mat(1, o)},
			stock: func(g *G.ExprGraph, x []*G.Node) *G.Node {
				oh := fconst(g, "onehot", n*len(ppos), wRows, oneHot)
				return perCol(G.BroadcastAdd, G.Must(G.Mul(oh, x[0])), x[1])
			},
		})
	}
	return cs
}

func dtypeOf[T Float]() tensor.Dtype {
	if is32[T]() {
		return tensor.Float32
	}
	return tensor.Float64
}

// runKernel runs the case's kernel alone in a graph of element type T.
func runKernel[T Float](t *testing.T, c kcase) graphRun {
	t.Helper()
	return runGraph(t, dtypeOf[T](), c.in, kernelGraph(c.k, c.scalar, dtypeOf[T]()))
}

func TestKernelsMatchComposedOps(t *testing.T) {
	const fwdTol, gradTol = 1e-10, 1e-8
	for _, c := range kernelCases[float64](smallSizes) {
		t.Run(c.name, func(t *testing.T) {
			if c.stock == nil {
				t.Skip("no composed equivalent")
			}
			got := runKernel[float64](t, c)
			want := runGraph(t, tensor.Float64, c.in, stockGraph(c.stock))
			e := maxRelErr(got.out, want.out)
			if e > fwdTol {
				t.Errorf("forward differs from the composed ops by %.3g (tolerance %g)", e, fwdTol)
			}
			worst := 0.0
			for i := range c.in {
				if maxAbs(want.grads[i]) == 0 {
					t.Errorf("gradient of input %d is all zeros: the check would be vacuous", i)
				}
				ge := maxRelErr(got.grads[i], want.grads[i])
				worst = math.Max(worst, ge)
				if ge > gradTol {
					t.Errorf("gradient of input %d differs from the composed ops by %.3g (tolerance %g)\n kernel %.6g\n stock  %.6g",
						i, ge, gradTol, got.grads[i], want.grads[i])
				}
			}
			t.Logf("forward %.3g, gradients %.3g", e, worst)
		})
	}
}

func TestKernelsFiniteDifferences(t *testing.T) {
	const h, tol = 1e-6, 1e-6
	for _, c := range kernelCases[float64](smallSizes) {
		t.Run(c.name, func(t *testing.T) {
			an := runKernel[float64](t, c)
			in := cloneDenses(c.in)
			worst := 0.0
			for i, d := range in {
				v := d.Float64s()
				for j, old := range v {
					v[j] = old + h
					lp := kernelLoss(c.k, c.scalar, in)
					v[j] = old - h
					lm := kernelLoss(c.k, c.scalar, in)
					v[j] = old
					num, a := (lp-lm)/(2*h), an.grads[i][j]
					e := math.Abs(num-a) / math.Max(1, math.Abs(a))
					worst = math.Max(worst, e)
					if e > tol {
						t.Errorf("input %d[%d]: analytic %.10g, numeric %.10g (rel %.3g)", i, j, a, num, e)
					}
				}
			}
			t.Logf("worst relative error %.3g", worst)
		})
	}
}

func TestKernelsFloat32(t *testing.T) {
	const fwdTol, gradTol = 1e-5, 1e-4
	c64, c32 := kernelCases[float64](smallSizes), kernelCases[float32](smallSizes)
	for i := range c64 {
		t.Run(c64[i].name, func(t *testing.T) {
			want, got := runKernel[float64](t, c64[i]), runKernel[float32](t, c32[i])
			checkFloat32(t, got, want, fwdTol, gradTol)
		})
	}
}

// TestKernelsParallel runs every kernel on enough rows that its row loops split across
// goroutines, and compares with a single worker.
func TestKernelsParallel(t *testing.T) {
	big := opSizes{n: 160, t: 4, d: 6}
	big.workers = 1
	serial := kernelCases[float64](big)
	big.workers = 3
	parallel := kernelCases[float64](big)
	for i := range serial {
		t.Run(serial[i].name, func(t *testing.T) {
			want, got := runKernel[float64](t, serial[i]), runKernel[float64](t, parallel[i])
			if e := maxRelErr(got.out, want.out); e > 1e-12 {
				t.Errorf("forward with 3 workers differs from 1 worker by %.3g", e)
			}
			for j := range want.grads {
				if e := maxRelErr(got.grads[j], want.grads[j]); e > 1e-12 {
					t.Errorf("gradient of input %d with 3 workers differs from 1 worker by %.3g", j, e)
				}
			}
		})
	}
}
