//go:build !amd64 || purego

package gemm

// copyRows copies w (nr or mr) consecutive elements from each of rows rows of src, ld
// apart, to dst back to back.
func copyRows(dst, src []float32, ld, rows, w int) {
	for l := 0; l < rows; l++ {
		copy(dst[l*w:(l+1)*w], src[l*ld:l*ld+w])
	}
}
