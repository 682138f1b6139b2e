package models

import (
	"slices"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Shared gradient buffers. A backward op writes the gradient of each of its inputs into a
// buffer of its own, and a compiled training graph keeps every one: the activation
// gradients of every layer, about half of the graph's memory, although each is read only
// until the backward pass has moved a layer or so further down. After a graph's first
// training step, shareGradients lays the activation gradients (not the parameters', which
// are read after the step) into buffers shared by gradients whose lifetimes in the tape's
// order do not overlap.
//
// The tape runs the graph in gorgonia's stable topological order (G.Sort, reversed; the
// resident plan walks the same), and the plan is made in that order before the graph's
// first step. That step records the order its backward ops actually ran in; should it not
// be the planned one, every gradient goes back to a buffer of its own and the step is run
// again. A gradient's
// lifetime runs from its backward op to the last op that reads it; a gorgonia op reading
// it (the sums of a node's gradient contributions) may write its result into the same
// buffer (gorgonia reuses a dead input's register), so that op's readers count as well,
// and a gradient that reaches a parameter's gradient or a graph output this way is never
// shared. TestSharedGradients checks the gradients bit for bit against a graph without
// sharing.

// runTrain runs c's training graph once, its parameters' gradients zeroed first and its
// activation gradients in the shared buffers (placed before the graph's first step; given
// back their own buffers, and the step run again, when that step's backward ops did not
// run in the planned order).
func (m *net[T]) runTrain(c *compiled[T]) error {
	if !c.shared && !m.ownGrads {
		c.shareGradients()
		c.shared = true
	}
	var trace *gradTrace
	if c.shared && !c.checked {
		trace = &gradTrace{}
		m.ids.trace = trace
	}
	err := c.runZeroed()
	m.ids.trace = nil
	if err != nil || trace == nil {
		return err
	}
	c.checked = true
	if slices.Equal(trace.ran, c.order) {
		return nil
	}
	c.ownGradients()
	c.vm.Reset()
	return c.runZeroed()
}

// runZeroed zeroes the parameters' gradients and runs the graph.
func (c *compiled[T]) runZeroed() error {
	for _, pn := range c.pnodes {
		if g, err := pn.Grad(); err == nil {
			if d, ok := g.(*tensor.Dense); ok {
				zero(data[T](d))
			}
		}
	}
	return c.vm.RunAll()
}

// gradTrace records the backward ops of a graph's first training step in the order they ran.
type gradTrace struct{ ran []*bwdOp }

// gradReq is one activation gradient to place: written by op at step start, last read at
// step end (both positions in the tape's order).
type gradReq struct {
	op         *bwdOp
	in         int
	start, end int
	shape      tensor.Shape
}

// shareGradients places the activation gradients of c's training graph in shared buffers
// (bwdOp.shared) and keeps the order of the backward ops it planned with (c.order); it
// leaves every gradient in its own buffer when the graph cannot be sorted.
func (c *compiled[T]) shareGradients() {
	sorted, err := G.Sort(c.g)
	if err != nil {
		return
	}
	slices.Reverse(sorted)
	idx := make(map[*G.Node]int, len(sorted))
	cons := map[*G.Node][]*G.Node{}
	for i, n := range sorted {
		idx[n] = i
		for _, ch := range children(c.g, n) {
			cons[ch] = append(cons[ch], n)
		}
	}
	var bwd []*G.Node
	for _, n := range sorted {
		if _, ok := n.Op().(*bwdOp); ok {
			bwd = append(bwd, n)
		}
	}
	c.order = c.order[:0]
	for _, n := range bwd {
		c.order = append(c.order, n.Op().(*bwdOp))
	}
	params, outputs := map[*G.Node]bool{}, map[*G.Node]bool{c.loss: true, c.logits: true}
	for _, p := range c.pnodes {
		params[p] = true
	}
	for _, g := range c.grads {
		outputs[g] = true
	}
	// lastRead is the position of the last op that reads v's buffer (−1: read after the
	// step, never shared).
	lastRead := func(v *G.Node) int {
		end := idx[v]
		seen := map[*G.Node]bool{v: true}
		for queue := []*G.Node{v}; len(queue) > 0; queue = queue[1:] {
			x := queue[0]
			if outputs[x] {
				return -1
			}
			for _, u := range cons[x] {
				end = max(end, idx[u])
				switch u.Op().(type) {
				case *fwdOp, *bwdOp, *auxOp:
				default: // may return x's buffer as its own
					if !seen[u] {
						seen[u] = true
						queue = append(queue, u)
					}
				}
			}
		}
		return end
	}
	var reqs []gradReq
	for _, bn := range bwd {
		b := bn.Op().(*bwdOp)
		ch := children(c.g, bn)
		if len(ch) < b.f.arity {
			return
		}
		aux := map[int]*G.Node{}
		for _, u := range cons[bn] {
			if a, ok := u.Op().(*auxOp); ok && a.b == b {
				aux[a.i] = u
			}
		}
		for i, ok := range b.f.k.diff(b.f.arity) {
			if !ok || params[ch[i]] {
				continue
			}
			v := bn
			if i != b.first {
				v = aux[i]
			}
			if v == nil {
				continue
			}
			if end := lastRead(v); end >= 0 {
				reqs = append(reqs, gradReq{op: b, in: i, start: idx[bn], end: end, shape: ch[i].Shape().Clone()})
			}
		}
	}
	placeGradients[T](reqs)
}

// ownGradients gives every gradient of c back a buffer of its own.
func (c *compiled[T]) ownGradients() {
	for _, b := range c.order {
		b.shared = nil
	}
}

// placeGradients gives each request a buffer no other live request holds, reusing the
// smallest free buffer that fits once the requests holding it have been read for the last
// time (reqs are in the order of their backward ops).
func placeGradients[T Float](reqs []gradReq) {
	type held struct {
		buf []T
		end int
	}
	var live []held
	var free [][]T
	for _, r := range reqs {
		kept := live[:0]
		for _, h := range live {
			if h.end < r.start {
				free = append(free, h.buf)
			} else {
				kept = append(kept, h)
			}
		}
		live = kept
		n := r.shape.TotalSize()
		best := -1
		for i, f := range free {
			if len(f) >= n && (best < 0 || len(f) < len(free[best])) {
				best = i
			}
		}
		var buf []T
		if best >= 0 {
			buf = free[best]
			free = slices.Delete(free, best, best+1)
		} else {
			buf = make([]T, n)
		}
		live = append(live, held{buf: buf, end: r.end})
		if r.op.shared == nil {
			r.op.shared = make([]*tensor.Dense, r.op.f.arity)
		}
		r.op.shared[r.in] = tensor.New(tensor.WithShape(r.shape...), tensor.WithBacking(buf[:n]))
	}
}
