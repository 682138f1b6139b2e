package models

import (
	"math"
	"testing"

	"gorgonia.org/tensor"

	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// TestJLensGrams checks the J-lens pass against the model and against finite differences:
// its forward pass reproduces the model's distribution at every scored position, and each
// Gram equals Σ_{p′>i, c} J[p′,c]·J[p′,c]ᵀ with the Jacobian J of the class logits at every
// later position taken by central differences of a bump of the residual stream at the site
// and position (float64, h = 1e-5; a head switched off and a unit gate halved, as an operator
// might leave them).
func TestJLensGrams(t *testing.T) {
	bij, _ := tunnels.NewBijection(5)
	hmm, _ := tunnels.NewHMM(3, 3, 4)
	rec, _ := tunnels.NewRecall(3, 6, 6, 2, 2)
	for _, c := range []struct {
		name string
		tn   tunnels.Tunnel
		gelu string
	}{{"bijection", bij, ""}, {"bijection/erf", bij, arch.GELUErf}, {"hmm", hmm, ""}, {"recall", rec, ""}} {
		t.Run(c.name, func(t *testing.T) {
			m, err := NewTransformer(arch.TransformerConfig{Layers: 3, Heads: 2, Width: 8, MLP: 12}, c.tn, Options{Dtype: tensor.Float64, Seed: 3, Workers: 2, GELU: c.gelu})
			if err != nil {
				t.Fatal(err)
			}
			scaleParams(m, 0.5, 4)
			_ = m.SetHeadMask(1, 1, false)
			b := tunnels.NewBatch(c.tn, 3)
			b.Fill(c.tn, tunnels.ProbeStream(5), 0)
			const seqs = 3
			sites := []int{SiteEmbed, 0, 1}
			g, err := JLens(m, c.tn, b, seqs, sites)
			if err != nil {
				t.Fatal(err)
			}
			q := make([]float64, b.N*b.P*b.C)
			if err := m.Predict(c.tn, b, q); err != nil {
				t.Fatal(err)
			}
			n := m.(*net[float64])
			sn, err := newSeqNet(n, c.tn)
			if err != nil {
				t.Fatal(err)
			}
			w := sn.newWork(b.T, len(sites)*len(g.Positions))
			C, d := sn.c, sn.d
			want := make([][]float64, len(g.Gram))
			for i := range want {
				want[i] = make([]float64, d*d)
			}
			const h = 1e-5
			for s := 0; s < seqs; s++ {
				toks := b.Tokens[s*b.T : (s+1)*b.T]
				w.bump = nil
				sn.forward(w, toks)
				for pi, pos := range c.tn.Positions() {
					lg := sn.logitsAt(w, pos)
					softmax(lg)
					for k := range lg {
						if diff := math.Abs(lg[k] - q[(s*b.P+pi)*C+k]); diff > 1e-10 {
							t.Fatalf("seq %d position %d class %d: J-lens forward %.12g, model %.12g", s, pos, k, lg[k], q[(s*b.P+pi)*C+k])
						}
					}
				}
				for si, site := range sites {
					for pk, i := range g.Positions {
						jac := make([]float64, (b.T-1-i)*C*d) // [(p′−i−1)·C + c]·d + k
						for k := 0; k < d; k++ {
							var lp, lm [][]float64
							for _, sign := range []float64{1, -1} {
								w.bump = &residualBump{site: site, pos: i, k: k, h: sign * h}
								sn.forward(w, toks)
								var ls [][]float64
								for pp := i + 1; pp < b.T; pp++ {
									ls = append(ls, sn.logitsAt(w, pp))
								}
								if sign > 0 {
									lp = ls
								} else {
									lm = ls
								}
							}
							for r := range lp {
								for cc := 0; cc < C; cc++ {
									jac[(r*C+cc)*d+k] = (lp[r][cc] - lm[r][cc]) / (2 * h)
								}
							}
						}
						gw := want[si*len(g.Positions)+pk]
						for r := 0; r < len(jac)/d; r++ {
							row := jac[r*d : (r+1)*d]
							for a := 0; a < d; a++ {
								for bb := 0; bb < d; bb++ {
									gw[a*d+bb] += row[a] * row[bb]
								}
							}
						}
					}
				}
			}
			worst := 0.0
			for ci := range want {
				var scale float64
				for _, v := range want[ci] {
					scale = max(scale, math.Abs(v))
				}
				for e, v := range want[ci] {
					diff := math.Abs(g.Gram[ci][e]-v) / max(scale, 1e-12)
					worst = max(worst, diff)
					if diff > 1e-6 {
						t.Fatalf("site %d position %d entry %d: Gram %.10g, finite differences %.10g", sites[ci/len(g.Positions)], g.Positions[ci%len(g.Positions)], e, g.Gram[ci][e], v)
					}
				}
			}
			// The last block's output reaches no later position: its Grams are zero.
			last, err := JLens(m, c.tn, b, seqs, []int{2})
			if err != nil {
				t.Fatal(err)
			}
			for _, gr := range last.Gram {
				for _, v := range gr {
					if v != 0 {
						t.Fatalf("site after the last block: Gram entry %g, want 0", v)
					}
				}
			}
			t.Logf("worst relative error %.3g over %d Grams", worst, len(want))
		})
	}
}

// TestJLensWorkersAndPrecision checks that the Grams do not depend on the worker count and
// that a float32 model's agree with the same model in float64.
func TestJLensWorkersAndPrecision(t *testing.T) {
	bij, _ := tunnels.NewBijection(6)
	cfg := arch.TransformerConfig{Layers: 2, Heads: 2, Width: 16}
	b := tunnels.NewBatch(bij, 5)
	b.Fill(bij, tunnels.ProbeStream(2), 0)
	grams := func(dt tensor.Dtype, workers int) *JLensGrams {
		m, err := NewTransformer(cfg, bij, Options{Dtype: dt, Seed: 7, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		g, err := JLens(m, bij, b, 5, []int{SiteEmbed, 0})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	a, c := grams(tensor.Float64, 1), grams(tensor.Float64, 3)
	for i := range a.Gram {
		for e := range a.Gram[i] {
			if a.Gram[i][e] != c.Gram[i][e] {
				t.Fatalf("Gram %d entry %d: %g with 1 worker, %g with 3", i, e, a.Gram[i][e], c.Gram[i][e])
			}
		}
	}
	f := grams(tensor.Float32, 2)
	for i := range a.Gram {
		var scale, worst float64
		for e, v := range a.Gram[i] {
			scale = max(scale, math.Abs(v))
			worst = max(worst, math.Abs(f.Gram[i][e]-v))
		}
		if worst > 1e-4*scale {
			t.Errorf("Gram %d: float32 differs from float64 by %.3g (scale %.3g)", i, worst, scale)
		}
	}
}

func TestJLensRefusesOtherModels(t *testing.T) {
	bij, _ := tunnels.NewBijection(5)
	m, err := New(arch.Spec{Kind: arch.KindLSTM, LSTM: arch.LSTMConfig{Layers: 1, Width: 8}}, bij, Options{Dtype: tensor.Float64, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b := tunnels.NewBatch(bij, 2)
	b.Fill(bij, tunnels.ProbeStream(1), 0)
	if _, err := JLens(m, bij, b, 2, []int{SiteEmbed}); err == nil {
		t.Fatal("an LSTM gave J-lens Grams")
	}
}

// softmax normalises x in place.
func softmax(x []float64) {
	mx := x[0]
	for _, v := range x[1:] {
		mx = max(mx, v)
	}
	var s float64
	for k, v := range x {
		x[k] = math.Exp(v - mx)
		s += x[k]
	}
	for k := range x {
		x[k] /= s
	}
}

// BenchmarkJLens times the J-lens Grams of 8 sequences at the quick, mid and paper bijection
// sizes (both sites), at the model's float32.
func BenchmarkJLens(b *testing.B) {
	bij, _ := tunnels.NewBijection(20)
	for _, c := range []struct {
		name string
		cfg  arch.TransformerConfig
	}{
		{"quick", arch.TransformerConfig{Layers: 4, Heads: 4, Width: 64}},
		{"mid", arch.TransformerConfig{Layers: 4, Heads: 3, Width: 96}},
		{"paper", arch.TransformerConfig{Layers: 6, Heads: 6, Width: 192}},
	} {
		b.Run(c.name, func(b *testing.B) {
			m, err := NewTransformer(c.cfg, bij, Options{Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			const seqs = 8
			bt := tunnels.NewBatch(bij, seqs)
			bt.Fill(bij, tunnels.ProbeStream(1), 0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := JLens(m, bij, bt, seqs, []int{SiteEmbed, 0}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/seqs, "ms/seq")
		})
	}
}
