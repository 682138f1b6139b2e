package accel

import (
	_ "embed"
)

// Source is the CUDA C source of every kernel in the catalogue.
//
//go:embed kernels.cu
var Source string

// Catalogue returns every kernel's argument kinds, in order, as Go launches them; the
// contract test holds it equal to the signatures in Source.
func Catalogue() map[string][]Kind {
	p, ip, i, f := FloatPtr, IntPtr, Int, Float
	return map[string][]Kind{
		"wt_fill":      {p, f, i},
		"wt_copy":      {p, p, i},
		"wt_add":       {p, p, p, i},
		"wt_scale":     {p, p, f, i},
		"wt_embed_fwd": {p, p, p, ip, i, i, i},
		"wt_embed_bwd": {p, p, p, ip, i, i, i},
		"wt_rms_fwd":   {p, p, p, p, ip, i, i, f},
		"wt_rms_bwd":   {p, p, p, p, p, p, ip, i, i},
		"wt_bias_act":  {p, p, p, p, f, i, i, i},
		"wt_gelu_bwd":  {p, p, p, p, f, i, i},
		"wt_colsum":    {p, p, i, i},
		"wt_attn_fwd":  {p, p, p, p, p, p, i, i, i, i, i, f},
		"wt_attn_bwd":  {p, p, p, p, p, p, p, p, p, p, i, i, i, i, i, f},
		"wt_ce_fwd":    {p, p, p, ip, p, i, i, i, i},
		"wt_ce_bwd":    {p, p, ip, p, f, i, i, i, i},
		"wt_sum":       {p, p, f, i},
		"wt_sumsq":     {p, p, i},
		"wt_adamw":     {p, p, p, p, p, p, i, f, f, f, f, f, f, f, f},
	}
}

// Elementwise is the grid of a grid-stride kernel over n elements.
func Elementwise(n int) Grid {
	return Grid{Blocks: max(1, min((n+255)/256, 8192)), Threads: 256}
}

// PerRow is the grid of a kernel that gives each of rows rows a block reducing over width
// elements (a power-of-two block, at most 1024 threads).
func PerRow(rows, width int) Grid {
	return Grid{Blocks: max(1, min(rows, 65535)), Threads: pow2(width, 32, 256)}
}

// PerItem is the grid of the attention kernels: a block a (sequence, head), a thread a row.
func PerItem(items, t int) Grid {
	return Grid{Blocks: max(1, min(items, 65535)), Threads: pow2(t, 32, 1024)}
}

// Reduction is the grid of wt_sum and wt_sumsq over n elements.
func Reduction(n int) Grid {
	return Grid{Blocks: max(1, min((n+255)/256, 1024)), Threads: 256}
}

// pow2 is the smallest power of two ≥ n, clamped to [lo, hi].
func pow2(n, lo, hi int) int {
	p := lo
	for p < n && p < hi {
		p *= 2
	}
	return p
}

// Fill sets n elements at y to v.
func Fill(d Device, y Ptr, v float32, n int) error {
	return d.Launch("wt_fill", Elementwise(n), y, v, int32(n))
}

// Copy copies n elements from x to y.
func Copy(d Device, y, x Ptr, n int) error {
	return d.Launch("wt_copy", Elementwise(n), y, x, int32(n))
}

// Add sets y = a + b over n elements.
func Add(d Device, y, a, b Ptr, n int) error {
	return d.Launch("wt_add", Elementwise(n), y, a, b, int32(n))
}

// Scale sets y = s·x over n elements.
func Scale(d Device, y, x Ptr, s float32, n int) error {
	return d.Launch("wt_scale", Elementwise(n), y, x, s, int32(n))
}
