package models

import (
	"fmt"
	"math"
	"windtunnel/models/arch"

	G "gorgonia.org/gorgonia"

	"windtunnel/tunnels"
)

// MambaParams is the parameter count of the Mamba baseline for a tunnel without building it.
func MambaParams(c arch.MambaConfig, t tunnels.Tunnel, maxLen int) int {
	c = c.WithDefaults()
	if maxLen <= 0 {
		maxLen = t.SeqLen() + 1
	}
	d, e, s, k, r := c.Width, c.Expand*c.Width, c.State, c.Conv, c.DTRank()
	// Per block: norm d, in-projections 2·d×E, conv K×E + E, x→(Δ low rank, B, C) E×(R+2N),
	// Δ projection R×E + E, Alog E×N, D E, out-projection E×d.
	block := d + 2*d*e + k*e + e + e*(r+2*s) + r*e + e + e*s + e + e*d
	n := t.Vocab()*d + maxLen*d + c.Layers*block + d
	if l := layoutFor(t); !l.tied {
		n += d * l.width
	}
	return n
}

// MatchMamba chooses the Mamba baseline of the given depth (the transformer's: the authors
// build their Mamba with their transformer's depth and width) with state 16, expand 2 and
// conv 4, whose parameter count is closest to target. Depth is the transformer's since
// 2026-11-29; before, every match had 4 blocks, and on recall (a 2-layer transformer) that
// deeper, narrower Mamba (4×55) stayed on the plateau ten times longer than the 2×80 of the
// same parameter count (docs/primitives.md: The slow-binding study).
func MatchMamba(target, layers int, t tunnels.Tunnel, maxLen int) arch.MambaConfig {
	layers = max(layers, 1)
	best, bestErr := arch.MambaConfig{Layers: layers, Width: 1}, math.Inf(1)
	for w := 1; w <= 4096; w++ {
		c := arch.MambaConfig{Layers: layers, Width: w, State: 16, Expand: 2, Conv: 4}
		n := MambaParams(c, t, maxLen)
		if e := math.Abs(float64(n - target)); e < bestErr {
			best, bestErr = c, e
		}
		if n > target {
			break
		}
	}
	return best
}

// NewMamba builds the Mamba baseline for a tunnel: token and learned position embeddings,
// Layers residual blocks x ← x + Block(RMSNorm(x)) of the authors' simplified selective
// SSM (in-projections to x and z, causal depthwise convolution and SiLU on x, input-dependent
// Δ (low rank, softplus), B and C, A = −exp(Alog), D skip, sequential scan, output gated by
// SiLU(z), out-projection), a final RMSNorm at the scored positions and an output head tied
// to the token embedding when the tunnel's classes are tokens. Each block is an ablatable
// unit ("layer").
//
// Initialisation follows Mamba's reference code where it matters for the scan: the
// projections into the block (in, x→Δ/B/C) and the convolution have the variance of
// PyTorch's default init, 1/(3·fan-in); the Δ projection's bias puts softplus(bias) log-
// uniformly in [0.001, 0.1]; Alog = log(1..N), D = 1. The embeddings, the out-projection
// and an untied head are N(0, 0.02) as in the transformer.
func NewMamba(c arch.MambaConfig, t tunnels.Tunnel, o Options) (Model, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	c = c.WithDefaults()
	return construct(t, o, func(o Options) Model { return newMamba[float32](c, t, o) },
		func(o Options) Model { return newMamba[float64](c, t, o) })
}

// mambaBlockParams is the number of parameter tensors of one block.
const mambaBlockParams = 13

func newMamba[T Float](c arch.MambaConfig, t tunnels.Tunnel, o Options) *net[T] {
	m := &net[T]{kind: arch.KindMamba, opt: o, st: newStore(o.Dtype, o.Seed), out: layoutFor(t)}
	const std = 0.02
	d, e, ns, k, r, s := c.Width, c.Expand*c.Width, c.State, c.Conv, c.DTRank(), m.st
	fan := func(in int) float64 { return 1 / math.Sqrt(3*float64(in)) }
	s.add("tok", GroupOther, t.Vocab(), d, std, 0)
	s.add("pos", GroupOther, o.MaxLen, d, std, 0)
	for l := 0; l < c.Layers; l++ {
		p := fmt.Sprintf("layer%d.", l)
		s.add(p+"norm", GroupOther, 1, d, 0, 1)
		s.add(p+"in_x", GroupOther, d, e, fan(d), 0)
		s.add(p+"in_z", GroupOther, d, e, fan(d), 0)
		s.add(p+"conv_w", GroupOther, k, e, fan(k), 0)
		s.add(p+"conv_b", GroupOther, 1, e, 0, 0)
		s.add(p+"x_dt", GroupOther, e, r, fan(e), 0)
		s.add(p+"x_b", GroupOther, e, ns, fan(e), 0)
		s.add(p+"x_c", GroupOther, e, ns, fan(e), 0)
		s.add(p+"dt_w", GroupOther, r, e, fan(r), 0)
		db := s.add(p+"dt_b", GroupOther, 1, e, 0, 0)
		for j := 0; j < e; j++ {
			dt := math.Exp(s.rng.Float64()*(math.Log(0.1)-math.Log(0.001)) + math.Log(0.001))
			dt = math.Max(dt, 1e-4)
			setAt(db, j, dt+math.Log(-math.Expm1(-dt))) // softplus⁻¹(dt)
		}
		al := s.add(p+"a_log", GroupOther, e, ns, 0, 0)
		for j := 0; j < e; j++ {
			for q := 0; q < ns; q++ {
				setAt(al, j*ns+q, math.Log(float64(q+1)))
			}
		}
		s.add(p+"d", GroupOther, 1, e, 0, 1)
		s.add(p+"out", GroupOther, e, d, std, 0)
		m.addUnit("layer", l)
	}
	s.add("norm", GroupOther, 1, d, 0, 1)
	if !m.out.tied {
		s.add("head", GroupOther, d, m.out.width, std, 0)
	}
	m.build = func(cg *compiled[T], t tunnels.Tunnel) (*G.Node, error) { return buildMamba(m, c, cg, t) }
	return m
}

func buildMamba[T Float](m *net[T], c arch.MambaConfig, cg *compiled[T], t tunnels.Tunnel) (*G.Node, error) {
	pn := cg.pnodes
	be, pl := m.opt.Backend, m.pool()
	L := t.SeqLen()
	lin := func(bias bool, in ...*G.Node) (*G.Node, error) {
		return apply(m, &linKernel[T]{be: be, p: pl, bias: bias}, false, in...)
	}
	x, err := apply(m, &embedKernel[T]{t: L, ids: &cg.ids}, false, pn[0], pn[1])
	if err != nil {
		return nil, err
	}
	for l := 0; l < c.Layers; l++ {
		p := pn[2+mambaBlockParams*l : 2+mambaBlockParams*(l+1)]
		a, err := apply(m, &rmsKernel[T]{eps: normEps, p: pl}, false, x, p[0])
		if err != nil {
			return nil, err
		}
		xi, err := lin(false, a, p[1])
		if err != nil {
			return nil, err
		}
		z, err := lin(false, a, p[2])
		if err != nil {
			return nil, err
		}
		u, err := apply(m, &convKernel[T]{p: pl, t: L}, false, xi, p[3], p[4])
		if err != nil {
			return nil, err
		}
		dlow, err := lin(false, u, p[5])
		if err != nil {
			return nil, err
		}
		bm, err := lin(false, u, p[6])
		if err != nil {
			return nil, err
		}
		cm, err := lin(false, u, p[7])
		if err != nil {
			return nil, err
		}
		dr, err := lin(true, dlow, p[8], p[9])
		if err != nil {
			return nil, err
		}
		y, err := apply(m, &scanKernel[T]{p: pl, t: L}, false, u, dr, p[10], bm, cm, p[11], z)
		if err != nil {
			return nil, err
		}
		if x, err = apply(m, &linKernel[T]{be: be, p: pl, res: true, gate: m.unitGate("layer", l)}, false, y, p[12], x); err != nil {
			return nil, err
		}
		cg.addTap(tapResid, l, x)
	}
	return finalHead(m, cg, t, x, 2+mambaBlockParams*c.Layers)
}
