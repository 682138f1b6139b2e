package gemm

// kernel is a micro-kernel of the Go backend: full computes one mr×nr tile of C from an A
// sliver and a B sliver of k steps (see pack.go), C = alpha·acc + beta·C with the two
// products rounded before the sum, not reading C when beta is zero.
type kernel struct {
	name string
	full func(k int, a, b, c []float32, ldc int, alpha, beta float32)
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

// kernelGeneric is the micro-kernel in plain Go.
func kernelGeneric(k int, a, b, c []float32, ldc int, alpha, beta float32) {
	var acc [mr * nr]float32
	a, b = a[:mr*k], b[:nr*k]
	for l := 0; l < k; l++ {
		bl := b[l*nr : (l+1)*nr]
		al := a[l*mr : (l+1)*mr]
		for i, ai := range al {
			row := acc[i*nr : (i+1)*nr]
			for j, bj := range bl {
				row[j] += ai * bj
			}
		}
	}
	for i := 0; i < mr; i++ {
		row := c[i*ldc : i*ldc+nr]
		ai := acc[i*nr : (i+1)*nr]
		if beta == 0 {
			for j := range row {
				row[j] = alpha * ai[j]
			}
			continue
		}
		for j := range row {
			row[j] = float32(alpha*ai[j]) + float32(beta*row[j])
		}
	}
}
