package models

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"windtunnel/backends/fpu"
)

// kernel is a fused computation with a hand-written backward pass. Every input and the
// output are 2-D tensors (vectors are stored as 1×n), except a kernel may return a scalar.
type kernel interface {
	// name identifies the kernel in graph dumps.
	name() string
	// outShape computes the output shape from the input shapes.
	outShape(in []tensor.Shape) (tensor.Shape, error)
	// diff reports which inputs are differentiable.
	diff(n int) []bool
	// forward computes the output into out (nil for a scalar output) and returns the scalar.
	forward(in []*tensor.Dense, out *tensor.Dense) float64
	// backward writes the gradient of every differentiable input into gin (overwriting),
	// given the inputs, the forward output and the output's gradient (scalar gout for a
	// scalar output, else gout).
	backward(in []*tensor.Dense, out *tensor.Dense, gout *tensor.Dense, gscalar float64, gin []*tensor.Dense)
}

// opIDs hands out per-model unique op ids, so the graph never merges two op instances,
// and holds the trace of a graph's first training step while it runs (gradmem.go).
type opIDs struct {
	next  int
	trace *gradTrace
}

func (o *opIDs) id() int { o.next++; return o.next }

// fwdOp wraps a kernel as a gorgonia op with symbolic differentiation.
type fwdOp struct {
	k      kernel
	id     int
	arity  int
	scalar bool
	dt     tensor.Dtype
	out    *tensor.Dense
	ins    []*tensor.Dense
	ids    *opIDs
}

func newFwd(k kernel, ids *opIDs, arity int, scalar bool, dt tensor.Dtype) *fwdOp {
	return &fwdOp{k: k, id: ids.id(), arity: arity, scalar: scalar, dt: dt, ins: make([]*tensor.Dense, arity), ids: ids}
}

func (o *fwdOp) Arity() int { return o.arity }

func (o *fwdOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, 0, o.arity+1)
	for i := 0; i < o.arity; i++ {
		ts = append(ts, G.TensorType{Dims: 2, Of: a})
	}
	if o.scalar {
		ts = append(ts, a)
	} else {
		ts = append(ts, G.TensorType{Dims: 2, Of: a})
	}
	return hm.NewFnType(ts...)
}

func (o *fwdOp) InferShape(ds ...G.DimSizer) (tensor.Shape, error) {
	shapes, err := G.DimSizersToShapes(ds)
	if err != nil {
		return nil, err
	}
	if o.scalar {
		return tensor.ScalarShape(), nil
	}
	return o.k.outShape(shapes)
}

func denses(dst []*tensor.Dense, vs []G.Value) error {
	for i, v := range vs {
		d, ok := v.(*tensor.Dense)
		if !ok {
			return fmt.Errorf("input %d is %T, want *tensor.Dense", i, v)
		}
		dst[i] = d
	}
	return nil
}

func (o *fwdOp) Do(vs ...G.Value) (G.Value, error) {
	if o.dt == tensor.Float32 {
		// gorgonia runs the graph on a goroutine of its own, so each kernel sets the mode
		// (backends/fpu: a subnormal costs ~100 cycles; float64 models keep IEEE's).
		defer fpu.Restore(fpu.FlushSubnormals())
	}
	if len(vs) != o.arity {
		return nil, fmt.Errorf("models: %s: %d inputs, want %d", o.k.name(), len(vs), o.arity)
	}
	if err := denses(o.ins, vs); err != nil {
		return nil, fmt.Errorf("models: %s: %w", o.k.name(), err)
	}
	if o.scalar {
		v := o.k.forward(o.ins, nil)
		if o.dt == tensor.Float32 {
			return G.NewF32(float32(v)), nil
		}
		return G.NewF64(v), nil
	}
	shapes := make([]tensor.Shape, len(o.ins))
	for i, d := range o.ins {
		shapes[i] = d.Shape()
	}
	s, err := o.k.outShape(shapes)
	if err != nil {
		return nil, fmt.Errorf("models: %s: %w", o.k.name(), err)
	}
	o.out = ensure(o.out, o.dt, s)
	o.k.forward(o.ins, o.out)
	return o.out, nil
}

// ensure returns t if it has shape s, else a new tensor of that shape.
func ensure(t *tensor.Dense, dt tensor.Dtype, s tensor.Shape) *tensor.Dense {
	if t != nil && t.Shape().Eq(s) {
		return t
	}
	return tensor.New(tensor.Of(dt), tensor.WithShape(s.Clone()...))
}

func (o *fwdOp) ReturnsPtr() bool      { return false }
func (o *fwdOp) CallsExtern() bool     { return false }
func (o *fwdOp) OverwritesInput() int  { return -1 }
func (o *fwdOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%s#%d", o.k.name(), o.id) }
func (o *fwdOp) Hashcode() uint32 {
	h := fnv.New32a()
	o.WriteHash(h)
	return h.Sum32()
}
func (o *fwdOp) String() string { return fmt.Sprintf("%s#%d", o.k.name(), o.id) }

func (o *fwdOp) DiffWRT(n int) []bool { return o.k.diff(n) }

func (o *fwdOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	d := o.k.diff(len(inputs))
	first := -1
	for i, ok := range d {
		if ok {
			first = i
			break
		}
	}
	res := make(G.Nodes, len(inputs))
	if first < 0 {
		return res, nil
	}
	b := &bwdOp{f: o, first: first, gin: make([]*tensor.Dense, len(inputs))}
	children := append(append(G.Nodes{}, inputs...), output, grad)
	bn, err := G.ApplyOp(b, children...)
	if err != nil {
		return nil, fmt.Errorf("models: %s backward: %w", o.k.name(), err)
	}
	for i, ok := range d {
		switch {
		case !ok:
		case i == first:
			res[i] = bn
		default:
			if res[i], err = G.ApplyOp(&auxOp{b: b, i: i, shape: inputs[i].Shape().Clone()}, bn); err != nil {
				return nil, fmt.Errorf("models: %s grad %d: %w", o.k.name(), i, err)
			}
		}
	}
	return res, nil
}

// bwdOp computes every input gradient of a fwdOp in one pass and returns the first.
type bwdOp struct {
	f     *fwdOp
	first int
	gin   []*tensor.Dense
	ins   []*tensor.Dense
	gout  *tensor.Dense // the output's gradient of the last pass (read by checks of the gradients)
	// shared holds, for the inputs whose gradients share buffers (gradmem.go), the view
	// to write; nil entries (and a nil slice) keep their own buffer.
	shared []*tensor.Dense
}

func (b *bwdOp) Arity() int { return b.f.arity + 2 }
func (b *bwdOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, 0, b.f.arity+3)
	for i := 0; i < b.f.arity; i++ {
		ts = append(ts, G.TensorType{Dims: 2, Of: a})
	}
	if b.f.scalar {
		ts = append(ts, a, a)
	} else {
		ts = append(ts, G.TensorType{Dims: 2, Of: a}, G.TensorType{Dims: 2, Of: a})
	}
	ts = append(ts, G.TensorType{Dims: 2, Of: a})
	return hm.NewFnType(ts...)
}

func (b *bwdOp) InferShape(ds ...G.DimSizer) (tensor.Shape, error) {
	s, ok := ds[b.first].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("models: %s backward: input shape unknown", b.f.k.name())
	}
	return s.Clone(), nil
}

func scalarOf(v G.Value) (float64, error) {
	switch x := v.(type) {
	case *G.F32:
		return float64(*x), nil
	case *G.F64:
		return float64(*x), nil
	case *tensor.Dense:
		if x.Size() == 1 {
			switch d := x.Data().(type) {
			case []float32:
				return float64(d[0]), nil
			case []float64:
				return d[0], nil
			case float32:
				return float64(d), nil
			case float64:
				return d, nil
			}
		}
	}
	return 0, fmt.Errorf("gradient %T is not a scalar", v)
}

func (b *bwdOp) Do(vs ...G.Value) (G.Value, error) {
	if b.f.dt == tensor.Float32 {
		defer fpu.Restore(fpu.FlushSubnormals()) // as fwdOp.Do
	}
	n := b.f.arity
	if len(vs) != n+2 {
		return nil, fmt.Errorf("models: %s backward: %d inputs, want %d", b.f.k.name(), len(vs), n+2)
	}
	if b.ins == nil {
		b.ins = make([]*tensor.Dense, n)
	}
	if err := denses(b.ins, vs[:n]); err != nil {
		return nil, fmt.Errorf("models: %s backward: %w", b.f.k.name(), err)
	}
	if tr := b.f.ids.trace; tr != nil {
		tr.ran = append(tr.ran, b)
	}
	d := b.f.k.diff(n)
	for i, ok := range d {
		switch {
		case !ok:
		case b.shared != nil && b.shared[i] != nil:
			b.gin[i] = b.shared[i]
		default:
			b.gin[i] = ensure(b.gin[i], b.f.dt, b.ins[i].Shape())
		}
	}
	var out, gout *tensor.Dense
	var gs float64
	if b.f.scalar {
		var err error
		if gs, err = scalarOf(vs[n+1]); err != nil {
			return nil, fmt.Errorf("models: %s backward: %w", b.f.k.name(), err)
		}
	} else {
		var ok1, ok2 bool
		out, ok1 = vs[n].(*tensor.Dense)
		gout, ok2 = vs[n+1].(*tensor.Dense)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("models: %s backward: output or gradient is not a tensor", b.f.k.name())
		}
	}
	b.gout = gout
	b.f.k.backward(b.ins, out, gout, gs, b.gin)
	return b.gin[b.first], nil
}

func (b *bwdOp) ReturnsPtr() bool      { return false }
func (b *bwdOp) CallsExtern() bool     { return false }
func (b *bwdOp) OverwritesInput() int  { return -1 }
func (b *bwdOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "d%s#%d", b.f.k.name(), b.f.id) }
func (b *bwdOp) Hashcode() uint32 {
	h := fnv.New32a()
	b.WriteHash(h)
	return h.Sum32()
}
func (b *bwdOp) String() string { return fmt.Sprintf("d%s#%d", b.f.k.name(), b.f.id) }

// auxOp exposes gradient i of a bwdOp; its input orders it after the backward pass.
type auxOp struct {
	b     *bwdOp
	i     int
	shape tensor.Shape
}

func (a *auxOp) Arity() int { return 1 }
func (a *auxOp) Type() hm.Type {
	t := hm.TypeVariable('a')
	return hm.NewFnType(G.TensorType{Dims: 2, Of: t}, G.TensorType{Dims: 2, Of: t})
}
func (a *auxOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return a.shape.Clone(), nil }
func (a *auxOp) Do(...G.Value) (G.Value, error)                 { return a.b.gin[a.i], nil }
func (a *auxOp) ReturnsPtr() bool                               { return false }
func (a *auxOp) CallsExtern() bool                              { return false }
func (a *auxOp) OverwritesInput() int                           { return -1 }
func (a *auxOp) WriteHash(h hash.Hash)                          { fmt.Fprintf(h, "d%s#%d.%d", a.b.f.k.name(), a.b.f.id, a.i) }
func (a *auxOp) Hashcode() uint32 {
	h := fnv.New32a()
	a.WriteHash(h)
	return h.Sum32()
}
func (a *auxOp) String() string { return fmt.Sprintf("d%s#%d.%d", a.b.f.k.name(), a.b.f.id, a.i) }

// data returns the backing slice of a tensor of element type T.
func data[T Float](t *tensor.Dense) []T {
	if is32[T]() {
		return unsafeSlice[T](t.Float32s())
	}
	return unsafeSlice[T](t.Float64s())
}
