package models

import "fmt"

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
	ars, aps := lda, 1
	if transA {
		ars, aps = 1, lda
	}
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
		for j0 := 0; j0 < nhi; j0 += 16 {
			nc := min(16, nhi-j0)
			ao, bo, co := i0*ars+klo*aps, klo*ldb+j0, i0*ldc+j0
			if (rows-1)*ldc+co+nc > len(c) || (kk > 0 && ((rows-1)*ars+(kk-1)*aps+ao >= len(a) || (kk-1)*ldb+bo+nc > len(b))) {
				panic(fmt.Sprintf("models: smm %dx%dx%d out of range (a %d, b %d, c %d)", m, n, k, len(a), len(b), len(c)))
			}
			var ap, bp *float32
			if kk > 0 {
				ap, bp = &a[ao], &b[bo]
			}
			if rows == 4 {
				smm4x16(kk, ap, ars, aps, bp, ldb, &c[co], ldc, nc, alpha)
				continue
			}
			for r := 0; r < rows; r++ {
				var arp *float32
				if kk > 0 {
					arp = &a[ao+r*ars]
				}
				smm1x16(kk, arp, aps, bp, ldb, &c[co+r*ldc], nc, alpha)
			}
		}
	}
}

// transpose writes the r×c block of a (lda) transposed into dst (c×r, row-major).
func transpose[T Float](dst []T, a []T, lda, r, c int) {
	for i := 0; i < r; i++ {
		row := a[i*lda : i*lda+c]
		for j, v := range row {
			dst[j*r+i] = v
		}
	}
}
