//go:build amd64 && !purego

package gemm

//go:noescape
func copySlivers6(dst, src *float32, ld, rows, slivers int)

//go:noescape
func copySlivers16(dst, src *float32, ld, rows, slivers, dstride int)

// copySlivers packs slivers groups of mr consecutive elements from each of rows rows of
// src (ld apart) into A slivers back to back (group s at dst[s·mr·rows:]), reading each row
// of src once.
func copySlivers(dst, src []float32, ld, rows, slivers int) {
	if rows == 0 || slivers == 0 {
		return
	}
	_, _ = dst[slivers*mr*rows-1], src[(rows-1)*ld+slivers*mr-1]
	copySlivers6(&dst[0], &src[0], ld, rows, slivers)
}

// copyBSlivers packs slivers groups of nr consecutive elements from each of rows rows of
// src (ld apart) into B slivers dstride elements apart (group s, row l at
// dst[s·dstride+l·nr:]), reading each row of src once.
func copyBSlivers(dst, src []float32, ld, rows, slivers, dstride int) {
	if rows == 0 || slivers == 0 {
		return
	}
	_, _ = dst[(slivers-1)*dstride+rows*nr-1], src[(rows-1)*ld+slivers*nr-1]
	copySlivers16(&dst[0], &src[0], ld, rows, slivers, dstride)
}
