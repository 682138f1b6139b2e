package accel

import "fmt"

// EmbedForward sets row r of y (rows×d) to tok[ids[r]] + pos[r mod t].
func EmbedForward(dv Device, y, tok, pos, ids Ptr, rows, t, d int) error {
	return dv.Launch("wt_embed_fwd", Elementwise(rows*d), y, tok, pos, ids, int32(rows), int32(t), int32(d))
}

// EmbedBackward zeroes dtok (vocab×d) and dpos (maxLen×d) and adds every row of g into them.
func EmbedBackward(dv Device, dtok, dpos, g, ids Ptr, vocab, maxLen, rows, t, d int) error {
	if err := Fill(dv, dtok, 0, vocab*d); err != nil {
		return err
	}
	if err := Fill(dv, dpos, 0, maxLen*d); err != nil {
		return err
	}
	return dv.Launch("wt_embed_bwd", Elementwise(rows*d), dtok, dpos, g, ids, int32(rows), int32(t), int32(d))
}

// RMSForward is RMSNorm of the rows of x picked by src (null: all, in order) into y, keeping
// the inverse norms in rinv.
func RMSForward(dv Device, y, rinv, x, g, src Ptr, rows, d int, eps float32) error {
	return dv.Launch("wt_rms_fwd", PerRow(rows, d), y, rinv, x, g, src, int32(rows), int32(d), eps)
}

// RMSBackward writes dx (inRows×d, zeroed first when src gathers rows) and dg from gy;
// d is at most 4096 (the kernel sums dg in shared memory).
func RMSBackward(dv Device, dx, dg, gy, x, g, rinv, src Ptr, rows, inRows, d int) error {
	if d > 4096 {
		return fmt.Errorf("accel: RMSNorm backward of width %d: at most 4096", d)
	}
	if !src.IsNil() {
		if err := Fill(dv, dx, 0, inRows*d); err != nil {
			return err
		}
	}
	if err := Fill(dv, dg, 0, d); err != nil {
		return err
	}
	return dv.Launch("wt_rms_bwd", rmsBackwardGrid(rows, d), dx, dg, gy, x, g, rinv, src, int32(rows), int32(d))
}

// rmsBackwardGrid is wt_rms_bwd's grid: a few hundred blocks, each summing dg over its rows
// before one atomic add a column.
func rmsBackwardGrid(rows, d int) Grid { return PerRow(min(rows, 512), d) }

// Act is the activation wt_bias_act applies after the bias (its act argument).
type Act int32

// The activations of BiasAct and GELUBackward.
const (
	ActNone     Act = 0 // the bias alone
	ActGELUTanh Act = 1 // GELU's tanh form; th keeps tanh(√(2/π)(u + 0.044715u³))
	ActGELUErf  Act = 2 // the exact GELU u·Φ(u); th keeps Φ(u)
)

// BiasAct adds gb·b (b may be null) to y (rows×o) and, with a GELU act, applies it keeping
// the pre-activation in pre and what its gradient reuses in th.
func BiasAct(dv Device, y, pre, th, b Ptr, gb float32, rows, o int, act Act) error {
	return dv.Launch("wt_bias_act", Elementwise(rows*o), y, pre, th, b, gb, int32(rows), int32(o), int32(act))
}

// GELUBackward sets dp = s·g·GELU'(pre) over n elements, for the GELU act (th as BiasAct
// saved it).
func GELUBackward(dv Device, dp, g, pre, th Ptr, s float32, n int, act Act) error {
	return dv.Launch("wt_gelu_bwd", Elementwise(n), dp, g, pre, th, s, int32(n), int32(act))
}

// ColSum sets db to the column sums of g (rows×o).
func ColSum(dv Device, db, g Ptr, rows, o int) error {
	return dv.Launch("wt_colsum", colSumGrid(o), db, g, int32(rows), int32(o))
}

// colSumGrid is wt_colsum's grid: a thread a column.
func colSumGrid(o int) Grid { return Grid{Blocks: max(1, (o+255)/256), Threads: 256} }

// AttnForward is fused causal attention over n sequences of t rows, h heads of width d/h:
// q, k and v (and, backward, their gradients) have rows ld apart (3d when they are the
// column blocks of the fused projection's output), o and its gradient rows d apart.
func AttnForward(dv Device, o, p, q, k, v, mask Ptr, n, t, h, d, ld int, scale float32) error {
	return dv.Launch("wt_attn_fwd", PerItem(n*h, t), o, p, q, k, v, mask, int32(n), int32(t), int32(h), int32(d), int32(ld), scale)
}

// AttnBackward is its backward pass; ds is n·h·t·t scratch.
func AttnBackward(dv Device, dq, dk, dvv, ds, p, q, k, v, g, mask Ptr, n, t, h, d, ld int, scale float32) error {
	return dv.Launch("wt_attn_bwd", PerItem(n*h, t), dq, dk, dvv, ds, p, q, k, v, g, mask, int32(n), int32(t), int32(h), int32(d), int32(ld), scale)
}

// CEForward writes each row's cross-entropy into loss and its softmax into prob, then the
// mean loss into mean[0]; soft (rows×c) may be null for hard targets tgt.
func CEForward(dv Device, mean, loss, prob, x, tgt, soft Ptr, rows, o, off, c int) error {
	if err := dv.Launch("wt_ce_fwd", PerRow(rows, o), loss, prob, x, tgt, soft, int32(rows), int32(o), int32(off), int32(c)); err != nil {
		return err
	}
	if err := Fill(dv, mean, 0, 1); err != nil {
		return err
	}
	return dv.Launch("wt_sum", Reduction(rows), mean, loss, float32(1/float64(rows)), int32(rows))
}

// CEBackward sets dx = gs/rows·(prob − target).
func CEBackward(dv Device, dx, prob, tgt, soft Ptr, gs float32, rows, o, off, c int) error {
	return dv.Launch("wt_ce_bwd", Elementwise(rows*o), dx, prob, tgt, soft, gs, int32(rows), int32(o), int32(off), int32(c))
}

// SumSquares sets out[0] to Σ x² over n elements.
func SumSquares(dv Device, out, x Ptr, n int) error {
	if err := Fill(dv, out, 0, 1); err != nil {
		return err
	}
	return dv.Launch("wt_sumsq", Reduction(n), out, x, int32(n))
}

// AdamWHyper is one AdamW update's settings.
type AdamWHyper struct {
	LR, Beta1, Beta2, Eps, Decay, Clip float32
	BC1, BC2                           float32 // bias corrections 1−β^t
}

// AdamW updates n parameters w with moments m, v from gradients g, per-element learning-rate
// multipliers lrm and the gradients' sum of squares sq[0] (for clipping).
func AdamW(dv Device, w, m, v, g, lrm, sq Ptr, n int, h AdamWHyper) error {
	return dv.Launch("wt_adamw", Elementwise(n), w, m, v, g, lrm, sq, int32(n), h.LR, h.Beta1, h.Beta2, h.Eps, h.Decay, h.Clip, h.BC1, h.BC2)
}
