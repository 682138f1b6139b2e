package models

import (
	"math"
	"math/rand/v2"
	"testing"
	"windtunnel/models/arch"

	"windtunnel/tunnels"
)

// TestRoutingIdentity checks Paper II's routing identity in the transformer's own gradients
// on a real training batch: for a head's scores s_ij, attention α_ij, values v_j and the
// upstream gradient u_i = ∂L/∂o_i that reached the attention output,
//
//	∂L/∂s_ij = α_ij (u_i·v_j − Σ_k α_ik u_i·v_k),
//
// so the gradient the model propagated to its queries is ∂L/∂q_i = Σ_j ∂L/∂s_ij k_j/√hd and
// to its keys ∂L/∂k_j = Σ_i ∂L/∂s_ij q_i/√hd. The identity's right side is evaluated in
// float64 from the step's own α, q, k, v and u, and compared with the float32 gradients the
// training step computed, for every layer, head, sequence and position.
func TestRoutingIdentity(t *testing.T) {
	tn, _ := tunnels.NewBijection(20)
	m, err := NewTransformer(arch.TransformerConfig{Layers: 2, Heads: 4, Width: 64}, tn, Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	scaleParams32(m, 0.3, 6)          // larger than the N(0, 0.02) init, so attention is not uniform
	m.(*net[float32]).ownGrads = true // the step's gradients are read after it (no shared buffers)
	b := tunnels.NewBatch(tn, 8)
	b.Fill(tn, tunnels.TrainStream(11), 0)
	if _, err := m.TrainStep(tn, b, tunnels.Sampled); err != nil {
		t.Fatal(err)
	}
	n := m.(*net[float32])
	c := n.graphs[shapeKey{n: b.N, t: tn.SeqLen(), p: len(tn.Positions()), train: true}]
	var checked int
	worst, scaleRef := 0.0, 0.0
	for _, node := range c.g.AllNodes() {
		bo, ok := node.Op().(*bwdOp)
		if !ok || bo.first != 0 {
			continue
		}
		ak, ok := bo.f.k.(*attnKernel[float32])
		if !ok {
			continue
		}
		e, s := routingError(ak, bo, b.N)
		worst, scaleRef = max(worst, e), max(scaleRef, s)
		checked++
	}
	if checked != 2 {
		t.Fatalf("checked %d attention layers, want 2", checked)
	}
	// Float32 products over ≤ 41 terms against float64: a relative error of a few 1e-6.
	if rel := worst / scaleRef; rel > 1e-4 {
		t.Fatalf("routing identity: max |∂L/∂q,k − identity| = %.3g (%.3g of the largest gradient %.3g)", worst, rel, scaleRef)
	}
	t.Logf("routing identity holds in %d layers: max abs error %.3g, largest gradient %.3g (relative %.2g)", checked, worst, scaleRef, worst/scaleRef)
}

// routingError is the largest difference between the query and key gradients of one
// attention layer's last backward pass and those the routing identity gives, and the
// largest gradient entry.
func routingError(ak *attnKernel[float32], bo *bwdOp, nseq int) (worst, largest float64) {
	qkv, dqkv := bo.ins[0].Data().([]float32), bo.gin[0].Data().([]float32)
	u := bo.gout.Data().([]float32)
	T, H := ak.t, ak.heads
	d := len(u) / (nseq * T)
	q, k, v := qkv, qkv[d:], qkv[2*d:]
	dq, dk := dqkv, dqkv[d:]
	hd := d / H
	sc := 1 / math.Sqrt(float64(hd))
	for s := 0; s < nseq; s++ {
		for h := 0; h < H; h++ {
			alpha := ak.probs[(s*H+h)*T*T:]
			// Row i of head h: of the fused q, k, v and their gradients (rows 3d apart), or of
			// the output's gradient u (rows d apart).
			row := func(x []float32, i int) []float32 {
				if len(x) == len(u) {
					return x[(s*T+i)*d+h*hd:][:hd]
				}
				return x[(s*T+i)*3*d+h*hd:][:hd]
			}
			ds := make([]float64, T*T)
			for i := 0; i < T; i++ {
				var mean float64 // Σ_k α_ik u_i·v_k
				uv := make([]float64, i+1)
				for j := 0; j <= i; j++ {
					uv[j] = dot32(row(u, i), row(v, j))
					mean += float64(alpha[i*T+j]) * uv[j]
				}
				for j := 0; j <= i; j++ {
					ds[i*T+j] = float64(alpha[i*T+j]) * (uv[j] - mean)
				}
			}
			for i := 0; i < T; i++ {
				for x := 0; x < hd; x++ {
					var gq, gk float64
					for j := 0; j <= i; j++ {
						gq += ds[i*T+j] * float64(row(k, j)[x])
					}
					for r := i; r < T; r++ {
						gk += ds[r*T+i] * float64(row(q, r)[x])
					}
					gq, gk = gq*sc, gk*sc
					mq, mk := float64(row(dq, i)[x]), float64(row(dk, i)[x])
					worst = max(worst, math.Abs(gq-mq), math.Abs(gk-mk))
					largest = max(largest, math.Abs(mq), math.Abs(mk))
				}
			}
		}
	}
	return worst, largest
}

func dot32(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// scaleParams32 redraws every parameter of a float32 model uniformly in ±a.
func scaleParams32(m Model, a float64, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 9))
	for _, p := range m.Params() {
		v := p.Value.Data().([]float32)
		for i := range v {
			v[i] = float32((rng.Float64()*2 - 1) * a)
		}
	}
}
