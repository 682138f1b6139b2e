package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"windtunnel/models/arch"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
	"windtunnel/tunnels"
)

// Group tags a parameter for per-group learning rates (Paper II's two-timescale run).
type Group int

const (
	// GroupOther is every parameter not in another group.
	GroupOther Group = iota
	// GroupQK holds query and key projections.
	GroupQK
	// GroupValue holds value projections.
	GroupValue
)

// Param is one trainable tensor with the gradient of the last training step.
type Param struct {
	// Name is unique within the model, e.g. "layer2.wq".
	Name string
	// Group selects the learning-rate multiplier.
	Group Group
	// Value holds the parameter (shared by every compiled graph).
	Value *tensor.Dense
	// Grad holds the gradient accumulated by the last TrainStep, same shape as Value.
	Grad *tensor.Dense
}

// Model is a network trained on a tunnel. Its methods are not safe for concurrent use: the
// trainer goroutine owns it. Recurrent models satisfy the same interface.
type Model interface {
	// Kind is the architecture, one of Kinds().
	Kind() string
	// NumParams is the number of trainable scalars.
	NumParams() int
	// Params are the trainable tensors, with the gradients of the last TrainStep.
	Params() []Param
	// TrainStep runs forward and backward on a batch of the tunnel and returns the mean loss;
	// the gradients are left in Params (overwritten, not accumulated).
	TrainStep(t tunnels.Tunnel, b *tunnels.Batch, mode tunnels.TargetMode) (float64, error)
	// Predict writes the model's distribution over the tunnel's classes at every scored
	// position of the batch into q (N×P×C, float64).
	Predict(t tunnels.Tunnel, b *tunnels.Batch, q []float64) error
	// Heads reports the attention layout (0, 0 for a model without attention).
	Heads() (layers, heads int)
	// SetHeadMask switches one attention head on or off without rebuilding anything.
	SetHeadMask(layer, head int, on bool) error
	// HeadMask returns a copy of the mask, [layer][head], 1 = on.
	HeadMask() [][]float64
	// AttentionEntropy adds the per-layer, per-head attention entropy (bits) at scored
	// positions, summed over the sequences of b, into acc; it reads the last Predict on b.
	AttentionEntropy(t tunnels.Tunnel, b *tunnels.Batch, acc [][]float64) error
	// Units lists the ablatable parts other than single heads: each layer's attention and
	// MLP for a transformer, each layer for a recurrent model, each block for the MLP.
	Units() []Unit
	// SetUnit switches unit i of Units on or off without rebuilding anything; off zeroes
	// the unit's contribution to the residual stream.
	SetUnit(i int, on bool) error
	// Probe runs the model forward on b and copies out its internals as plain slices.
	Probe(t tunnels.Tunnel, b *tunnels.Batch) (*Probe, error)
}

// Unit is an ablatable part of a model.
type Unit struct {
	// Kind is "attn" (a layer's attention), "mlp" (a layer's MLP) or "layer" (a whole
	// recurrent layer or MLP block).
	Kind string `json:"unit"`
	// Layer is the block index.
	Layer int `json:"layer"`
}

// String names the unit, e.g. "L2 mlp".
func (u Unit) String() string { return fmt.Sprintf("L%d %s", u.Layer, u.Kind) }

// Options are the build settings common to every model.
type Options struct {
	// Dtype is tensor.Float32 (training) or tensor.Float64 (gradient checks).
	Dtype tensor.Dtype
	// Backend runs the matrix products; nil means the go backend (gonum for float64).
	Backend gemm.Backend
	// Workers is the number of goroutines kernels use; 0 means GOMAXPROCS.
	Workers int
	// Seed drives the parameter initialisation.
	Seed uint64
	// MaxLen is the longest sequence the model accepts (position table size); 0 means the
	// tunnel's length + 1.
	MaxLen int
	// Init is the parameter initialisation: arch.InitNormal ("" too) or arch.InitTorch.
	Init string
	// GELU is the form of the transformer's and the MLPs' GELU: arch.GELUTanh ("" too) or
	// arch.GELUErf (the exact form).
	GELU string
}

// geluAct is the activation kernel of o.GELU.
func (o Options) geluAct() activation {
	if o.GELU == arch.GELUErf {
		return actGELUErf
	}
	return actGELU
}

func (o Options) withDefaults(t tunnels.Tunnel) Options {
	if o.Dtype == (tensor.Dtype{}) {
		o.Dtype = tensor.Float32
	}
	if o.Backend == nil {
		o.Backend = gemm.Go()
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.MaxLen <= 0 {
		o.MaxLen = t.SeqLen() + 1
	}
	return o
}

func (o Options) check(t tunnels.Tunnel) error {
	if o.Dtype != tensor.Float32 && o.Dtype != tensor.Float64 {
		return fmt.Errorf("models: dtype %v: want float32 or float64", o.Dtype)
	}
	if o.Init != "" && o.Init != arch.InitNormal && o.Init != arch.InitTorch {
		return fmt.Errorf("models: init %q: want %s or %s", o.Init, arch.InitNormal, arch.InitTorch)
	}
	if o.MaxLen < t.SeqLen() {
		return fmt.Errorf("models: max length %d is shorter than the tunnel's %d tokens", o.MaxLen, t.SeqLen())
	}
	return nil
}

// store owns a model's parameters.
type store struct {
	dt     tensor.Dtype
	params []Param
	rng    *rand.Rand
	torch  bool // arch.InitTorch: embed, linear and bias draw PyTorch's defaults
}

func newStore(dt tensor.Dtype, seed uint64) *store {
	return &store{dt: dt, rng: rand.New(rand.NewPCG(seed, seed^0x5eed_1e55))}
}

// newStoreInit is newStore with the initialisation o.Init for embed, linear and bias.
func newStoreInit(o Options) *store {
	s := newStore(o.Dtype, o.Seed)
	s.torch = o.Init == arch.InitTorch
	return s
}

// benchStd is the standard deviation of arch.InitNormal's weights.
const benchStd = 0.02

// embed creates an embedding table: N(0, 0.02²), or N(0, 1) under arch.InitTorch.
func (s *store) embed(name string, g Group, rows, cols int) *tensor.Dense {
	if s.torch {
		return s.add(name, g, rows, cols, 1, 0)
	}
	return s.add(name, g, rows, cols, benchStd, 0)
}

// linear creates an in×out weight matrix: N(0, 0.02²), or U(±1/√in) under arch.InitTorch.
func (s *store) linear(name string, g Group, in, out int) *tensor.Dense {
	if s.torch {
		return s.uniform(name, g, in, out, 1/math.Sqrt(float64(in)))
	}
	return s.add(name, g, in, out, benchStd, 0)
}

// bias creates the bias of a linear map with fan-in in: 0, or U(±1/√in) under arch.InitTorch.
func (s *store) bias(name string, g Group, out, in int) *tensor.Dense {
	if s.torch {
		return s.uniform(name, g, 1, out, 1/math.Sqrt(float64(in)))
	}
	return s.add(name, g, 1, out, 0, 0)
}

// uniform creates a rows×cols parameter drawn from U(−bound, bound).
func (s *store) uniform(name string, g Group, rows, cols int, bound float64) *tensor.Dense {
	v := s.add(name, g, rows, cols, 0, 0)
	s.fill(v, func() float64 { return (2*s.rng.Float64() - 1) * bound })
	return v
}

// fill sets every entry of v, in order, to the next value of draw. It takes v's data once:
// Dense.Data builds its slice by reflection, which per entry cost a paper-size model's
// construction most of its second.
func (s *store) fill(v *tensor.Dense, draw func() float64) {
	switch d := v.Data().(type) {
	case []float32:
		for i := range d {
			d[i] = float32(draw())
		}
	case []float64:
		for i := range d {
			d[i] = draw()
		}
	}
}

// add creates a rows×cols parameter; std > 0 draws N(0, std²), else every entry is fill.
func (s *store) add(name string, g Group, rows, cols int, std, fill float64) *tensor.Dense {
	v := tensor.New(tensor.Of(s.dt), tensor.WithShape(rows, cols))
	gr := tensor.New(tensor.Of(s.dt), tensor.WithShape(rows, cols))
	s.fill(v, func() float64 {
		if std > 0 {
			return s.rng.NormFloat64() * std
		}
		return fill
	})
	s.params = append(s.params, Param{Name: name, Group: g, Value: v, Grad: gr})
	return v
}

func (s *store) count() int {
	n := 0
	for _, p := range s.params {
		n += p.Value.Shape().TotalSize()
	}
	return n
}

// outputLayout says how a model's output logits map to the tunnel's classes.
type outputLayout struct {
	width int // logits per scored position
	off   int // output index of class 0
	tied  bool
}

func layoutFor(t tunnels.Tunnel) outputLayout {
	if off, ok := t.ClassTokens(); ok {
		return outputLayout{width: t.Vocab(), off: off, tied: true}
	}
	return outputLayout{width: t.Classes(), off: 0}
}

// classDists writes softmax over the class logits [off, off+C) of each row into q.
func classDists[T Float](logits []T, width, off, c int, q []float64) {
	rows := len(logits) / width
	for r := 0; r < rows; r++ {
		row := logits[r*width+off : r*width+off+c]
		mx := float64(row[0])
		for _, v := range row[1:] {
			mx = max(mx, float64(v))
		}
		s := 0.0
		qr := q[r*c : (r+1)*c]
		for i, v := range row {
			qr[i] = expF64(float64(v) - mx)
			s += qr[i]
		}
		for i := range qr {
			qr[i] /= s
		}
	}
}

// construct completes the options for a tunnel, checks them and builds the model at their
// precision with f32 or f64 (the configuration is already validated).
func construct(t tunnels.Tunnel, o Options, f32, f64 func(Options) Model) (Model, error) {
	o = o.withDefaults(t)
	if err := o.check(t); err != nil {
		return nil, err
	}
	if o.Dtype == tensor.Float64 {
		return f64(o), nil
	}
	return f32(o), nil
}
