package accel

// ParityShape is one set of sizes a parity run launches every kernel at.
type ParityShape struct {
	Name          string
	N, T, H, D, V int // sequences, sequence length, heads, width, vocabulary
	O, C, Off     int // logits a row, classes scored, the first class's column
	Big           int // elements of the elementwise kernels and the reductions
}

// ParityShapes are the sizes of a parity run: odd ones (no size a multiple of a block, rows
// and widths longer than a block, attention rows longer than a warp) and the quick preset's
// (width 64, 4 heads, 40 positions, batch 8; the MLP's 4·64-wide activations).
func ParityShapes() []ParityShape {
	return []ParityShape{
		{Name: "odd", N: 3, T: 37, H: 3, D: 291, V: 7, O: 300, C: 6, Off: 2, Big: 5003},
		{Name: "quick", N: 8, T: 40, H: 4, D: 64, V: 24, O: 24, C: 20, Off: 4, Big: 8 * 40 * 4 * 64},
	}
}

// buffer describes one argument buffer of a parity case: its length and how it starts.
type buffer struct {
	n     int
	fill  byte // 'r' normal, 'p' positive, 'u' in (−1, 1), 'z' zeros, 'n' NaN (outputs), 'i' ints below bound, 'm' head mask, 'g' gather map
	bound int  // 'i': the ints' bound; 'g': the sequence length
}

// parityCase is one kernel launched on the same inputs on two devices: args are buffer
// indices (bufIdx) or scalars (int32, float32); a negative index is the null pointer. grid is
// the grid the model's launch helper (kernels.go, kernels_model.go) gives these sizes.
type parityCase struct {
	name, kernel string
	bufs         []buffer
	args         []any
	grid         Grid
}

type bufIdx int

// bufAt is a pointer off elements into buffer buf.
type bufAt struct {
	buf bufIdx
	off int
}

// parityCases launches every kernel of the catalogue at shape s, outputs filled with NaN
// first so an element a kernel fails to write shows.
func parityCases(s ParityShape) []parityCase {
	n, t, h, d, v := s.N, s.T, s.H, s.D, s.V
	rows, o, c, off, big := n*t, s.O, s.C, s.Off, s.Big
	r := func(k int) buffer { return buffer{n: k, fill: 'r'} }
	nan := func(k int) buffer { return buffer{n: k, fill: 'n'} }
	z := func(k int) buffer { return buffer{n: k, fill: 'z'} }
	pos := func(k int) buffer { return buffer{n: k, fill: 'p'} }
	ints := func(k, b int) buffer { return buffer{n: k, fill: 'i', bound: b} }
	mask := buffer{n: h, fill: 'm'}
	// The model's gather: positions 1 and t−2 of every sequence (distinct rows, as gathered
	// rows are in the model: the backward pass writes, not adds, their gradients).
	gather := buffer{n: n * 2, fill: 'g', bound: t}
	b := func(i int) bufIdx { return bufIdx(i) }
	null := bufIdx(-1)
	i32 := func(x int) int32 { return int32(x) }
	ew := Elementwise(big)
	return []parityCase{
		{"fill", "wt_fill", []buffer{nan(big)}, []any{b(0), float32(1.5), i32(big)}, ew},
		{"copy", "wt_copy", []buffer{nan(big), r(big)}, []any{b(0), b(1), i32(big)}, ew},
		{"add", "wt_add", []buffer{nan(big), r(big), r(big)}, []any{b(0), b(1), b(2), i32(big)}, ew},
		{"scale", "wt_scale", []buffer{nan(big), r(big)}, []any{b(0), b(1), float32(0.7), i32(big)}, ew},
		{"embed", "wt_embed_fwd", []buffer{nan(rows * d), r(v * d), r(t * d), ints(rows, v)},
			[]any{b(0), b(1), b(2), b(3), i32(rows), i32(t), i32(d)}, Elementwise(rows * d)},
		{"embed backward", "wt_embed_bwd", []buffer{z(v * d), z(t * d), r(rows * d), ints(rows, v)},
			[]any{b(0), b(1), b(2), b(3), i32(rows), i32(t), i32(d)}, Elementwise(rows * d)},
		{"rmsnorm", "wt_rms_fwd", []buffer{nan(rows * d), nan(rows), r(rows * d), r(d)},
			[]any{b(0), b(1), b(2), b(3), null, i32(rows), i32(d), float32(1e-5)}, PerRow(rows, d)},
		{"rmsnorm gather", "wt_rms_fwd", []buffer{nan(n * 2 * d), nan(n * 2), r(rows * d), r(d), ints(n*2, rows)},
			[]any{b(0), b(1), b(2), b(3), b(4), i32(n * 2), i32(d), float32(1e-5)}, PerRow(n*2, d)},
		{"rmsnorm backward", "wt_rms_bwd", []buffer{nan(rows * d), z(d), r(rows * d), r(rows * d), r(d), pos(rows)},
			[]any{b(0), b(1), b(2), b(3), b(4), b(5), null, i32(rows), i32(d)}, rmsBackwardGrid(rows, d)},
		{"rmsnorm gather backward", "wt_rms_bwd", []buffer{z(rows * d), z(d), r(n * 2 * d), r(rows * d), r(d), pos(n * 2), gather},
			[]any{b(0), b(1), b(2), b(3), b(4), b(5), b(6), i32(n * 2), i32(d)}, rmsBackwardGrid(n*2, d)},
		{"bias gelu", "wt_bias_act", []buffer{r(rows * o), nan(rows * o), nan(rows * o), r(o)},
			[]any{b(0), b(1), b(2), b(3), float32(0.9), i32(rows), i32(o), i32(1)}, Elementwise(rows * o)},
		{"no bias", "wt_bias_act", []buffer{r(rows * o)},
			[]any{b(0), null, null, null, float32(1), i32(rows), i32(o), i32(0)}, Elementwise(rows * o)},
		{"bias gelu erf", "wt_bias_act", []buffer{r(rows * o), nan(rows * o), nan(rows * o), r(o)},
			[]any{b(0), b(1), b(2), b(3), float32(0.9), i32(rows), i32(o), i32(2)}, Elementwise(rows * o)},
		{"gelu backward", "wt_gelu_bwd", []buffer{nan(rows * o), r(rows * o), r(rows * o), {n: rows * o, fill: 'u'}},
			[]any{b(0), b(1), b(2), b(3), float32(0.8), i32(rows * o), i32(1)}, Elementwise(rows * o)},
		{"gelu erf backward", "wt_gelu_bwd", []buffer{nan(rows * o), r(rows * o), r(rows * o), {n: rows * o, fill: 'u'}},
			[]any{b(0), b(1), b(2), b(3), float32(0.8), i32(rows * o), i32(2)}, Elementwise(rows * o)},
		{"column sums", "wt_colsum", []buffer{nan(o), r(rows * o)}, []any{b(0), b(1), i32(rows), i32(o)}, colSumGrid(o)},
		{"attention", "wt_attn_fwd", []buffer{nan(rows * d), nan(n * h * t * t), r(rows * d), r(rows * d), r(rows * d), mask},
			[]any{b(0), b(1), b(2), b(3), b(4), b(5), i32(n), i32(t), i32(h), i32(d), i32(d), float32(0.4)}, PerItem(n*h, t)},
		{"attention backward", "wt_attn_bwd",
			[]buffer{nan(rows * d), nan(rows * d), nan(rows * d), z(n * h * t * t), pos(n * h * t * t), r(rows * d), r(rows * d), r(rows * d), r(rows * d), mask},
			[]any{b(0), b(1), b(2), b(3), b(4), b(5), b(6), b(7), b(8), b(9), i32(n), i32(t), i32(h), i32(d), i32(d), float32(0.4)}, PerItem(n*h, t)},
		// As the model runs it: queries, keys and values the column blocks of one (n·t)×3d
		// matrix (the fused projection's output), their gradients those of another.
		{"attention fused", "wt_attn_fwd", []buffer{nan(rows * d), nan(n * h * t * t), r(rows * 3 * d), mask},
			[]any{b(0), b(1), b(2), bufAt{2, d}, bufAt{2, 2 * d}, b(3), i32(n), i32(t), i32(h), i32(d), i32(3 * d), float32(0.4)}, PerItem(n*h, t)},
		{"attention fused backward", "wt_attn_bwd",
			[]buffer{nan(rows * 3 * d), z(n * h * t * t), pos(n * h * t * t), r(rows * 3 * d), r(rows * d), mask},
			[]any{b(0), bufAt{0, d}, bufAt{0, 2 * d}, b(1), b(2), b(3), bufAt{3, d}, bufAt{3, 2 * d}, b(4), b(5), i32(n), i32(t), i32(h), i32(d), i32(3 * d), float32(0.4)}, PerItem(n*h, t)},
		{"cross-entropy", "wt_ce_fwd", []buffer{nan(rows), nan(rows * o), r(rows * o), ints(rows, c)},
			[]any{b(0), b(1), b(2), b(3), null, i32(rows), i32(o), i32(off), i32(c)}, PerRow(rows, o)},
		{"cross-entropy soft", "wt_ce_fwd", []buffer{nan(rows), nan(rows * o), r(rows * o), pos(rows * c)},
			[]any{b(0), b(1), b(2), null, b(3), i32(rows), i32(o), i32(off), i32(c)}, PerRow(rows, o)},
		{"cross-entropy backward", "wt_ce_bwd", []buffer{nan(rows * o), pos(rows * o), ints(rows, c)},
			[]any{b(0), b(1), b(2), null, float32(1), i32(rows), i32(o), i32(off), i32(c)}, Elementwise(rows * o)},
		{"cross-entropy soft backward", "wt_ce_bwd", []buffer{nan(rows * o), pos(rows * o), pos(rows * c)},
			[]any{b(0), b(1), null, b(2), float32(0.5), i32(rows), i32(o), i32(off), i32(c)}, Elementwise(rows * o)},
		{"mean loss", "wt_sum", []buffer{z(1), r(rows)}, []any{b(0), b(1), float32(1 / float64(rows)), i32(rows)}, Reduction(rows)},
		{"sum", "wt_sum", []buffer{z(1), r(big)}, []any{b(0), b(1), float32(0.5), i32(big)}, Reduction(big)},
		{"sum of squares", "wt_sumsq", []buffer{z(1), r(big)}, []any{b(0), b(1), i32(big)}, Reduction(big)},
		{"adamw", "wt_adamw", []buffer{r(big), r(big), pos(big), r(big), pos(big), {n: 1, fill: 'p'}},
			[]any{b(0), b(1), b(2), b(3), b(4), b(5), i32(big), float32(1e-3), float32(0.9), float32(0.999), float32(1e-8), float32(0.01), float32(0.5), float32(0.1), float32(0.001)}, ew},
	}
}

// parityGrid is one grid a parity case runs with.
type parityGrid struct {
	name string
	grid Grid
}

// parityGrids are the grids case c runs with: two with fewer blocks and threads than work
// items (every grid-stride loop and block reduction must hold for any grid; 32 threads are
// fewer than an attention item's rows) and the grid the model launches it with.
func parityGrids(c parityCase) []parityGrid {
	return []parityGrid{{"3×64", Grid{Blocks: 3, Threads: 64}}, {"2×32", Grid{Blocks: 2, Threads: 32}}, {"model", c.grid}}
}
