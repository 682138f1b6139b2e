package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// graphRun is one run of a small graph: the op's forward output and the gradient of the
// scalar test loss with respect to every input, all as float64.
type graphRun struct {
	out   []float64
	grads [][]float64
}

// randDense returns an r×c float64 matrix with entries uniform in ±a.
func randDense(rng *rand.Rand, r, c int, a float64) *tensor.Dense {
	v := make([]float64, r*c)
	for i := range v {
		v[i] = (2*rng.Float64() - 1) * a
	}
	return tensor.New(tensor.WithShape(r, c), tensor.WithBacking(v))
}

// lossWeights returns the fixed weights R of the test loss Σ out⊙R for an output of n values.
func lossWeights(n int) []float64 {
	rng := rand.New(rand.NewPCG(uint64(n), 77))
	w := make([]float64, n)
	for i := range w {
		w[i] = 2*rng.Float64() - 1
	}
	return w
}

// scalarLossScale multiplies a scalar op output in the test loss, so the backward pass's
// handling of the incoming scalar gradient is exercised.
const scalarLossScale = 1.7

// toDtype converts float64 values to a new dt tensor of shape s.
func toDtype(v []float64, dt tensor.Dtype, s tensor.Shape) *tensor.Dense {
	if dt == tensor.Float32 {
		f := make([]float32, len(v))
		for i, x := range v {
			f[i] = float32(x)
		}
		return tensor.New(tensor.WithShape(s.Clone()...), tensor.WithBacking(f))
	}
	return tensor.New(tensor.WithShape(s.Clone()...), tensor.WithBacking(append([]float64(nil), v...)))
}

// float64s copies a float32 or float64 value (tensor or scalar) to float64s.
func float64s(t *testing.T, v G.Value) []float64 {
	t.Helper()
	switch x := v.(type) {
	case *G.F64:
		return []float64{float64(*x)}
	case *G.F32:
		return []float64{float64(*x)}
	case *tensor.Dense:
		switch d := x.Data().(type) {
		case []float64:
			return append([]float64(nil), d...)
		case []float32:
			out := make([]float64, len(d))
			for i, f := range d {
				out[i] = float64(f)
			}
			return out
		case float64:
			return []float64{d}
		case float32:
			return []float64{float64(d)}
		}
	}
	t.Fatalf("value %T is not a float tensor", v)
	return nil
}

// runGraph builds a graph with the inputs as dt matrices, applies build, reduces its output
// to the test loss (scalarLossScale·out for a scalar, else Σ out⊙R), differentiates with
// respect to every input and runs the graph once on a tape machine.
func runGraph(t *testing.T, dt tensor.Dtype, in []*tensor.Dense, build func(g *G.ExprGraph, x []*G.Node) (*G.Node, error)) graphRun {
	t.Helper()
	g := G.NewGraph()
	x := make([]*G.Node, len(in))
	for i, d := range in {
		s := d.Shape()
		x[i] = G.NewMatrix(g, dt, G.WithShape(s[0], s[1]), G.WithName(fmt.Sprintf("in%d", i)),
			G.WithValue(toDtype(d.Float64s(), dt, s)))
	}
	out, err := build(g, x)
	if err != nil {
		t.Fatal(err)
	}
	var loss *G.Node
	if out.IsScalar() {
		c := G.NewConstant(scalarLossScale)
		if dt == tensor.Float32 {
			c = G.NewConstant(float32(scalarLossScale))
		}
		loss, err = G.Mul(out, c)
	} else {
		s := out.Shape()
		r := G.NewMatrix(g, dt, G.WithShape(s[0], s[1]), G.WithName("R"),
			G.WithValue(toDtype(lossWeights(s.TotalSize()), dt, s)))
		var p *G.Node
		if p, err = G.HadamardProd(out, r); err == nil {
			loss, err = G.Sum(p)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(loss, x...); err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g, G.BindDualValues(x...))
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	res := graphRun{out: float64s(t, out.Value())}
	for _, n := range x {
		gv, err := n.Grad()
		if err != nil {
			t.Fatalf("%s: %v", n.Name(), err)
		}
		res.grads = append(res.grads, float64s(t, gv))
	}
	return res
}

// kernelGraph returns a build function applying k alone to all the inputs.
func kernelGraph(k kernel, scalar bool, dt tensor.Dtype) func(*G.ExprGraph, []*G.Node) (*G.Node, error) {
	return func(_ *G.ExprGraph, x []*G.Node) (*G.Node, error) {
		var ids opIDs
		return G.ApplyOp(newFwd(k, &ids, len(x), scalar, dt), x...)
	}
}

// kernelLoss evaluates the test loss with the kernel's own forward pass, outside any graph.
func kernelLoss(k kernel, scalar bool, in []*tensor.Dense) float64 {
	if scalar {
		return scalarLossScale * k.forward(in, nil)
	}
	shapes := make([]tensor.Shape, len(in))
	for i, d := range in {
		shapes[i] = d.Shape()
	}
	s, err := k.outShape(shapes)
	if err != nil {
		panic(err)
	}
	out := tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(s...))
	k.forward(in, out)
	w := lossWeights(s.TotalSize())
	l := 0.0
	for i, v := range out.Float64s() {
		l += v * w[i]
	}
	return l
}

// maxRelErr is max |got−want| / max(1, |want|).
func maxRelErr(got, want []float64) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	e := 0.0
	for i, w := range want {
		e = math.Max(e, math.Abs(got[i]-w)/math.Max(1, math.Abs(w)))
	}
	return e
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// cloneDenses deep-copies float64 inputs.
func cloneDenses(in []*tensor.Dense) []*tensor.Dense {
	out := make([]*tensor.Dense, len(in))
	for i, d := range in {
		out[i] = d.Clone().(*tensor.Dense)
	}
	return out
}

// Stock-op building blocks for the composed versions of the kernels; x is m×d throughout.

// fconst is a float64 constant matrix node (not differentiated).
func fconst(g *G.ExprGraph, name string, r, c int, v []float64) *G.Node {
	return G.NewMatrix(g, tensor.Float64, G.WithShape(r, c), G.WithName(name),
		G.WithValue(tensor.New(tensor.WithShape(r, c), tensor.WithBacking(v))))
}

// intVec is an int vector node for ByIndices.
func intVec(g *G.ExprGraph, name string, v []int) *G.Node {
	return G.NewVector(g, tensor.Int, G.WithShape(len(v)), G.WithName(name),
		G.WithValue(tensor.New(tensor.WithShape(len(v)), tensor.WithBacking(append([]int(nil), v...)))))
}

// rowMean is the m×1 mean of each row.
func rowMean(x *G.Node) *G.Node {
	return G.Must(G.Reshape(G.Must(G.Mean(x, 1)), tensor.Shape{x.Shape()[0], 1}))
}

type bcastOp func(a, b *G.Node, l, r []byte) (*G.Node, error)

// perRow applies op to x (m×d) and a column c (m×1) broadcast along each row.
func perRow(op bcastOp, x, c *G.Node) *G.Node { return G.Must(op(x, c, nil, []byte{1})) }

// perCol applies op to x (m×d) and a row vector v (1×d) broadcast down the columns.
func perCol(op bcastOp, x, v *G.Node) *G.Node { return G.Must(op(x, v, nil, []byte{0})) }

// scale multiplies x by a float64 constant.
func scale(x *G.Node, c float64) *G.Node { return G.Must(G.Mul(x, G.NewConstant(c))) }

// stockGraph adapts a composed-op builder that panics on error (via G.Must) to runGraph.
func stockGraph(f func(g *G.ExprGraph, x []*G.Node) *G.Node) func(*G.ExprGraph, []*G.Node) (*G.Node, error) {
	return func(g *G.ExprGraph, x []*G.Node) (n *G.Node, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("composed graph: %v", r)
			}
		}()
		return f(g, x), nil
	}
}

// checkFloat32 fails unless the float32 run got matches the float64 run want within fwdTol
// (output) and gradTol (each input's gradient), by maxRelErr.
func checkFloat32(t *testing.T, got, want graphRun, fwdTol, gradTol float64) {
	t.Helper()
	e := maxRelErr(got.out, want.out)
	if e > fwdTol {
		t.Errorf("float32 forward differs from float64 by %.3g (tolerance %g)", e, fwdTol)
	}
	worst := 0.0
	for j := range want.grads {
		ge := maxRelErr(got.grads[j], want.grads[j])
		worst = math.Max(worst, ge)
		if ge > gradTol {
			t.Errorf("float32 gradient of input %d differs from float64 by %.3g (tolerance %g)", j, ge, gradTol)
		}
	}
	t.Logf("forward %.3g, gradients %.3g", e, worst)
}
