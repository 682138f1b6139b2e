package models

import (
	"math"
	"testing"
	"windtunnel/models/arch"

	"gorgonia.org/tensor"

	"windtunnel/tunnels"
)

// TestClassJacobians checks the one-row pass against the model and its Jacobian against
// finite differences of the real model: at the embedding output, a change of the position
// embedding row i moves exactly the residual stream at position i, so the central difference
// of log q at position i along pos[i][k] must equal (I − 1qᵀ)·J[:, k] (log-probabilities are
// the logits less their log-sum-exp). Blocks after 0 are checked the same way through the
// one-row function itself (site 0). Tolerances are for float64 with h = 1e-5.
func TestClassJacobians(t *testing.T) {
	bij, _ := tunnels.NewBijection(5)
	hmm, _ := tunnels.NewHMM(3, 3, 4)
	rec, _ := tunnels.NewRecall(3, 6, 6, 2, 2)
	for _, c := range []struct {
		name string
		tn   tunnels.Tunnel
	}{{"bijection", bij}, {"hmm", hmm}, {"recall", rec}} {
		t.Run(c.name, func(t *testing.T) {
			m, err := NewTransformer(arch.TransformerConfig{Layers: 3, Heads: 2, Width: 8, MLP: 12}, c.tn, Options{Dtype: tensor.Float64, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			scaleParams(m, 0.5, 4)
			_ = m.SetHeadMask(1, 1, false)
			b := tunnels.NewBatch(c.tn, 3)
			b.Fill(c.tn, tunnels.ProbeStream(5), 0)
			const seqs = 2
			j, err := ClassJacobians(m, c.tn, b, seqs, []int{SiteEmbed, 0, 2})
			if err != nil {
				t.Fatal(err)
			}
			q := make([]float64, b.N*b.P*b.C)
			if err := m.Predict(c.tn, b, q); err != nil {
				t.Fatal(err)
			}
			C, d := j.C, j.Width
			// The row pass reproduces the model's distribution.
			for item := 0; item < seqs*b.P; item++ {
				lg := append([]float64(nil), j.ClassLogits[item*C:(item+1)*C]...)
				softmax64(lg)
				for k := range lg {
					if diff := math.Abs(lg[k] - q[item*C+k]); diff > 1e-10 {
						t.Fatalf("row %d class %d: row pass %.12g, model %.12g", item, k, lg[k], q[item*C+k])
					}
				}
			}
			pos := posParam(t, m)
			worst := 0.0
			const h = 1e-5
			qp, qm := make([]float64, len(q)), make([]float64, len(q))
			for pi, i := range c.tn.Positions() {
				for k := 0; k < d; k++ {
					old := pos[i*d+k]
					pos[i*d+k] = old + h
					_ = m.Predict(c.tn, b, qp)
					pos[i*d+k] = old - h
					_ = m.Predict(c.tn, b, qm)
					pos[i*d+k] = old
					for s := 0; s < seqs; s++ {
						item := s*b.P + pi
						jr := j.Rows[0][item*C*d:]
						var mean float64 // qᵀ J[:, k]
						for cc := 0; cc < C; cc++ {
							mean += q[item*C+cc] * jr[cc*d+k]
						}
						for cc := 0; cc < C; cc++ {
							num := (math.Log(qp[item*C+cc]) - math.Log(qm[item*C+cc])) / (2 * h)
							an := jr[cc*d+k] - mean
							e := math.Abs(num-an) / math.Max(1e-3, math.Abs(num)+math.Abs(an))
							worst = max(worst, e)
							if e > 1e-6 {
								t.Fatalf("pos %d dim %d seq %d class %d: analytic %.10g, numeric %.10g", i, k, s, cc, an, num)
							}
						}
					}
				}
			}
			t.Logf("embedding site: worst relative error %.3g", worst)
			checkRowJacobian(t, m, c.tn, b, j)
		})
	}
}

// checkRowJacobian compares the Jacobians at sites after the embedding with central
// differences of the one-row function.
func checkRowJacobian(t *testing.T, m Model, tn tunnels.Tunnel, b *tunnels.Batch, j *Jacobians) {
	t.Helper()
	n := m.(*net[float64])
	rn, err := newRowNet(n, tn)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := n.Probe(tn, b)
	if err != nil {
		t.Fatal(err)
	}
	C, d := j.C, j.Width
	const h = 1e-5
	worst := 0.0
	for si, site := range j.Sites {
		if site == SiteEmbed {
			continue
		}
		for s := 0; s < j.Seqs; s++ {
			for pi, i := range pr.Positions {
				x := append([]float64(nil), pr.Resid[site][(s*pr.T+i)*d:][:d]...)
				jr := j.Rows[si][(s*j.P+pi)*C*d:]
				for k := 0; k < d; k++ {
					old := x[k]
					x[k] = old + h
					lp, _ := rn.jacobian(pr, s, i, site+1, x)
					x[k] = old - h
					lm, _ := rn.jacobian(pr, s, i, site+1, x)
					x[k] = old
					for cc := 0; cc < C; cc++ {
						num := (lp[cc] - lm[cc]) / (2 * h)
						an := jr[cc*d+k]
						e := math.Abs(num-an) / math.Max(1e-3, math.Abs(num)+math.Abs(an))
						worst = max(worst, e)
						if e > 1e-6 {
							t.Fatalf("site %d pos %d dim %d class %d: analytic %.10g, numeric %.10g", site, i, k, cc, an, num)
						}
					}
				}
			}
		}
	}
	t.Logf("block sites: worst relative error %.3g", worst)
}

func posParam(t *testing.T, m Model) []float64 {
	t.Helper()
	for _, p := range m.Params() {
		if p.Name == "pos" {
			return p.Value.Data().([]float64)
		}
	}
	t.Fatal("no pos parameter")
	return nil
}

func TestClassJacobiansRefusesOtherModels(t *testing.T) {
	bij, _ := tunnels.NewBijection(5)
	m, err := New(arch.Spec{Kind: arch.KindLSTM, LSTM: arch.LSTMConfig{Layers: 1, Width: 8}}, bij, Options{Dtype: tensor.Float64, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b := tunnels.NewBatch(bij, 2)
	b.Fill(bij, tunnels.ProbeStream(1), 0)
	if _, err := ClassJacobians(m, bij, b, 2, []int{SiteEmbed}); err == nil {
		t.Fatal("an LSTM gave class Jacobians")
	}
}
