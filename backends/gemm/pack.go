package gemm

// Panel layouts of the Go backend: a B sliver holds kb rows of nr consecutive columns of
// op(B), row after row (element (l, j) at l·nr + j); an A sliver holds kb columns of mr
// consecutive rows of op(A), column after column (element (i, l) at l·mr + i). Lanes past
// the edge of the matrix are zero, so the micro-kernel always computes a whole tile.

// packBSliverT packs rows p0..p0+kb and columns j0..j0+nb (nb ≤ nr) of op(B) = Bᵀ (B
// transposed) into dst (length ≥ nr·kb). Untransposed B is packed by rows (packBRows).
func packBSliverT(dst []float32, b []float32, ldb, j0, nb, p0, kb int) {
	dst = dst[:nr*kb]
	// op(B)(l, j) = b[j·ldb + l]: each column of op(B) is contiguous.
	for c := 0; c < nb; c++ {
		src := b[(j0+c)*ldb+p0 : (j0+c)*ldb+p0+kb]
		for l, v := range src {
			dst[l*nr+c] = v
		}
	}
	if nb < nr {
		for l := 0; l < kb; l++ {
			clear(dst[l*nr+nb : (l+1)*nr])
		}
	}
}

// packBRows packs rows l0..l1 of the k block at row p0 (kb rows) of op(B) = B
// (untransposed), every sliver of its n columns, into the block's slivers at dst (sliver s
// at s·nr·kb), reading each row of b once.
func packBRows(dst []float32, b []float32, ldb, n, p0, kb, l0, l1 int) {
	whole := n / nr
	copyBSlivers(dst[l0*nr:], b[(p0+l0)*ldb:], ldb, l1-l0, whole, nr*kb)
	if nb := n - whole*nr; nb > 0 {
		d := dst[whole*nr*kb : (whole+1)*nr*kb]
		for l := l0; l < l1; l++ {
			dl := d[l*nr : (l+1)*nr]
			copy(dl, b[(p0+l)*ldb+whole*nr:(p0+l)*ldb+n])
			clear(dl[nb:])
		}
	}
}

// packABlock packs rows i0..i0+mb and columns p0..p0+kb of op(A) into consecutive A
// slivers of mr rows (the last one zero-padded) in dst.
func packABlock(dst []float32, trans bool, a []float32, lda, i0, mb, p0, kb int) {
	start := 0
	if trans && mb >= mr {
		// op(A)(i, l) = a[l·lda + i]: the whole slivers in one pass over the rows of a.
		start = mb / mr * mr
		copySlivers(dst, a[p0*lda+i0:], lda, kb, mb/mr)
	}
	for r0 := start; r0 < mb; r0 += mr {
		rows := min(mr, mb-r0)
		d := dst[r0*kb : (r0+mr)*kb]
		if trans {
			// op(A)(i, l) = a[l·lda + i]: each column of op(A) is contiguous.
			for l := 0; l < kb; l++ {
				off := (p0+l)*lda + i0 + r0
				dl := d[l*mr : (l+1)*mr]
				copy(dl, a[off:off+rows])
				clear(dl[rows:])
			}
			continue
		}
		if rows == mr {
			// Six rows read side by side, the sliver written in order.
			off := (i0+r0)*lda + p0
			a0, a1, a2 := a[off:off+kb], a[off+lda:off+lda+kb], a[off+2*lda:off+2*lda+kb]
			a3, a4, a5 := a[off+3*lda:off+3*lda+kb], a[off+4*lda:off+4*lda+kb], a[off+5*lda:off+5*lda+kb]
			for l := range a0 {
				dl := d[l*mr : l*mr+mr : l*mr+mr]
				dl[0], dl[1], dl[2], dl[3], dl[4], dl[5] = a0[l], a1[l], a2[l], a3[l], a4[l], a5[l]
			}
			continue
		}
		for r := 0; r < rows; r++ {
			off := (i0+r0+r)*lda + p0
			for l, v := range a[off : off+kb] {
				d[l*mr+r] = v
			}
		}
		if rows < mr {
			for l := 0; l < kb; l++ {
				clear(d[l*mr+rows : (l+1)*mr])
			}
		}
	}
}
