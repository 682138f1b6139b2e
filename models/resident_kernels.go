package models

import (
	"fmt"
	"math"
	"slices"

	"windtunnel/backends/accel"
)

// The device versions of the transformer's kernels: each mirrors its CPU forward and backward.

func (k *embedKernel[T]) devSetup(*devCall) error { return nil }

func (k *embedKernel[T]) devForward(x *devCall) error {
	rows, d := x.outShape[0], x.outShape[1]
	return accel.EmbedForward(x.d, x.out, x.in[0], x.in[1], x.r.ids, rows, k.t, d)
}

func (k *embedKernel[T]) devBackward(x *devCall) error {
	rows, d := x.outShape[0], x.outShape[1]
	return accel.EmbedBackward(x.d, x.gin[0], x.gin[1], x.gout, x.r.ids, x.inShape[0][0], x.inShape[1][0], rows, k.t, d)
}

// rmsKernel keeps the inverse norms and, gathering, the row map.
func (k *rmsKernel[T]) devSetup(x *devCall) error {
	rows := x.outShape[0]
	if _, err := x.save(rows); err != nil {
		return err
	}
	if k.gather == nil {
		x.st.saved = append(x.st.saved, accel.Ptr{})
		return nil
	}
	src, err := x.save(rows)
	if err != nil {
		return err
	}
	m := make([]int32, rows)
	for r := range m {
		m[r] = int32(k.gather.row(r))
	}
	return x.d.WriteInts(src, m)
}

func (k *rmsKernel[T]) devForward(x *devCall) error {
	return accel.RMSForward(x.d, x.out, x.st.saved[0], x.in[0], x.in[1], x.st.saved[1], x.outShape[0], x.outShape[1], float32(k.eps))
}

func (k *rmsKernel[T]) devBackward(x *devCall) error {
	return accel.RMSBackward(x.d, x.gin[0], x.gin[1], x.gout, x.in[0], x.in[1], x.st.saved[0], x.st.saved[1], x.outShape[0], x.inShape[0][0], x.outShape[1])
}

// linKernel keeps the GELU's pre-activation and tanh (the exact form: Φ), and a scratch gradient.
func (k *linKernel[T]) devSetup(x *devCall) error {
	n := x.outShape.TotalSize()
	for range 3 {
		if _, err := x.save(n); err != nil {
			return err
		}
	}
	return nil
}

func (k *linKernel[T]) devForward(x *devCall) error {
	m, kin := x.inShape[0][0], x.inShape[0][1]
	o := x.outShape[1]
	i := 2
	var b accel.Ptr
	if k.bias {
		b = x.in[i]
		i++
	}
	var beta float32
	if k.res {
		if err := accel.Copy(x.d, x.out, x.in[i], m*o); err != nil {
			return err
		}
		beta = 1
	}
	g := float32(k.scale())
	if g == 0 {
		return nil // a gate is only allowed with a residual: the output is the residual
	}
	ldw := o
	if k.transW {
		ldw = kin
	}
	if err := x.d.Gemm(false, k.transW, m, o, kin, g, x.in[0], kin, x.in[1], ldw, beta, x.out, o); err != nil {
		return err
	}
	if !k.bias && k.act == actNone {
		return nil
	}
	return accel.BiasAct(x.d, x.out, x.st.saved[0], x.st.saved[1], b, g, m, o, k.devAct())
}

func (k *linKernel[T]) devBackward(x *devCall) error {
	m, kin := x.inShape[0][0], x.inShape[0][1]
	o := x.outShape[1]
	n := m * o
	g, dp := x.gout, x.st.saved[2]
	if k.act != actNone {
		if err := accel.GELUBackward(x.d, dp, g, x.st.saved[0], x.st.saved[1], 1, n, k.devAct()); err != nil {
			return err
		}
		g = dp
	}
	if s := float32(k.scale()); s != 1 {
		if err := accel.Scale(x.d, dp, g, s, n); err != nil {
			return err
		}
		g = dp
	}
	xin, w, dx, dw := x.in[0], x.in[1], x.gin[0], x.gin[1]
	var err error
	if k.transW {
		err = x.d.Gemm(false, false, m, kin, o, 1, g, o, w, kin, 0, dx, kin)
		if err == nil {
			err = x.d.Gemm(true, false, o, kin, m, 1, g, o, xin, kin, 0, dw, kin)
		}
	} else {
		err = x.d.Gemm(false, true, m, kin, o, 1, g, o, w, o, 0, dx, kin)
		if err == nil {
			err = x.d.Gemm(true, false, kin, o, m, 1, xin, kin, g, o, 0, dw, o)
		}
	}
	if err != nil {
		return err
	}
	i := 2
	if k.bias {
		if err := accel.ColSum(x.d, x.gin[i], g, m, o); err != nil {
			return err
		}
		i++
	}
	if k.res {
		return accel.Copy(x.d, x.gin[i], x.gout, n)
	}
	return nil
}

// qkvKernel needs nothing kept: its three products write the fused output's column blocks
// (rows 3d apart), and the backward pass reads the gradient's.
func (k *qkvKernel[T]) devSetup(*devCall) error { return nil }

func (k *qkvKernel[T]) devForward(x *devCall) error {
	m, d := x.inShape[0][0], x.inShape[0][1]
	for i := 0; i < 3; i++ {
		if err := x.d.Gemm(false, false, m, d, d, 1, x.in[0], d, x.in[1+i], d, 0, x.out.Add(i*d), 3*d); err != nil {
			return err
		}
	}
	return nil
}

func (k *qkvKernel[T]) devBackward(x *devCall) error {
	m, d := x.inShape[0][0], x.inShape[0][1]
	for i := 0; i < 3; i++ {
		var beta float32
		if i > 0 {
			beta = 1
		}
		g := x.gout.Add(i * d)
		if err := x.d.Gemm(false, true, m, d, d, 1, g, 3*d, x.in[1+i], d, beta, x.gin[0], d); err != nil {
			return err
		}
		if err := x.d.Gemm(true, false, d, d, m, 1, x.in[0], d, g, 3*d, 0, x.gin[1+i], d); err != nil {
			return err
		}
	}
	return nil
}

// attnKernel keeps the attention weights, a scratch for their gradient and the head mask.
func (k *attnKernel[T]) devSetup(x *devCall) error {
	m := x.inShape[0][0]
	if m%k.t != 0 {
		return fmt.Errorf("rows %d not a multiple of length %d", m, k.t)
	}
	nt := m / k.t * k.heads * k.t * k.t
	for _, n := range []int{nt, nt, k.heads} {
		if _, err := x.save(n); err != nil {
			return err
		}
	}
	return nil
}

// dims are the sequences, their length, the heads, the width d (the input is (n·t)×3d) and
// the scores' scale.
func (k *attnKernel[T]) dims(x *devCall) (n, t, h, d int, scale float32) {
	d = x.inShape[0][1] / 3
	return x.inShape[0][0] / k.t, k.t, k.heads, d, float32(1 / math.Sqrt(float64(d/k.heads)))
}

func (k *attnKernel[T]) devForward(x *devCall) error {
	if !slices.Equal(x.st.mask, k.mask) {
		m := make([]float32, len(k.mask))
		for i, v := range k.mask {
			m[i] = float32(v)
		}
		if err := x.d.Write(x.st.saved[2], m); err != nil {
			return err
		}
		x.st.mask = append(x.st.mask[:0], k.mask...)
	}
	n, t, h, d, scale := k.dims(x)
	s, qkv := x.st.saved, x.in[0]
	return accel.AttnForward(x.d, x.out, s[0], qkv, qkv.Add(d), qkv.Add(2*d), s[2], n, t, h, d, 3*d, scale)
}

func (k *attnKernel[T]) devBackward(x *devCall) error {
	n, t, h, d, scale := k.dims(x)
	s, qkv, dqkv := x.st.saved, x.in[0], x.gin[0]
	return accel.AttnBackward(x.d, dqkv, dqkv.Add(d), dqkv.Add(2*d), s[1], s[0], qkv, qkv.Add(d), qkv.Add(2*d), x.gout, s[2], n, t, h, d, 3*d, scale)
}

// ceKernel keeps each row's loss and softmax.
func (k *ceKernel[T]) devSetup(x *devCall) error {
	rows := x.inShape[0][0]
	if _, err := x.save(rows); err != nil {
		return err
	}
	_, err := x.save(x.inShape[0].TotalSize())
	return err
}

func (k *ceKernel[T]) softPtr(x *devCall) accel.Ptr {
	if k.softTargets() {
		return x.r.soft
	}
	return accel.Ptr{}
}

func (k *ceKernel[T]) devForward(x *devCall) error {
	rows, o := x.inShape[0][0], x.inShape[0][1]
	return accel.CEForward(x.d, x.out, x.st.saved[0], x.st.saved[1], x.in[0], x.r.tgt, k.softPtr(x), rows, o, k.off, k.c)
}

func (k *ceKernel[T]) devBackward(x *devCall) error {
	rows, o := x.inShape[0][0], x.inShape[0][1]
	return accel.CEBackward(x.d, x.gin[0], x.st.saved[1], x.r.tgt, k.softPtr(x), x.gs, rows, o, k.off, k.c)
}

// devAct is the accel kernels' code of the kernel's activation.
func (k *linKernel[T]) devAct() accel.Act {
	switch k.act {
	case actGELU:
		return accel.ActGELUTanh
	case actGELUErf:
		return accel.ActGELUErf
	}
	return accel.ActNone
}
