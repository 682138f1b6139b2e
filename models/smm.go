package models

import (
	"fmt"
	"unsafe"
)

// Small float32 matrix products for attention, where each product is a few dozen rows and
// columns: the assembly kernels in smm_amd64.s avoid a foreign call and BLAS's per-call
// set-up for every (sequence, head).

// tri selects which part of a product smm computes, for causal attention.
type tri int

const (
	triFull  tri = iota // every row and column
	triCols             // row block i0..i0+3 only up to column i0+3 (lower-triangular C; the rest is not written)
	triLower            // row block i0..i0+3 sums p < i0+4 only (A lower-triangular, so exact)
	triUpper            // row block i0..i0+3 sums p ≥ i0 only (A upper-triangular, so exact)
)

// smm computes C = alpha·op(A)·B for row-major float32 matrices, C m×n, B k×n (ldb), op(A)
// m×k: A (lda) or, with transA, Aᵀ where A is k×m. mode restricts the product to a
// triangle (see tri). It needs haveAVX2.
func smm(mode tri, transA bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m <= 0 || n <= 0 {
		return
	}
	ars, aps := lda, 1
	if transA {
		ars, aps = 1, lda
	}
	// Every block below stays within these extents.
	if (m-1)*ldc+n > len(c) || (k > 0 && ((m-1)*ars+(k-1)*aps >= len(a) || (k-1)*ldb+n > len(b))) {
		panic(fmt.Sprintf("models: smm %dx%dx%d out of range (a %d, b %d, c %d)", m, n, k, len(a), len(b), len(c)))
	}
	pa, pb, pc := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c))
	at := func(p unsafe.Pointer, i int) *float32 { return (*float32)(unsafe.Add(p, 4*i)) }
	for i0 := 0; i0 < m; i0 += 4 {
		rows := min(4, m-i0)
		klo, khi, nhi := 0, k, n
		switch mode {
		case triCols:
			nhi = min(n, i0+rows)
		case triLower:
			khi = min(k, i0+rows)
		case triUpper:
			klo = min(k, i0)
		}
		kk := khi - klo
		ao := i0*ars + klo*aps
		for j0 := 0; j0 < nhi; j0 += 16 {
			nc := min(16, nhi-j0)
			var ap, bp *float32 // nil when nothing is summed: no pointer past an array
			if kk > 0 {
				ap, bp = at(pa, ao), at(pb, klo*ldb+j0)
			}
			if rows == 4 {
				smm4x16(kk, ap, ars, aps, bp, ldb, at(pc, i0*ldc+j0), ldc, nc, alpha)
				continue
			}
			for r := 0; r < rows; r++ {
				if kk > 0 {
					ap = at(pa, ao+r*ars)
				}
				smm1x16(kk, ap, aps, bp, ldb, at(pc, (i0+r)*ldc+j0), nc, alpha)
			}
		}
	}
}

// transpose32 writes the r×c block of a (lda) transposed into dst (c×r, row-major): 8×8
// blocks on the AVX2 kernel where it runs, the edges element by element.
func transpose32(dst []float32, a []float32, lda, r, c int) {
	if r <= 0 || c <= 0 {
		return
	}
	_, _ = dst[c*r-1], a[(r-1)*lda+c-1]
	r8, c8 := 0, 0 // the rows and columns done by 8×8 blocks
	if haveAVX2 {
		r8, c8 = r/8*8, c/8*8
		for i := 0; i < r8; i += 8 {
			for j := 0; j < c8; j += 8 {
				transpose8x8(&dst[j*r+i], r, &a[i*lda+j], lda)
			}
		}
	}
	pa := unsafe.Pointer(unsafe.SliceData(a))
	for j := 0; j < c; j++ {
		d := dst[j*r : (j+1)*r]
		p := unsafe.Add(pa, 4*j)
		i0 := 0
		if j < c8 {
			i0 = r8 // rows above are in the blocks
		}
		for i := i0; i < r; i++ {
			d[i] = *(*float32)(unsafe.Add(p, 4*i*lda))
		}
	}
}
