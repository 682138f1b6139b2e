//go:build amd64 && !purego

package gemm

//go:noescape
func copyRows16(dst, src *float32, ld, rows int)

//go:noescape
func copyRows6(dst, src *float32, ld, rows int)

// copyRows copies w (nr or mr) consecutive elements from each of rows rows of src, ld
// apart, to dst back to back.
func copyRows(dst, src []float32, ld, rows, w int) {
	if rows == 0 {
		return
	}
	_, _ = dst[rows*w-1], src[(rows-1)*ld+w-1]
	if w == nr {
		copyRows16(&dst[0], &src[0], ld, rows)
		return
	}
	copyRows6(&dst[0], &src[0], ld, rows)
}
