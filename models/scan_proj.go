package models

import (
	"fmt"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
)

// scanProjKernel is the selective scan with its B and C projections in one op: [B C] =
// u·[W_B W_C], one product of u (packed once) by the two weights side by side, then
// scanKernel. Two linear ops instead would pack u and call the micro-kernels twice in each
// pass, and leave two more gradient contributions to u for the graph to sum.
//
// Inputs: u (N·T)×E, δ (N·T)×E, Alog E×S, W_B E×S, W_C E×S, D 1×E, z (N·T)×E; output
// (N·T)×E, as scanKernel's with W_B and W_C in place of B and C.
type scanProjKernel[T Float] struct {
	be   gemm.Backend
	scan scanKernel[T]
	w    []T // E×2S: [W_B W_C]
	bc   []T // (N·T)×2S: [B C], and in the backward pass their gradients
	b, c []T // (N·T)×S each: B and C for the scan
	db   []T // (N·T)×S each: the scan's gradients of B and C
	dc   []T
	dw   []T // E×2S: the gradient of [W_B W_C]
}

func (k *scanProjKernel[T]) name() string { return "SelectiveScanProj" }
func (k *scanProjKernel[T]) diff(n int) []bool {
	return []bool{true, true, true, true, true, true, true}
}

// scanShapes is the scan's input shapes for the op's: B and C (N·T)×S in place of W_B and W_C.
func scanShapes(in []tensor.Shape) []tensor.Shape {
	m, _ := rows2(in[0])
	_, s := rows2(in[3])
	bc := tensor.Shape{m, s}
	return []tensor.Shape{in[0], in[1], in[2], bc, bc, in[5], in[6]}
}

func (k *scanProjKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	_, e := rows2(in[0])
	_, s := rows2(in[2])
	for _, i := range []int{3, 4} {
		if r, c := rows2(in[i]); r != e || c != s {
			return nil, fmt.Errorf("projection %d %v is not %d×%d", i, in[i], e, s)
		}
	}
	return k.scan.outShape(scanShapes(in))
}

// scanIn is the scan's inputs: the op's with B and C (k.b, k.c, m×s) for W_B and W_C.
func (k *scanProjKernel[T]) scanIn(in []*tensor.Dense, m, s int) []*tensor.Dense {
	return []*tensor.Dense{in[0], in[1], in[2], dense2(k.b, m, s), dense2(k.c, m, s), in[5], in[6]}
}

func (k *scanProjKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	u, wb, wc := data[T](in[0]), data[T](in[3]), data[T](in[4])
	m, e := rows2(in[0].Shape())
	_, s := rows2(in[3].Shape())
	k.w, k.bc = grow(k.w, e*2*s), grow(k.bc, m*2*s)
	k.b, k.c = grow(k.b, m*s), grow(k.c, m*s)
	interleave(k.w, wb, wc, e, s)
	mm(k.be, false, false, m, 2*s, e, 1, u, e, k.w, 2*s, 0, k.bc, 2*s)
	deinterleave(k.b, k.c, k.bc, m, s)
	return k.scan.forward(k.scanIn(in, m, s), out)
}

func (k *scanProjKernel[T]) backward(in []*tensor.Dense, out, gout *tensor.Dense, gs float64, gin []*tensor.Dense) {
	u, du := data[T](in[0]), data[T](gin[0])
	m, e := rows2(in[0].Shape())
	_, s := rows2(in[3].Shape())
	k.db, k.dc, k.dw = grow(k.db, m*s), grow(k.dc, m*s), grow(k.dw, e*2*s)
	sg := []*tensor.Dense{gin[0], gin[1], gin[2], dense2(k.db, m, s), dense2(k.dc, m, s), gin[5], gin[6]}
	k.scan.backward(k.scanIn(in, m, s), out, gout, gs, sg)
	// d[B C] = [dB dC]; d[W_B W_C] = uᵀ·d[B C]; du += d[B C]·[W_B W_C]ᵀ.
	interleave(k.bc, k.db, k.dc, m, s)
	mm(k.be, true, false, e, 2*s, m, 1, u, e, k.bc, 2*s, 0, k.dw, 2*s)
	deinterleave(data[T](gin[3]), data[T](gin[4]), k.dw, e, s)
	mm(k.be, false, true, m, e, 2*s, 1, k.bc, 2*s, k.w, 2*s, 1, du, e)
}

// dense2 is an r×c tensor over v (r·c values).
func dense2[T Float](v []T, r, c int) *tensor.Dense {
	return tensor.New(tensor.WithShape(r, c), tensor.WithBacking(v[:r*c]))
}

// interleave sets row i of dst (r×2c) to row i of a then row i of b (r×c each).
func interleave[T Float](dst, a, b []T, r, c int) {
	for i := 0; i < r; i++ {
		copy(dst[2*i*c:(2*i+1)*c], a[i*c:(i+1)*c])
		copy(dst[(2*i+1)*c:(2*i+2)*c], b[i*c:(i+1)*c])
	}
}

// deinterleave is interleave's inverse: row i of src (r×2c) to rows i of a and b.
func deinterleave[T Float](a, b, src []T, r, c int) {
	for i := 0; i < r; i++ {
		copy(a[i*c:(i+1)*c], src[2*i*c:(2*i+1)*c])
		copy(b[i*c:(i+1)*c], src[(2*i+1)*c:(2*i+2)*c])
	}
}
