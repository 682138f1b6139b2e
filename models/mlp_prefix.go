package models

import (
	"fmt"
	"math"
	"windtunnel/models/arch"

	G "gorgonia.org/gorgonia"

	"windtunnel/tunnels"
)

// PrefixMLPParams is the parameter count of the prefix MLP for a tunnel.
func PrefixMLPParams(c arch.PrefixMLPConfig, t tunnels.Tunnel, maxLen int) int {
	if c.Hidden == 0 {
		c.Hidden = 2 * c.Width
	}
	if maxLen <= 0 {
		maxLen = t.SeqLen() + 1
	}
	w, f, o := c.Width, c.Hidden, layoutFor(t).width
	return maxLen*t.Vocab()*w + w + c.Blocks*(2*w+w*f+f+f*w+w) + 2*w + w*o + o
}

// MatchPrefixMLP chooses the prefix MLP whose parameter count is closest to target: among
// the configurations within 1% (blocks 1..4, any width, hidden solved for the remainder) it
// prefers a hidden width near 2·width, then more blocks; if none is within 1%, the closest.
func MatchPrefixMLP(target int, t tunnels.Tunnel, maxLen int) arch.PrefixMLPConfig {
	type cand struct {
		c        arch.PrefixMLPConfig
		err, sha float64
	}
	var best *cand
	better := func(a, b *cand) bool {
		if b == nil {
			return true
		}
		ain, bin := a.err <= 0.01, b.err <= 0.01
		switch {
		case ain != bin:
			return ain
		case !ain:
			return a.err < b.err
		case math.Abs(a.sha-b.sha) > 1e-9:
			return a.sha < b.sha
		}
		return a.c.Blocks > b.c.Blocks
	}
	for blocks := 1; blocks <= 4; blocks++ {
		for w := 1; w <= 65536; w++ {
			base := PrefixMLPParams(arch.PrefixMLPConfig{Blocks: blocks, Width: w, Hidden: 1}, t, maxLen) - blocks*(2*w+1)
			if base >= target && w > 1 {
				break
			}
			f := int(math.Round(float64(target-base) / float64(blocks*(2*w+1))))
			f = max(f, 1)
			c := arch.PrefixMLPConfig{Blocks: blocks, Width: w, Hidden: f}
			e := math.Abs(float64(PrefixMLPParams(c, t, maxLen)-target)) / float64(target)
			cd := &cand{c: c, err: e, sha: math.Abs(math.Log(float64(f) / float64(2*w)))}
			if better(cd, best) {
				best = cd
			}
		}
	}
	return best.c
}

// NewPrefixMLP builds the prefix MLP, the named ablation of docs/paper1.md: The MLP baseline: each scored
// position sees the one-hot encoding of its prefix, zero-padded to the model's maximum
// length (with Input "token", only the scored token at its position). It sees the whole
// context, so unlike Paper I's per-position MLP (NewMLP) it can solve bijection: a finding
// to report, not the paper's baseline. Each block is an ablatable unit ("layer"); the
// residual stream is probed at the scored positions only (Probe.ResidRows = N·P).
func NewPrefixMLP(c arch.PrefixMLPConfig, t tunnels.Tunnel, o Options) (Model, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	if c.Hidden == 0 {
		c.Hidden = 2 * c.Width
	}
	return construct(t, o, func(o Options) Model { return newPrefixMLP[float32](c, t, o) },
		func(o Options) Model { return newPrefixMLP[float64](c, t, o) })
}

func newPrefixMLP[T Float](c arch.PrefixMLPConfig, t tunnels.Tunnel, o Options) *net[T] {
	m := &net[T]{kind: arch.KindPrefixMLP, opt: o, st: newStore(o.Dtype, o.Seed), out: layoutFor(t)}
	const std = 0.02
	w, f, s := c.Width, c.Hidden, m.st
	s.add("in", GroupOther, o.MaxLen*t.Vocab(), w, std, 0)
	s.add("in.b", GroupOther, 1, w, 0, 0)
	for l := 0; l < c.Blocks; l++ {
		p := fmt.Sprintf("block%d.", l)
		s.add(p+"ln.g", GroupOther, 1, w, 0, 1)
		s.add(p+"ln.b", GroupOther, 1, w, 0, 0)
		s.add(p+"w1", GroupOther, w, f, std, 0)
		s.add(p+"b1", GroupOther, 1, f, 0, 0)
		s.add(p+"w2", GroupOther, f, w, std, 0)
		s.add(p+"b2", GroupOther, 1, w, 0, 0)
		m.addUnit("layer", l)
	}
	s.add("ln.g", GroupOther, 1, w, 0, 1)
	s.add("ln.b", GroupOther, 1, w, 0, 0)
	s.add("head", GroupOther, w, m.out.width, std, 0)
	s.add("head.b", GroupOther, 1, m.out.width, 0, 0)
	m.build = func(cg *compiled[T], t tunnels.Tunnel) (*G.Node, error) { return buildPrefixMLP(m, c, cg, t) }
	return m
}

func buildPrefixMLP[T Float](m *net[T], c arch.PrefixMLPConfig, cg *compiled[T], t tunnels.Tunnel) (*G.Node, error) {
	pn := cg.pnodes
	be, pl := m.opt.Backend, m.pool()
	h, err := apply(m, &prefixKernel[T]{t: t.SeqLen(), vocab: t.Vocab(), pos: t.Positions(), ids: &cg.ids, tokenOnly: c.Input == "token"}, false, pn[0], pn[1])
	if err != nil {
		return nil, err
	}
	for l := 0; l < c.Blocks; l++ {
		p := pn[2+6*l : 8+6*l]
		u, err := apply(m, &layerNormKernel[T]{eps: normEps, p: pl}, false, h, p[0], p[1])
		if err != nil {
			return nil, err
		}
		if u, err = apply(m, &linKernel[T]{be: be, p: pl, bias: true, act: m.opt.geluAct()}, false, u, p[2], p[3]); err != nil {
			return nil, err
		}
		if h, err = apply(m, &linKernel[T]{be: be, p: pl, bias: true, res: true, gate: m.unitGate("layer", l)}, false, u, p[4], p[5], h); err != nil {
			return nil, err
		}
		cg.addTap(tapResid, l, h)
	}
	base := 2 + 6*c.Blocks
	u, err := apply(m, &layerNormKernel[T]{eps: normEps, p: pl}, false, h, pn[base], pn[base+1])
	if err != nil {
		return nil, err
	}
	cg.addTap(tapFinal, 0, u)
	return apply(m, &linKernel[T]{be: be, p: pl, bias: true}, false, u, pn[base+2], pn[base+3])
}
