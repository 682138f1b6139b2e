package models

import (
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"windtunnel/backends/fpu"
)

// modeKernel is an identity kernel that records whether its passes ran flushing subnormals.
type modeKernel struct{ fwd, bwd bool }

func (k *modeKernel) name() string                                     { return "mode" }
func (k *modeKernel) outShape(in []tensor.Shape) (tensor.Shape, error) { return in[0].Clone(), nil }
func (k *modeKernel) diff(n int) []bool                                { return []bool{true} }
func (k *modeKernel) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	k.fwd = fpu.Current().Flushing()
	return 0
}
func (k *modeKernel) backward(in []*tensor.Dense, out, gout *tensor.Dense, gscalar float64, gin []*tensor.Dense) {
	k.bwd = fpu.Current().Flushing()
}

// TestKernelsFlushSubnormalsInFloat32: gorgonia runs the graph on a goroutine of its own,
// so each float32 kernel sets the mode itself (forward and backward), float64 kernels keep
// IEEE's, and the caller's mode is as it was after.
func TestKernelsFlushSubnormalsInFloat32(t *testing.T) {
	probe := fpu.FlushSubnormals()
	supported := fpu.Current().Flushing()
	fpu.Restore(probe)
	for _, tc := range []struct {
		dt   tensor.Dtype
		want bool
	}{{tensor.Float32, supported}, {tensor.Float64, false}} {
		k := &modeKernel{}
		ids := &opIDs{}
		f := newFwd(k, ids, 1, false, tc.dt)
		in := tensor.New(tensor.WithShape(2, 3), tensor.Of(tc.dt))
		if _, err := f.Do(in); err != nil {
			t.Fatalf("%v forward: %v", tc.dt, err)
		}
		b := &bwdOp{f: f, gin: make([]*tensor.Dense, 1)}
		out := tensor.New(tensor.WithShape(2, 3), tensor.Of(tc.dt))
		gout := tensor.New(tensor.WithShape(2, 3), tensor.Of(tc.dt))
		if _, err := b.Do(in, G.Value(out), G.Value(gout)); err != nil {
			t.Fatalf("%v backward: %v", tc.dt, err)
		}
		if k.fwd != tc.want || k.bwd != tc.want {
			t.Errorf("%v: forward flushing %v, backward %v; want %v", tc.dt, k.fwd, k.bwd, tc.want)
		}
		if fpu.Current().Flushing() {
			t.Fatalf("%v: the caller's mode was left flushing", tc.dt)
		}
	}
}
