package models

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"windtunnel/backends/accel"
)

// devKernel is a kernel with a device version, run by Resident.
type devKernel interface {
	// devSetup allocates (through x.r) what the kernel keeps between its passes, into x.st.
	devSetup(x *devCall) error
	// devForward queues the forward pass: inputs x.in, output x.out.
	devForward(x *devCall) error
	// devBackward queues the backward pass: every differentiable input's gradient into x.gin
	// from x.gout (or the scalar x.gs), overwriting.
	devBackward(x *devCall) error
}

// devState is what one kernel node keeps on the device between its forward and backward.
type devState struct {
	saved []accel.Ptr
	mask  []float64 // the head mask last sent to the device (attention)
}

// devCall is one kernel node's buffers and shapes as its device passes see them.
type devCall struct {
	r        *Resident
	d        accel.Device
	in       []accel.Ptr
	inShape  []tensor.Shape
	out      accel.Ptr
	outShape tensor.Shape
	st       *devState
	gout     accel.Ptr
	gs       float32
	gin      []accel.Ptr
}

// save allocates n elements kept by the kernel.
func (x *devCall) save(n int) (accel.Ptr, error) {
	p, err := x.r.alloc(n)
	if err != nil {
		return accel.Ptr{}, err
	}
	x.st.saved = append(x.st.saved, p)
	return p, nil
}

func (r *Resident) call(ch []*G.Node, arity int) (*devCall, error) {
	x := &devCall{r: r, d: r.d}
	for _, c := range ch[:arity] {
		p, ok := r.bufs[c]
		if !ok {
			return nil, fmt.Errorf("input %s is not planned", c.Name())
		}
		x.in = append(x.in, p)
		x.inShape = append(x.inShape, c.Shape())
	}
	return x, nil
}

func (r *Resident) planForward(n *G.Node, op *fwdOp, ch []*G.Node, states map[*fwdOp]*devState) error {
	k, ok := op.k.(devKernel)
	if !ok {
		return fmt.Errorf("%s: %w", op.k.name(), ErrNoDeviceOp)
	}
	x, err := r.call(ch, op.arity)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if op.scalar {
		x.out = r.scal // the loss, read back with the gradients' norm
	} else if x.out, err = r.alloc(size(n)); err != nil {
		return err
	}
	x.outShape = n.Shape()
	x.st = &devState{}
	if err := k.devSetup(x); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	states[op] = x.st
	r.bufs[n] = x.out
	r.plan = append(r.plan, func() error {
		if err := k.devForward(x); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		return nil
	})
	return nil
}

func (r *Resident) planBackward(n *G.Node, b *bwdOp, ch []*G.Node, states map[*fwdOp]*devState, gins map[*bwdOp][]accel.Ptr, consts map[*G.Node]float32) error {
	f := b.f
	k, ok := f.k.(devKernel)
	if !ok {
		return fmt.Errorf("d%s: %w", f.k.name(), ErrNoDeviceOp)
	}
	st := states[f]
	if st == nil || len(ch) != f.arity+2 {
		return fmt.Errorf("%s: its forward pass is not planned", b)
	}
	x, err := r.call(ch, f.arity)
	if err != nil {
		return fmt.Errorf("%s: %w", b, err)
	}
	x.st = st
	x.out = r.bufs[ch[f.arity]]
	x.outShape = ch[f.arity].Shape()
	if f.scalar {
		gs, ok := consts[ch[f.arity+1]]
		if !ok {
			return fmt.Errorf("%s: the loss gradient is not a constant: %w", b, ErrNoDeviceOp)
		}
		x.gs = gs
	} else if x.gout, ok = r.bufs[ch[f.arity+1]]; !ok {
		return fmt.Errorf("%s: output gradient not planned", b)
	}
	x.gin = make([]accel.Ptr, f.arity)
	for i, dif := range f.k.diff(f.arity) {
		if !dif {
			continue
		}
		if x.gin[i], err = r.alloc(size(ch[i])); err != nil {
			return err
		}
	}
	gins[b] = x.gin
	r.bufs[n] = x.gin[b.first]
	r.plan = append(r.plan, func() error {
		if err := k.devBackward(x); err != nil {
			return fmt.Errorf("%s: %w", b, err)
		}
		return nil
	})
	return nil
}
