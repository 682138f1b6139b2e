//go:build !amd64 || purego

package gemm

// copySlivers packs slivers groups of mr consecutive elements from each of rows rows of
// src (ld apart) into A slivers back to back (group s at dst[s·mr·rows:]), reading each row
// of src once.
func copySlivers(dst, src []float32, ld, rows, slivers int) {
	for l := 0; l < rows; l++ {
		row := src[l*ld : l*ld+slivers*mr]
		for s := 0; s < slivers; s++ {
			copy(dst[s*mr*rows+l*mr:s*mr*rows+(l+1)*mr], row[s*mr:(s+1)*mr])
		}
	}
}

// copyBSlivers packs slivers groups of nr consecutive elements from each of rows rows of
// src (ld apart) into B slivers dstride elements apart (group s, row l at
// dst[s·dstride+l·nr:]), reading each row of src once.
func copyBSlivers(dst, src []float32, ld, rows, slivers, dstride int) {
	for l := 0; l < rows; l++ {
		row := src[l*ld : l*ld+slivers*nr]
		for s := 0; s < slivers; s++ {
			copy(dst[s*dstride+l*nr:s*dstride+(l+1)*nr], row[s*nr:(s+1)*nr])
		}
	}
}
