package models

import (
	"fmt"
	"math"
	"testing"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// TestMLPScoredStep: the per-position MLP's training step on its scored rows alone has the
// loss and every gradient of the step that runs every row, on the same parameters and batch
// — within 1e-12 (relative to the largest gradient) in float64 and 2e-5 in float32 — on the
// three tasks, with sampled and posterior targets; so do its predictions after the step,
// and a probe's graph runs every row (the residual stream at every position) with the same
// predictions.
func TestMLPScoredStep(t *testing.T) {
	bij, _ := tunnels.NewBijection(6)
	hmm, _ := tunnels.NewHMM(3, 3, 5)
	rec, _ := tunnels.NewRecall(3, 6, 6, 2, 2)
	for _, c := range []struct {
		dt  tensor.Dtype
		tol float64
	}{{tensor.Float64, 1e-12}, {tensor.Float32, 2e-5}} {
		for _, tn := range []tunnels.Tunnel{bij, hmm, rec} {
			for _, mode := range []tunnels.TargetMode{tunnels.Sampled, tunnels.Posterior} {
				t.Run(fmt.Sprintf("%v/%s/%v", c.dt, tn.Name(), mode), func(t *testing.T) {
					b := tunnels.NewBatch(tn, 7)
					b.Fill(tn, 11, 0)
					var loss [2]float64
					var grads [2][][]float64
					var dist [2][]float64
					for i, rows := range []bool{true, false} {
						m, err := NewMLP(arch.MLPConfig{Blocks: 2, Width: 8, Hidden: 16}, tn, Options{Dtype: c.dt, Seed: 3, Workers: 2})
						if err != nil {
							t.Fatal(err)
						}
						switch nm := m.(type) {
						case *net[float64]:
							nm.rowsOnly = rows
						case *net[float32]:
							nm.rowsOnly = rows
						}
						if loss[i], err = m.TrainStep(tn, b, mode); err != nil {
							t.Fatal(err)
						}
						if got := scoredRowsOnly(m); got == rows {
							t.Fatalf("rowsOnly %v: the training graph runs the scored rows alone: %v", rows, got)
						}
						for _, p := range m.Params() {
							grads[i] = append(grads[i], float64s(t, p.Grad))
						}
						pr, err := m.Probe(tn, b)
						if err != nil || pr.ResidRows != b.N*b.T || len(pr.Resid) != 2 || len(pr.Resid[1]) != b.N*b.T*pr.Width || len(pr.Final) != b.N*b.P*pr.Width {
							t.Fatalf("probe (%v): want the residual stream at every row", err)
						}
						dist[i] = make([]float64, b.N*b.P*b.C)
						if err := m.Predict(tn, b, dist[i]); err != nil {
							t.Fatal(err)
						}
						for j, v := range pr.Dist {
							if math.Abs(v-dist[i][j]) > c.tol {
								t.Fatalf("the probe's prediction %d: %v, Predict's %v", j, v, dist[i][j])
							}
						}
					}
					for j, v := range dist[0] {
						if math.Abs(v-dist[1][j]) > c.tol {
							t.Fatalf("prediction %d after the step: %v on the scored rows, %v on every row", j, dist[1][j], v)
						}
					}
					if math.Abs(loss[0]-loss[1]) > c.tol*math.Abs(loss[0]) {
						t.Errorf("loss %v on the scored rows, %v on every row", loss[1], loss[0])
					}
					var top, worst float64
					for j := range grads[0] {
						for k, v := range grads[0][j] {
							top = max(top, math.Abs(v))
							worst = max(worst, math.Abs(v-grads[1][j][k]))
						}
					}
					if top == 0 || worst > c.tol*top {
						t.Errorf("gradients differ by %g (largest %g)", worst, top)
					}
				})
			}
		}
	}
}

// scoredRowsOnly reports whether any compiled graph of m embeds the scored rows alone.
func scoredRowsOnly(m Model) bool {
	switch nm := m.(type) {
	case *net[float64]:
		return graphsScored(nm)
	case *net[float32]:
		return graphsScored(nm)
	}
	return false
}

func graphsScored[T Float](m *net[T]) bool {
	for _, c := range m.graphs {
		for _, n := range c.g.AllNodes() {
			if op, ok := n.Op().(*fwdOp); ok {
				if _, ok := op.k.(*scoredEmbedKernel[T]); ok {
					return true
				}
			}
		}
	}
	return false
}

// BenchmarkMLPScored times a float32 training step (forward and backward, no optimiser) of
// the per-position MLP matched to the quick transformer (L=4, H=4, d=64) on the quick
// preset's bijection (V=20), hmm (5 states, 5 symbols, K=20) and recall (4 pairs of 32),
// batch 64, one worker: on every row and on the scored rows alone, side by side.
func BenchmarkMLPScored(b *testing.B) {
	bij, _ := tunnels.NewBijection(20)
	hmm, _ := tunnels.NewHMM(5, 5, 20)
	rec, _ := tunnels.NewRecall(4, 32, 32, 8, 3)
	tc := arch.TransformerConfig{Layers: 4, Heads: 4, Width: 64}
	for _, tn := range []tunnels.Tunnel{bij, hmm, rec} {
		for _, rows := range []bool{true, false} {
			name := tn.Name() + "/scored"
			if rows {
				name = tn.Name() + "/rows"
			}
			b.Run(name, func(b *testing.B) {
				be, err := gemm.Open("go")
				if err != nil {
					b.Fatal(err)
				}
				mc := MatchMLP(TransformerParams(tc, tn, 0), tc.Width, tn, 0)
				m, err := NewMLP(mc, tn, Options{Backend: be, Workers: 1, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				m.(*net[float32]).rowsOnly = rows
				benchTrainSteps(b, m, tn)
			})
		}
	}
}
