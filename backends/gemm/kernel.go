package gemm

// kernel is a micro-kernel of the Go backend: full computes one mr×nr tile of C from an A
// sliver and a B sliver of k steps (see pack.go), C = alpha·acc + beta·C with the two
// products rounded before the sum, not reading C when beta is zero.
type kernel struct {
	name string
	full func(k int, a, b, c []float32, ldc int, alpha, beta float32)
	// rows, when set, is full with A read in place from mr rows of a row-major matrix
	// (row i at a[i·lda:]), with the same sums and roundings: op(A) untransposed is then
	// not packed.
	rows func(k int, a []float32, lda int, b, c []float32, ldc int, alpha, beta float32)
	// pair and pairRows, when set, are full and rows for two whole tiles side by side (a 6×2nr
	// tile of C) from two B slivers bs elements apart, with the same sums and roundings as two
	// calls.
	pair     func(k int, a, b []float32, bs int, c []float32, ldc int, alpha, beta float32)
	pairRows func(k int, a []float32, lda int, b []float32, bs int, c []float32, ldc int, alpha, beta float32)
}

// genericKernel is the portable micro-kernel, used where no assembly one runs.
var genericKernel = kernel{name: "generic Go 6×16", full: kernelGeneric}

// tile computes the rows×cols corner (rows ≤ mr, cols ≤ nr) of a tile at c: whole tiles
// directly, edge tiles through a scratch tile whose result is scaled and added here with
// the same roundings as the kernel's own.
// t is the caller's scratch tile (mr·nr elements).
func (kn kernel) tile(k int, a, b, c []float32, ldc, rows, cols int, alpha, beta float32, t []float32) {
	if rows == mr && cols == nr {
		kn.full(k, a, b, c, ldc, alpha, beta)
		return
	}
	kn.full(k, a, b, t, nr, 1, 0)
	storeEdge(t, c, ldc, rows, cols, alpha, beta)
}

// storeEdge sets the rows×cols corner of C at c to alpha·t + beta·C, t a tile of
// unscaled sums (row stride nr), with the roundings of the kernels' own epilogue.
func storeEdge(t, c []float32, ldc, rows, cols int, alpha, beta float32) {
	for i := 0; i < rows; i++ {
		row := c[i*ldc : i*ldc+cols]
		ti := t[i*nr : i*nr+cols]
		if beta == 0 {
			for j := range row {
				row[j] = alpha * ti[j]
			}
			continue
		}
		for j := range row {
			// The conversions keep the compiler from fusing the products into one FMA.
			row[j] = float32(alpha*ti[j]) + float32(beta*row[j])
		}
	}
}

// kernelGeneric is the micro-kernel in plain Go: one row of the tile at a time, its
// sixteen sums in locals (registers) while the row's k steps run.
func kernelGeneric(k int, a, b, c []float32, ldc int, alpha, beta float32) {
	a, b = a[:mr*k], b[:nr*k]
	for i := 0; i < mr; i++ {
		var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15 float32
		for l := 0; l < k; l++ {
			ai := a[l*mr+i]
			bl := b[l*nr : l*nr+nr : l*nr+nr]
			c0 += ai * bl[0]
			c1 += ai * bl[1]
			c2 += ai * bl[2]
			c3 += ai * bl[3]
			c4 += ai * bl[4]
			c5 += ai * bl[5]
			c6 += ai * bl[6]
			c7 += ai * bl[7]
			c8 += ai * bl[8]
			c9 += ai * bl[9]
			c10 += ai * bl[10]
			c11 += ai * bl[11]
			c12 += ai * bl[12]
			c13 += ai * bl[13]
			c14 += ai * bl[14]
			c15 += ai * bl[15]
		}
		acc := [nr]float32{c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15}
		row := c[i*ldc : i*ldc+nr]
		if beta == 0 {
			for j := range row {
				row[j] = alpha * acc[j]
			}
			continue
		}
		for j := range row {
			// The conversions keep the compiler from fusing the products into one FMA.
			row[j] = float32(alpha*acc[j]) + float32(beta*row[j])
		}
	}
}
