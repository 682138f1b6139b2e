package models

import (
	"fmt"
	"windtunnel/models/arch"

	G "gorgonia.org/gorgonia"

	"windtunnel/tunnels"
)

// TransformerParams is the parameter count of the transformer for a tunnel without building it.
func TransformerParams(c arch.TransformerConfig, t tunnels.Tunnel, maxLen int) int {
	if c.MLP == 0 {
		c.MLP = 4 * c.Width
	}
	if maxLen <= 0 {
		maxLen = t.SeqLen() + 1
	}
	d, f := c.Width, c.MLP
	n := t.Vocab()*d + maxLen*d + c.Layers*(2*d+4*d*d+d*f+f+f*d+d) + d
	if l := layoutFor(t); !l.tied {
		n += d * l.width
	}
	return n
}

// NewTransformer builds the transformer for a tunnel: token and learned position
// embeddings, pre-norm blocks of causal multi-head attention (no bias) and a GELU MLP with
// biases, RMSNorm (eps 1e-5), a final RMSNorm and an output head tied to the token embedding
// when the tunnel's classes are tokens. Weights are drawn from N(0, 0.02²) (arch.InitNormal) or
// as PyTorch initialises its layers (arch.InitTorch, Options.Init).
func NewTransformer(c arch.TransformerConfig, t tunnels.Tunnel, o Options) (Model, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	if c.MLP == 0 {
		c.MLP = 4 * c.Width
	}
	return construct(t, o, func(o Options) Model { return newTransformer[float32](c, t, o) },
		func(o Options) Model { return newTransformer[float64](c, t, o) })
}

func newTransformer[T Float](c arch.TransformerConfig, t tunnels.Tunnel, o Options) *net[T] {
	m := &net[T]{kind: arch.KindTransformer, opt: o, st: newStoreInit(o), out: layoutFor(t), layers: c.Layers, heads: c.Heads}
	d, f, s := c.Width, c.MLP, m.st
	s.embed("tok", GroupOther, t.Vocab(), d)
	s.embed("pos", GroupOther, o.MaxLen, d)
	for l := 0; l < c.Layers; l++ {
		p := fmt.Sprintf("layer%d.", l)
		s.add(p+"norm1", GroupOther, 1, d, 0, 1)
		s.linear(p+"wq", GroupQK, d, d)
		s.linear(p+"wk", GroupQK, d, d)
		s.linear(p+"wv", GroupValue, d, d)
		s.linear(p+"wo", GroupOther, d, d)
		s.add(p+"norm2", GroupOther, 1, d, 0, 1)
		s.linear(p+"w1", GroupOther, d, f)
		s.bias(p+"b1", GroupOther, f, d)
		s.linear(p+"w2", GroupOther, f, d)
		s.bias(p+"b2", GroupOther, d, f)
		row := make([]float64, c.Heads)
		for h := range row {
			row[h] = 1
		}
		m.mask = append(m.mask, row)
		m.addUnit("attn", l)
		m.addUnit("mlp", l)
	}
	s.add("norm", GroupOther, 1, d, 0, 1)
	if !m.out.tied {
		s.linear("head", GroupOther, d, m.out.width)
	}
	m.build = func(cg *compiled[T], t tunnels.Tunnel) (*G.Node, error) { return buildTransformer(m, c, cg, t) }
	return m
}

func buildTransformer[T Float](m *net[T], c arch.TransformerConfig, cg *compiled[T], t tunnels.Tunnel) (*G.Node, error) {
	pn := cg.pnodes
	be, pl := m.opt.Backend, m.pool()
	lin := func(act activation, bias, res bool, gate *float64, in ...*G.Node) (*G.Node, error) {
		return apply(m, &linKernel[T]{be: be, p: pl, bias: bias, res: res, act: act, gate: gate}, false, in...)
	}
	x, err := apply(m, &embedKernel[T]{t: t.SeqLen(), ids: &cg.ids}, false, pn[0], pn[1])
	if err != nil {
		return nil, err
	}
	cg.attn = cg.attn[:0]
	for l := 0; l < c.Layers; l++ {
		p := pn[2+10*l : 12+10*l]
		a, err := apply(m, &rmsKernel[T]{eps: normEps, p: pl}, false, x, p[0])
		if err != nil {
			return nil, err
		}
		qkv, err := apply(m, &qkvKernel[T]{be: be}, false, a, p[1], p[2], p[3])
		if err != nil {
			return nil, err
		}
		for i := range 3 {
			cg.addTapCols(tapQ+tapKind(i), l, qkv, i*c.Width, c.Width)
		}
		ak := &attnKernel[T]{be: be, p: pl, t: t.SeqLen(), heads: c.Heads, mask: m.mask[l]}
		cg.attn = append(cg.attn, ak)
		o, err := apply(m, ak, false, qkv)
		if err != nil {
			return nil, err
		}
		if x, err = lin(actNone, false, true, m.unitGate("attn", l), o, p[4], x); err != nil {
			return nil, err
		}
		h, err := apply(m, &rmsKernel[T]{eps: normEps, p: pl}, false, x, p[5])
		if err != nil {
			return nil, err
		}
		if h, err = lin(m.opt.geluAct(), true, false, nil, h, p[6], p[7]); err != nil {
			return nil, err
		}
		if x, err = lin(actNone, true, true, m.unitGate("mlp", l), h, p[8], p[9], x); err != nil {
			return nil, err
		}
		cg.addTap(tapResid, l, x)
	}
	return finalHead(m, cg, t, x, 2+10*c.Layers)
}
