package models

import (
	"fmt"
	"math"
	"windtunnel/models/arch"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"windtunnel/tunnels"
)

// LSTMParams is the parameter count of the LSTM baseline for a tunnel without building it.
func LSTMParams(c arch.LSTMConfig, t tunnels.Tunnel, maxLen int) int {
	if maxLen <= 0 {
		maxLen = t.SeqLen() + 1
	}
	d := c.Width
	// Per layer: norm d, Wx d×4d, Wh d×4d, b 4d, Wout d×d, bout d.
	n := t.Vocab()*d + maxLen*d + c.Layers*(9*d*d+6*d) + d
	if l := layoutFor(t); !l.tied {
		n += d * l.width
	}
	return n
}

// lstmMatchLayers is the depth MatchLSTM prefers.
const lstmMatchLayers = 2

// MatchLSTM chooses the LSTM baseline whose parameter count is closest to target: 2 layers
// when a width comes within 1% of it, else whichever depth of 1 to 4 comes closest (a small
// model's width steps are coarser than 1%).
func MatchLSTM(target int, t tunnels.Tunnel, maxLen int) arch.LSTMConfig {
	closest := func(layers int) (arch.LSTMConfig, float64) {
		best, bestErr := arch.LSTMConfig{Layers: layers, Width: 1}, math.Inf(1)
		for w := 1; w <= 4096; w++ {
			c := arch.LSTMConfig{Layers: layers, Width: w}
			n := LSTMParams(c, t, maxLen)
			if e := math.Abs(float64(n - target)); e < bestErr {
				best, bestErr = c, e
			}
			if n > target {
				break
			}
		}
		return best, bestErr
	}
	best, bestErr := closest(lstmMatchLayers)
	if bestErr <= 0.01*float64(target) {
		return best
	}
	for _, layers := range []int{1, 3, 4} {
		if c, e := closest(layers); e < bestErr {
			best, bestErr = c, e
		}
	}
	return best
}

// NewLSTM builds the LSTM baseline for a tunnel: token and learned position embeddings,
// Layers pre-norm residual layers x ← x + LSTM(RMSNorm(x))·Wout + bout (hidden size Width,
// forget-gate bias 1), a final RMSNorm at the scored positions and an output head tied to
// the token embedding when the tunnel's classes are tokens. Weights are drawn from
// N(0, 0.02). Each layer is an ablatable unit ("layer").
func NewLSTM(c arch.LSTMConfig, t tunnels.Tunnel, o Options) (Model, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	return construct(t, o, func(o Options) Model { return newLSTM[float32](c, t, o) },
		func(o Options) Model { return newLSTM[float64](c, t, o) })
}

func newLSTM[T Float](c arch.LSTMConfig, t tunnels.Tunnel, o Options) *net[T] {
	m := &net[T]{kind: arch.KindLSTM, opt: o, st: newStore(o.Dtype, o.Seed), out: layoutFor(t)}
	const std = 0.02
	d, s := c.Width, m.st
	s.add("tok", GroupOther, t.Vocab(), d, std, 0)
	s.add("pos", GroupOther, o.MaxLen, d, std, 0)
	for l := 0; l < c.Layers; l++ {
		p := fmt.Sprintf("layer%d.", l)
		s.add(p+"norm", GroupOther, 1, d, 0, 1)
		s.add(p+"wx", GroupOther, d, 4*d, std, 0)
		s.add(p+"wh", GroupOther, d, 4*d, std, 0)
		b := s.add(p+"b", GroupOther, 1, 4*d, 0, 0)
		for j := d; j < 2*d; j++ { // forget gate
			setAt(b, j, 1)
		}
		s.add(p+"wo", GroupOther, d, d, std, 0)
		s.add(p+"bo", GroupOther, 1, d, 0, 0)
		m.addUnit("layer", l)
	}
	s.add("norm", GroupOther, 1, d, 0, 1)
	if !m.out.tied {
		s.add("head", GroupOther, d, m.out.width, std, 0)
	}
	m.build = func(cg *compiled[T], t tunnels.Tunnel) (*G.Node, error) { return buildLSTM(m, c, cg, t) }
	return m
}

// setAt sets element i of a float32 or float64 tensor.
func setAt(v *tensor.Dense, i int, x float64) {
	switch d := v.Data().(type) {
	case []float32:
		d[i] = float32(x)
	case []float64:
		d[i] = x
	}
}

func buildLSTM[T Float](m *net[T], c arch.LSTMConfig, cg *compiled[T], t tunnels.Tunnel) (*G.Node, error) {
	pn := cg.pnodes
	be, pl := m.opt.Backend, m.pool()
	x, err := apply(m, &embedKernel[T]{t: t.SeqLen(), ids: &cg.ids}, false, pn[0], pn[1])
	if err != nil {
		return nil, err
	}
	for l := 0; l < c.Layers; l++ {
		p := pn[2+6*l : 8+6*l]
		a, err := apply(m, &rmsKernel[T]{eps: normEps, p: pl}, false, x, p[0])
		if err != nil {
			return nil, err
		}
		h, err := apply(m, &lstmKernel[T]{be: be, p: pl, t: t.SeqLen()}, false, a, p[1], p[2], p[3])
		if err != nil {
			return nil, err
		}
		if x, err = apply(m, &linKernel[T]{be: be, p: pl, bias: true, res: true, gate: m.unitGate("layer", l)}, false, h, p[4], p[5], x); err != nil {
			return nil, err
		}
		cg.addTap(tapResid, l, x)
	}
	base := 2 + 6*c.Layers
	return finalHead(m, cg, t, x, base)
}

// finalHead is the shared ending of the sequence models: RMSNorm of the residual stream at
// the scored positions (parameter pn[base], tapped as the probe's Final), then the output
// head, tied to the token embedding pn[0] or the untied pn[base+1].
func finalHead[T Float](m *net[T], cg *compiled[T], t tunnels.Tunnel, x *G.Node, base int) (*G.Node, error) {
	return headOn(m, cg, x, base, &gatherSpec{t: t.SeqLen(), pos: t.Positions()})
}

// headOn is finalHead with the RMSNorm gathering the scored rows of x by gs (nil: x holds
// the scored rows alone).
func headOn[T Float](m *net[T], cg *compiled[T], x *G.Node, base int, gs *gatherSpec) (*G.Node, error) {
	pn := cg.pnodes
	be, pl := m.opt.Backend, m.pool()
	h, err := apply(m, &rmsKernel[T]{eps: normEps, p: pl, gather: gs}, false, x, pn[base])
	if err != nil {
		return nil, err
	}
	cg.addTap(tapFinal, 0, h)
	if m.out.tied {
		return apply(m, &linKernel[T]{be: be, p: pl, transW: true}, false, h, pn[0])
	}
	return apply(m, &linKernel[T]{be: be, p: pl}, false, h, pn[base+1])
}
