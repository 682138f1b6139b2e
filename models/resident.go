package models

import (
	"errors"
	"fmt"
	"math"
	"strings"

	G "gorgonia.org/gorgonia"

	"windtunnel/backends/accel"
	"windtunnel/tunnels"
)

// ResidentOptions are the optimiser settings of a device-resident step: AdamW as lab's, with
// the same per-group learning-rate multipliers.
type ResidentOptions struct {
	Beta1, Beta2, Eps, Decay, Clip float64
	GroupLR                        map[Group]float64 // missing groups: 1
}

// Resident is a float32 model's training step held on an accelerator: parameters, gradients
// and AdamW moments in one flat device buffer each, every activation in device memory. Each
// step sends the batch and reads back the loss and the gradients' sum of squares (8 bytes);
// Pull and Push move the parameters only when an evaluation, probe or checkpoint needs them.
//
// It executes the model's own compiled training graph node by node: every kernel op runs its
// device version, gorgonia's gradient sums run as device adds, and any other op is an error
// when the Resident is built, never a silent CPU fallback. Use it from one goroutine.
type Resident struct {
	m       *net[float32]
	d       accel.Device
	tn      tunnels.Tunnel
	c       *compiled[float32]
	opt     ResidentOptions
	offs    []int // parameter i starts at element offs[i] of the flat buffers
	total   int
	w, g    accel.Ptr
	mom, v  accel.Ptr
	lrm     accel.Ptr
	scal    accel.Ptr // [0] the loss, [1] Σ g²
	ids     accel.Ptr
	tgt     accel.Ptr
	soft    accel.Ptr
	plan    []func() error
	bufs    map[*G.Node]accel.Ptr
	allocs  []accel.Ptr
	t       int // AdamW updates made
	sq      float64
	idsHost []int32
	tgtHost []int32
	softF32 []float32
}

// ErrNoDeviceOp is wrapped by NewResident's error when the model's graph holds an op without
// a device implementation.
var ErrNoDeviceOp = errors.New("op without a device implementation")

// NewResident builds the device-resident step of m for batches of n sequences of tunnel t on
// device d, and copies the parameters to the device. m must be a float32 model whose every op
// has a device version (the transformer).
func NewResident(m Model, t tunnels.Tunnel, n int, d accel.Device, o ResidentOptions) (*Resident, error) {
	nm, ok := m.(*net[float32])
	if !ok {
		return nil, fmt.Errorf("models: resident step: %s is not a float32 model: %w", m.Kind(), ErrNoDeviceOp)
	}
	c, err := nm.graph(t, n, true, false)
	if err != nil {
		return nil, err
	}
	r := &Resident{m: nm, d: d, tn: t, c: c, opt: o, bufs: map[*G.Node]accel.Ptr{}}
	for _, p := range nm.st.params {
		r.offs = append(r.offs, r.total)
		r.total += p.Value.Shape().TotalSize()
	}
	err = d.Do(func() error {
		if err := r.allocFlat(); err != nil {
			return err
		}
		if err := r.compile(); err != nil {
			return err
		}
		return r.pushLocked()
	})
	if err != nil {
		_ = r.Close()
		return nil, fmt.Errorf("models: resident %s on %s: %w", m.Kind(), d.Name(), err)
	}
	return r, nil
}

// alloc reserves n elements and remembers them for Close.
func (r *Resident) alloc(n int) (accel.Ptr, error) {
	p, err := r.d.Alloc(n)
	if err != nil {
		return accel.Ptr{}, err
	}
	r.allocs = append(r.allocs, p)
	return p, nil
}

func (r *Resident) allocFlat() error {
	var err error
	for _, p := range []*accel.Ptr{&r.w, &r.g, &r.mom, &r.v, &r.lrm} {
		if *p, err = r.alloc(r.total); err != nil {
			return err
		}
	}
	if r.scal, err = r.alloc(2); err != nil {
		return err
	}
	k := r.c.key
	if r.ids, err = r.alloc(k.n * k.t); err != nil {
		return err
	}
	if r.tgt, err = r.alloc(k.n * k.p); err != nil {
		return err
	}
	if r.soft, err = r.alloc(k.n * k.p * r.tn.Classes()); err != nil {
		return err
	}
	lrm := make([]float32, r.total)
	for i, p := range r.m.st.params {
		f := 1.0
		if g, ok := r.opt.GroupLR[p.Group]; ok {
			f = g
		}
		for j := range p.Value.Shape().TotalSize() {
			lrm[r.offs[i]+j] = float32(f)
		}
	}
	return r.d.Write(r.lrm, lrm)
}

// size is a node's element count (1 for a scalar).
func size(n *G.Node) int { return max(1, n.Shape().TotalSize()) }

// children returns n's inputs in order.
func children(g *G.ExprGraph, n *G.Node) []*G.Node {
	var out []*G.Node
	it := g.From(n.ID())
	for it.Next() {
		out = append(out, it.Node().(*G.Node))
	}
	return out
}

// compile walks the graph in the tape machine's order and plans one closure a node.
func (r *Resident) compile() error {
	sorted, err := G.Sort(r.c.g)
	if err != nil {
		return err
	}
	pidx := map[*G.Node]int{}
	for i, p := range r.c.pnodes {
		pidx[p] = i
	}
	states := map[*fwdOp]*devState{}
	gins := map[*bwdOp][]accel.Ptr{}
	consts := map[*G.Node]float32{}
	for i := len(sorted) - 1; i >= 0; i-- {
		n := sorted[i]
		ch := children(r.c.g, n)
		switch op := n.Op().(type) {
		case nil:
			pi, ok := pidx[n]
			if !ok {
				return fmt.Errorf("input node %s is not a parameter: %w", n.Name(), ErrNoDeviceOp)
			}
			r.bufs[n] = r.w.Add(r.offs[pi])
		case *fwdOp:
			if err := r.planForward(n, op, ch, states); err != nil {
				return err
			}
		case *bwdOp:
			if err := r.planBackward(n, op, ch, states, gins, consts); err != nil {
				return err
			}
		case *auxOp:
			g := gins[op.b]
			if g == nil || g[op.i].IsNil() {
				return fmt.Errorf("gradient %s comes before its backward pass", op)
			}
			r.bufs[n] = g[op.i]
		default:
			if err := r.planGorgonia(n, ch, consts); err != nil {
				return err
			}
		}
	}
	if len(r.c.grads) != len(r.c.pnodes) {
		return fmt.Errorf("training graph has %d gradients for %d parameters", len(r.c.grads), len(r.c.pnodes))
	}
	for i, gn := range r.c.grads {
		src, ok := r.bufs[gn]
		if !ok {
			return fmt.Errorf("no gradient buffer for parameter %s", r.m.st.params[i].Name)
		}
		dst, cnt := r.g.Add(r.offs[i]), size(gn)
		r.plan = append(r.plan, func() error { return accel.Copy(r.d, dst, src, cnt) })
	}
	total := r.total
	r.plan = append(r.plan, func() error { return accel.SumSquares(r.d, r.scal.Add(1), r.g, total) })
	return nil
}

// planGorgonia plans the gorgonia ops a training graph holds besides kernels: the constant
// seed of the loss gradient and the sums of a node's gradients.
func (r *Resident) planGorgonia(n *G.Node, ch []*G.Node, consts map[*G.Node]float32) error {
	op := n.Op()
	name := fmt.Sprintf("%T", op)
	switch {
	case strings.HasSuffix(name, "constantScalar"):
		v, err := scalarOf(n.Value())
		if err != nil {
			return fmt.Errorf("constant %v: %w", op, err)
		}
		consts[n] = float32(v)
		return nil
	case strings.HasSuffix(name, "elemBinOp") && strings.HasPrefix(fmt.Sprint(op), "+") && len(ch) == 2:
		a, okA := r.bufs[ch[0]]
		b, okB := r.bufs[ch[1]]
		if !okA || !okB || size(ch[0]) != size(n) || size(ch[1]) != size(n) {
			return fmt.Errorf("sum %v: operands of other shapes or unplanned: %w", op, ErrNoDeviceOp)
		}
		y, err := r.alloc(size(n))
		if err != nil {
			return err
		}
		r.bufs[n] = y
		cnt := size(n)
		r.plan = append(r.plan, func() error { return accel.Add(r.d, y, a, b, cnt) })
		return nil
	}
	return fmt.Errorf("%v (%s): %w", op, name, ErrNoDeviceOp)
}

// Step runs forward and backward on batch b, leaving the gradients on the device, and
// returns the loss. mode picks hard or posterior targets as TrainStep's.
func (r *Resident) Step(b *tunnels.Batch, mode tunnels.TargetMode) (float64, error) {
	if err := r.m.checkBatch(r.tn, b); err != nil {
		return 0, err
	}
	if k := r.c.key; b.N != k.n {
		return 0, fmt.Errorf("models: resident step built for batches of %d, got %d", k.n, b.N)
	}
	r.idsHost = toInt32(r.idsHost, b.Tokens)
	r.tgtHost = toInt32(r.tgtHost, b.Targets)
	soft := mode == tunnels.Posterior
	if soft {
		r.softF32 = r.softF32[:0]
		for _, v := range b.Posterior {
			r.softF32 = append(r.softF32, float32(v))
		}
	}
	var out [2]float32
	err := r.d.Do(func() error {
		if err := r.d.WriteInts(r.ids, r.idsHost); err != nil {
			return err
		}
		if err := r.d.WriteInts(r.tgt, r.tgtHost); err != nil {
			return err
		}
		r.c.soft = nil
		if soft {
			if err := r.d.Write(r.soft, r.softF32); err != nil {
				return err
			}
			r.c.soft = b.Posterior // read by the loss kernel's device version: soft targets on
		}
		for _, f := range r.plan {
			if err := f(); err != nil {
				return err
			}
		}
		return r.d.Read(out[:], r.scal)
	})
	if err != nil {
		return 0, fmt.Errorf("models: resident step: %w", err)
	}
	r.sq = float64(out[1])
	return float64(out[0]), nil
}

func toInt32(dst []int32, src []int) []int32 {
	dst = dst[:0]
	for _, v := range src {
		dst = append(dst, int32(v))
	}
	return dst
}

// Update applies one AdamW update at learning rate lr to the gradients of the last Step and
// returns their global norm before clipping.
func (r *Resident) Update(lr float64) (float64, error) {
	r.t++
	o := r.opt
	h := accel.AdamWHyper{
		LR: float32(lr), Beta1: float32(o.Beta1), Beta2: float32(o.Beta2), Eps: float32(o.Eps),
		Decay: float32(o.Decay), Clip: float32(o.Clip),
		BC1: float32(1 - math.Pow(o.Beta1, float64(r.t))), BC2: float32(1 - math.Pow(o.Beta2, float64(r.t))),
	}
	err := r.d.Do(func() error { return accel.AdamW(r.d, r.w, r.mom, r.v, r.g, r.lrm, r.scal.Add(1), r.total, h) })
	if err != nil {
		return 0, fmt.Errorf("models: resident update: %w", err)
	}
	return math.Sqrt(r.sq), nil
}
