package models

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"windtunnel/backends/par"
	"windtunnel/tunnels"
)

type shapeKey struct {
	n, t, p int
	train   bool
	// every marks a probe's graph, which runs every row, for a model whose other graphs
	// run the scored rows alone (net.scoredRows); false for every other model's.
	every bool
}

// compiled is one expression graph for one batch shape, with its tape machine and the
// host-side inputs its ops read.
type compiled[T Float] struct {
	key    shapeKey
	g      *G.ExprGraph
	vm     G.VM
	pnodes []*G.Node
	ids    []int
	tgt    []int
	soft   []float64
	logits *G.Node
	loss   *G.Node
	grads  G.Nodes // the parameters' gradient nodes, in pnodes order (training graphs)
	attn   []*attnKernel[T]
	taps   []tap
	// shared is set once a training graph's gradients have been placed, checked once its
	// first step has run in the planned order of backward ops (gradmem.go).
	shared, checked bool
	order           []*bwdOp
}

// tapKind names what a probe tap reads.
type tapKind int

const (
	tapQ     tapKind = iota // a layer's queries, (N·T)×d
	tapK                    // a layer's keys, (N·T)×d
	tapV                    // a layer's values, (N·T)×d
	tapResid                // the residual stream after a layer, (N·T)×d
	tapFinal                // the input of the output head at the scored positions, (N·P)×d
)

// tap marks a kernel node whose output (or width of its columns from col on) a probe copies
// out after a forward pass; each kernel owns its output buffer, so it stays valid until the
// next pass.
type tap struct {
	kind       tapKind
	layer      int
	op         *fwdOp
	col, width int // width 0: every column
}

// addTap records node n (the output of a kernel added with apply) under kind and layer.
func (c *compiled[T]) addTap(kind tapKind, layer int, n *G.Node) {
	c.addTapCols(kind, layer, n, 0, 0)
}

// addTapCols records columns col..col+width of node n (a kernel's output) under kind and
// layer; width 0 is every column.
func (c *compiled[T]) addTapCols(kind tapKind, layer int, n *G.Node, col, width int) {
	op, ok := n.Op().(*fwdOp)
	if !ok {
		panic(fmt.Sprintf("models: tap on %v, which is not a kernel node", n.Op()))
	}
	c.taps = append(c.taps, tap{kind: kind, layer: layer, op: op, col: col, width: width})
}

// buildFunc adds a network's forward pass to c.g (parameters in c.pnodes, tokens in c.ids)
// and returns the logits node, (N·P)×width.
type buildFunc[T Float] func(c *compiled[T], t tunnels.Tunnel) (*G.Node, error)

// net is the machinery every model shares: parameters, compiled graphs per shape, the
// training and prediction passes.
type net[T Float] struct {
	kind   string
	opt    Options
	st     *store
	out    outputLayout
	ids    opIDs
	graphs map[shapeKey]*compiled[T]
	build  buildFunc[T]
	layers int
	heads  int
	mask   [][]float64
	units  []Unit
	gates  []*float64
	// ownGrads keeps every gradient in its own buffer (tests compare against it).
	ownGrads bool
	// scoredRows is set for a model whose training and prediction graphs run the scored
	// rows alone and whose probes need graphs of every row (the per-position MLP:
	// mlp_scored.go); rowsOnly builds every graph on every row (tests compare the two).
	scoredRows, rowsOnly bool
	// linScratch is the scratch every linear kernel's backward pass shares.
	linScratch []T
}

// addUnit registers an ablatable unit and returns its gate (1 = on), for a gated kernel.
// Call it while constructing the model, before any graph is built.
func (m *net[T]) addUnit(kind string, layer int) *float64 {
	g := new(float64)
	*g = 1
	m.units = append(m.units, Unit{Kind: kind, Layer: layer})
	m.gates = append(m.gates, g)
	return g
}

// Units implements Model.
func (m *net[T]) Units() []Unit { return append([]Unit(nil), m.units...) }

// SetUnit implements Model.
func (m *net[T]) SetUnit(i int, on bool) error {
	if i < 0 || i >= len(m.units) {
		return fmt.Errorf("models: %s: unit %d out of range (%d units)", m.kind, i, len(m.units))
	}
	*m.gates[i] = 0
	if on {
		*m.gates[i] = 1
	}
	return nil
}

// unitGate is the gate of the unit of that kind and layer; it panics if there is none.
func (m *net[T]) unitGate(kind string, layer int) *float64 {
	for i, u := range m.units {
		if u.Kind == kind && u.Layer == layer {
			return m.gates[i]
		}
	}
	panic(fmt.Sprintf("models: %s has no %s unit in layer %d", m.kind, kind, layer))
}

func (m *net[T]) pool() par.Pool { return par.Pool{Workers: m.opt.Workers} }

// graph is the compiled graph for batches of n sequences of t: a training graph (train),
// or a prediction graph, of every row (every) for a probe when the model's others run the
// scored rows alone (scoredRows; for other models every changes nothing).
func (m *net[T]) graph(t tunnels.Tunnel, n int, train, every bool) (*compiled[T], error) {
	key := m.key(t, n, train, every)
	if c, ok := m.graphs[key]; ok {
		return c, nil
	}
	if t.SeqLen() > m.opt.MaxLen {
		return nil, fmt.Errorf("models: %s: sequence length %d exceeds the model's maximum %d", m.kind, t.SeqLen(), m.opt.MaxLen)
	}
	c := &compiled[T]{key: key, g: G.NewGraph(), ids: make([]int, n*t.SeqLen()), tgt: make([]int, n*key.p)}
	for _, p := range m.st.params {
		s := p.Value.Shape()
		c.pnodes = append(c.pnodes, G.NewMatrix(c.g, m.opt.Dtype, G.WithShape(s[0], s[1]), G.WithName(p.Name), G.WithValue(p.Value)))
	}
	logits, err := m.build(c, t)
	if err != nil {
		return nil, err
	}
	c.logits = logits
	if train {
		ce := &ceKernel[T]{p: m.pool(), off: m.out.off, c: t.Classes(), tgt: &c.tgt, soft: &c.soft}
		if c.loss, err = G.ApplyOp(newFwd(ce, &m.ids, 1, true, m.opt.Dtype), logits); err != nil {
			return nil, fmt.Errorf("models: %s loss: %w", m.kind, err)
		}
		if c.grads, err = G.Grad(c.loss, c.pnodes...); err != nil {
			return nil, fmt.Errorf("models: %s gradients: %w", m.kind, err)
		}
		c.vm = G.NewTapeMachine(c.g, G.BindDualValues(c.pnodes...), G.WithEngine(sumEngine{p: m.pool()}))
	} else {
		c.vm = G.NewTapeMachine(c.g, G.WithEngine(sumEngine{p: m.pool()}))
	}
	if m.graphs == nil {
		m.graphs = map[shapeKey]*compiled[T]{}
	}
	m.graphs[key] = c
	return c, nil
}

// key is graph's map key.
func (m *net[T]) key(t tunnels.Tunnel, n int, train, every bool) shapeKey {
	return shapeKey{n: n, t: t.SeqLen(), p: len(t.Positions()), train: train, every: every && m.scoredRows && !train}
}

func (m *net[T]) checkBatch(t tunnels.Tunnel, b *tunnels.Batch) error {
	if b.T != t.SeqLen() || b.P != len(t.Positions()) || b.C != t.Classes() {
		return fmt.Errorf("models: batch %d×%d (P=%d, C=%d) does not match tunnel %s (T=%d, P=%d, C=%d)",
			b.N, b.T, b.P, b.C, t.Name(), t.SeqLen(), len(t.Positions()), t.Classes())
	}
	if b.N == 0 {
		return fmt.Errorf("models: empty batch")
	}
	return nil
}

// Kind implements Model.
func (m *net[T]) Kind() string { return m.kind }

// NumParams implements Model.
func (m *net[T]) NumParams() int { return m.st.count() }

// Params implements Model.
func (m *net[T]) Params() []Param { return m.st.params }

// TrainStep implements Model.
func (m *net[T]) TrainStep(t tunnels.Tunnel, b *tunnels.Batch, mode tunnels.TargetMode) (float64, error) {
	if err := m.checkBatch(t, b); err != nil {
		return 0, err
	}
	c, err := m.graph(t, b.N, true, false)
	if err != nil {
		return 0, err
	}
	copy(c.ids, b.Tokens)
	copy(c.tgt, b.Targets)
	if mode == tunnels.Posterior {
		c.soft = b.Posterior
	} else {
		c.soft = nil
	}
	defer c.vm.Reset()
	if err := m.runTrain(c); err != nil {
		return 0, fmt.Errorf("models: %s train step: %w", m.kind, err)
	}
	for i, pn := range c.pnodes {
		g, err := pn.Grad()
		d, ok := g.(*tensor.Dense)
		if err != nil || !ok {
			return 0, fmt.Errorf("models: %s: no gradient for %s (%v)", m.kind, m.st.params[i].Name, err)
		}
		copy(data[T](m.st.params[i].Grad), data[T](d))
	}
	loss, err := scalarOf(c.loss.Value())
	if err != nil {
		return 0, fmt.Errorf("models: %s loss: %w", m.kind, err)
	}
	return loss, nil
}

// Predict implements Model.
func (m *net[T]) Predict(t tunnels.Tunnel, b *tunnels.Batch, q []float64) error {
	return m.predict(t, b, q, false)
}

// predict is Predict on the graph of every row when every is set (for a probe).
func (m *net[T]) predict(t tunnels.Tunnel, b *tunnels.Batch, q []float64, every bool) error {
	if err := m.checkBatch(t, b); err != nil {
		return err
	}
	if len(q) != b.N*b.P*b.C {
		return fmt.Errorf("models: predict: q has %d values, want %d", len(q), b.N*b.P*b.C)
	}
	c, err := m.graph(t, b.N, false, every)
	if err != nil {
		return err
	}
	copy(c.ids, b.Tokens)
	defer c.vm.Reset()
	if err := c.vm.RunAll(); err != nil {
		return fmt.Errorf("models: %s predict: %w", m.kind, err)
	}
	lv, ok := c.logits.Value().(*tensor.Dense)
	if !ok {
		return fmt.Errorf("models: %s predict: logits are %T", m.kind, c.logits.Value())
	}
	classDists(data[T](lv), m.out.width, m.out.off, t.Classes(), q)
	return nil
}

// Heads implements Model.
func (m *net[T]) Heads() (int, int) { return m.layers, m.heads }

// SetHeadMask implements Model.
func (m *net[T]) SetHeadMask(layer, head int, on bool) error {
	if layer < 0 || layer >= m.layers || head < 0 || head >= m.heads {
		return fmt.Errorf("models: head %d.%d out of range (%d layers × %d heads)", layer, head, m.layers, m.heads)
	}
	m.mask[layer][head] = 0
	if on {
		m.mask[layer][head] = 1
	}
	return nil
}

// HeadMask implements Model.
func (m *net[T]) HeadMask() [][]float64 {
	out := make([][]float64, len(m.mask))
	for i, r := range m.mask {
		out[i] = append([]float64(nil), r...)
	}
	return out
}

// apply adds a kernel node to the graph.
func apply[T Float](m *net[T], k kernel, scalar bool, in ...*G.Node) (*G.Node, error) {
	if lk, ok := k.(*linKernel[T]); ok && lk.dpre == nil && !m.ownGrads {
		lk.dpre = &m.linScratch
	}
	n, err := G.ApplyOp(newFwd(k, &m.ids, len(in), scalar, m.opt.Dtype), in...)
	if err != nil {
		return nil, fmt.Errorf("models: %s: %s: %w", m.kind, k.name(), err)
	}
	return n, nil
}
