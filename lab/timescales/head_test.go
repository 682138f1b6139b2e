package timescales

import (
	"math"
	"testing"

	"windtunnel/backends/gemm"
)

// smallData is seed's sequence of length symbols under the authors' chain.
func smallData(t *testing.T, seed uint64, length int) Data {
	t.Helper()
	d, err := Draw(seed, length, Transition(Symbols, SelfProb), Means())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// naiveLoss is the head's mean cross-entropy written out in float64 loops over the full
// N×N score matrix with the causal mask applied as −∞ (the authors' form), independent of
// the blocked kernel.
func naiveLoss(d Data, p Params[float64]) float64 {
	n := d.N
	proj := func(w []float64, width int) []float64 {
		out := make([]float64, n*width)
		for t := range n {
			for j := range width {
				s := 0.0
				for i := range Dim {
					s += d.X[t*Dim+i] * w[i*width+j]
				}
				out[t*width+j] = s
			}
		}
		return out
	}
	q, k, v := proj(p.WQ, KeyDim), proj(p.WK, KeyDim), proj(p.WV, ValueDim)
	loss := 0.0
	for t := range n {
		scores := make([]float64, n)
		mx := math.Inf(-1)
		for s := range n {
			scores[s] = math.Inf(-1)
			if s <= t {
				dot := 0.0
				for j := range KeyDim {
					dot += q[t*KeyDim+j] * k[s*KeyDim+j]
				}
				scores[s] = dot / math.Sqrt(KeyDim)
			}
			mx = math.Max(mx, scores[s])
		}
		z := 0.0
		for s := range n {
			scores[s] = math.Exp(scores[s] - mx)
			z += scores[s]
		}
		out := make([]float64, ValueDim)
		for s := range n {
			for j := range ValueDim {
				out[j] += scores[s] / z * v[s*ValueDim+j]
			}
		}
		logits := make([]float64, Symbols)
		lmx := math.Inf(-1)
		for c := range Symbols {
			for j := range ValueDim {
				logits[c] += out[j] * p.WO[j*Symbols+c]
			}
			lmx = math.Max(lmx, logits[c])
		}
		lz := 0.0
		for _, l := range logits {
			lz += math.Exp(l - lmx)
		}
		loss -= logits[d.Y[t]] - lmx - math.Log(lz)
	}
	return loss / float64(n)
}

// TestHeadLossAgainstNaive: the blocked causal head's loss (three blocks, the last partial)
// equals the plain float64 loops of naiveLoss, in float64 within 1e-12 and float32 within
// 1e-5, at the initial weights and at weights 20× larger (sharp attention).
func TestHeadLossAgainstNaive(t *testing.T) {
	d := smallData(t, 3, 250)
	h64, err := NewHead[float64](gemm.Go(), d)
	if err != nil {
		t.Fatal(err)
	}
	h32, err := NewHead[float32](gemm.Go(), d)
	if err != nil {
		t.Fatal(err)
	}
	for _, scale := range []float64{1, 20} {
		p := InitParams[float64](5)
		for _, m := range p.Matrices() {
			for i := range m {
				m[i] *= scale
			}
		}
		want := naiveLoss(d, p)
		if got := h64.Loss(p); math.Abs(got-want) > 1e-12*math.Max(1, want) {
			t.Errorf("scale %g: float64 loss %.15g, naive %.15g", scale, got, want)
		}
		if got := h64.LossGrad(p); math.Abs(got-want) > 1e-12*math.Max(1, want) {
			t.Errorf("scale %g: float64 LossGrad's loss %.15g, naive %.15g", scale, got, want)
		}
		if got := h32.Loss(to32(p)); math.Abs(got-want) > 1e-5*math.Max(1, want) {
			t.Errorf("scale %g: float32 loss %.8g, naive %.8g", scale, got, want)
		}
	}
}

func to32(p Params[float64]) Params[float32] {
	q := NewParams[float32]()
	for i, m := range q.Matrices() {
		for j, x := range p.Matrices()[i] {
			m[j] = float32(x)
		}
	}
	return q
}

// TestHeadGradient: every entry of the float64 gradient (W_Q, W_K, W_V, W_O) matches a
// central finite difference of the loss (step 1e-5) within 1e-7 absolute plus 1e-5
// relative, at weights 5× the initial scale so that attention is far from uniform; the
// float32 gradient follows the float64 one within 2e-4 of the largest entry. Under -short
// the finite differences sample the entries: every 7th (7 is prime to each matrix's row
// length, so every row and column is met) and each matrix's last.
func TestHeadGradient(t *testing.T) {
	d := smallData(t, 11, 200)
	h, err := NewHead[float64](gemm.Go(), d)
	if err != nil {
		t.Fatal(err)
	}
	p := InitParams[float64](8)
	for _, m := range p.Matrices() {
		for i := range m {
			m[i] *= 5
		}
	}
	h.LossGrad(p)
	grad := h.Grad().Clone()
	const eps = 1e-5
	names := []string{"W_Q", "W_K", "W_V", "W_O"}
	for mi, m := range p.Matrices() {
		for j := range m {
			if testing.Short() && j%7 != 0 && j != len(m)-1 {
				continue
			}
			w := m[j]
			m[j] = w + eps
			up := h.Loss(p)
			m[j] = w - eps
			down := h.Loss(p)
			m[j] = w
			fd, g := (up-down)/(2*eps), grad.Matrices()[mi][j]
			if math.Abs(fd-g) > 1e-7+1e-5*math.Abs(fd) {
				t.Fatalf("%s[%d]: gradient %.10g, finite difference %.10g", names[mi], j, g, fd)
			}
		}
	}
	h32, err := NewHead[float32](gemm.Go(), d)
	if err != nil {
		t.Fatal(err)
	}
	h32.LossGrad(to32(p))
	for mi, m := range h32.Grad().Matrices() {
		ref := grad.Matrices()[mi]
		big := 0.0
		for _, g := range ref {
			big = math.Max(big, math.Abs(g))
		}
		for j, g := range m {
			if math.Abs(float64(g)-ref[j]) > 2e-4*big {
				t.Fatalf("%s[%d]: float32 gradient %g, float64 %g (largest %g)", names[mi], j, g, ref[j], big)
			}
		}
	}
}

// TestNewHeadRejects: data whose sizes disagree or whose targets are out of range.
func TestNewHeadRejects(t *testing.T) {
	good := smallData(t, 1, 10)
	for name, d := range map[string]Data{
		"short inputs": {X: good.X[:Dim], Y: good.Y, N: good.N},
		"bad target":   {X: good.X, Y: append(append([]int(nil), good.Y[:good.N-1]...), Symbols), N: good.N},
		"empty":        {},
	} {
		if _, err := NewHead[float32](gemm.Go(), d); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// BenchmarkLossGrad times one full-batch forward and backward pass at the authors' size
// (1,999 positions), float32, one goroutine.
func BenchmarkLossGrad(b *testing.B) {
	d, err := Draw(42, Length, Transition(Symbols, SelfProb), Means())
	if err != nil {
		b.Fatal(err)
	}
	h, err := NewHead[float32](gemm.Go(), d)
	if err != nil {
		b.Fatal(err)
	}
	p := InitParams[float32](42)
	for b.Loop() {
		h.LossGrad(p)
	}
}
