package models

import (
	"fmt"
	"math"
	"windtunnel/models/arch"

	G "gorgonia.org/gorgonia"

	"windtunnel/tunnels"
)

// MLPParams is the parameter count of the per-position MLP for a tunnel without building it:
// token and position embeddings, per block LayerNorm gain and bias (2d), W1 and b1
// (d·Hh + Hh), W2 and b2 (Hh·d + d), the final RMSNorm scale (d) and, when the tunnel's
// classes are not tokens, an untied head.
func MLPParams(c arch.MLPConfig, t tunnels.Tunnel, maxLen int) int {
	if c.Hidden == 0 {
		c.Hidden = 4 * c.Width
	}
	if maxLen <= 0 {
		maxLen = t.SeqLen() + 1
	}
	d, f := c.Width, c.Hidden
	n := t.Vocab()*d + maxLen*d + c.Blocks*(3*d+f*(2*d+1)) + d
	if l := layoutFor(t); !l.tied {
		n += d * l.width
	}
	return n
}

// mlpMaxBlocks is the deepest per-position MLP MatchMLP considers.
const mlpMaxBlocks = 64

// MatchMLP chooses the per-position MLP whose parameter count is closest to target, as the
// authors matched theirs: the width is the transformer's (width) and the hidden width
// 4·width; the block count (1..64) that brings the count closest to target is chosen, and
// only if that is not within 1% the hidden width is solved for the remainder at that depth.
// At the paper's bijection size (V=20, d=192, target 2,677,440) it is 9 blocks of hidden
// 768: 2,681,472 parameters.
func MatchMLP(target, width int, t tunnels.Tunnel, maxLen int) arch.MLPConfig {
	width = min(max(width, 1), 4096)
	best, bestErr := arch.MLPConfig{Blocks: 1, Width: width, Hidden: 4 * width}, math.Inf(1)
	for b := 1; b <= mlpMaxBlocks; b++ {
		c := arch.MLPConfig{Blocks: b, Width: width, Hidden: 4 * width}
		n := MLPParams(c, t, maxLen)
		if e := math.Abs(float64(n - target)); e < bestErr {
			best, bestErr = c, e
		}
		if n >= target {
			break
		}
	}
	if bestErr <= 0.01*float64(target) {
		return best
	}
	// Hidden width for the chosen depth: n(f) = n0 + B·(3d + f·(2d+1)).
	b, d := best.Blocks, width
	n0 := MLPParams(arch.MLPConfig{Width: d}, t, maxLen)
	f := int(math.Round(float64(target-n0-b*3*d) / float64(b*(2*d+1))))
	c := arch.MLPConfig{Blocks: b, Width: d, Hidden: min(max(f, 1), 65536)}
	if math.Abs(float64(MLPParams(c, t, maxLen)-target)) < bestErr {
		return c
	}
	return best
}

// NewMLP builds the per-position MLP of docs/paper1.md: The MLP baseline, Paper I's MLP baseline: token and
// learned position embeddings of width d, Blocks residual blocks
// x ← x + W2·GELU(W1·LayerNorm(x) + b1) + b2 (LayerNorm with gain and bias, eps 1e-5,
// hidden width Hidden), a final RMSNorm at the scored positions and an output head tied to
// the token embedding when the tunnel's classes are tokens. Nothing mixes positions: the
// prediction at a position reads only its own token and position. On bijection that
// leaves the uniform guess over all V values, whose entropy is log2 V where the posterior's
// is log2(V−i+1): 1.107 bits of bit error (b) and of KL at V=20, Paper I's MLP row. Weights
// are drawn from N(0, 0.02). Each block is an ablatable unit ("layer"); the residual stream
// is probed after each block at every position (Probe.ResidRows = N·T).
func NewMLP(c arch.MLPConfig, t tunnels.Tunnel, o Options) (Model, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	if c.Hidden == 0 {
		c.Hidden = 4 * c.Width
	}
	return construct(t, o, func(o Options) Model { return newMLP[float32](c, t, o) },
		func(o Options) Model { return newMLP[float64](c, t, o) })
}

func newMLP[T Float](c arch.MLPConfig, t tunnels.Tunnel, o Options) *net[T] {
	m := &net[T]{kind: arch.KindMLP, opt: o, st: newStoreInit(o), out: layoutFor(t), scoredRows: true}
	d, f, s := c.Width, c.Hidden, m.st
	s.embed("tok", GroupOther, t.Vocab(), d)
	s.embed("pos", GroupOther, o.MaxLen, d)
	for l := 0; l < c.Blocks; l++ {
		p := fmt.Sprintf("block%d.", l)
		s.add(p+"ln.g", GroupOther, 1, d, 0, 1)
		s.add(p+"ln.b", GroupOther, 1, d, 0, 0)
		s.linear(p+"w1", GroupOther, d, f)
		s.bias(p+"b1", GroupOther, f, d)
		s.linear(p+"w2", GroupOther, f, d)
		s.bias(p+"b2", GroupOther, d, f)
		m.addUnit("layer", l)
	}
	s.add("norm", GroupOther, 1, d, 0, 1)
	if !m.out.tied {
		s.linear("head", GroupOther, d, m.out.width)
	}
	m.build = func(cg *compiled[T], t tunnels.Tunnel) (*G.Node, error) { return buildMLP(m, c, cg, t) }
	return m
}

func buildMLP[T Float](m *net[T], c arch.MLPConfig, cg *compiled[T], t tunnels.Tunnel) (*G.Node, error) {
	pn := cg.pnodes
	be, pl := m.opt.Backend, m.pool()
	// Training and prediction graphs run the scored rows alone (mlp_scored.go); a probe's
	// graph every row.
	var emb kernel = &embedKernel[T]{t: t.SeqLen(), ids: &cg.ids}
	scored := !cg.key.every && !m.rowsOnly
	gs := &gatherSpec{t: t.SeqLen(), pos: t.Positions()}
	if scored {
		emb = &scoredEmbedKernel[T]{gather: gs, ids: &cg.ids}
	}
	x, err := apply(m, emb, false, pn[0], pn[1])
	if err != nil {
		return nil, err
	}
	for l := 0; l < c.Blocks; l++ {
		p := pn[2+6*l : 8+6*l]
		u, err := apply(m, &layerNormKernel[T]{eps: normEps, p: pl}, false, x, p[0], p[1])
		if err != nil {
			return nil, err
		}
		if u, err = apply(m, &linKernel[T]{be: be, p: pl, bias: true, act: m.opt.geluAct()}, false, u, p[2], p[3]); err != nil {
			return nil, err
		}
		if x, err = apply(m, &linKernel[T]{be: be, p: pl, bias: true, res: true, gate: m.unitGate("layer", l)}, false, u, p[4], p[5], x); err != nil {
			return nil, err
		}
		if !scored { // probes read every row
			cg.addTap(tapResid, l, x)
		}
	}
	if scored {
		gs = nil // x holds the scored rows already
	}
	return headOn(m, cg, x, 2+6*c.Blocks, gs)
}
