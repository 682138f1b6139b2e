package lab

import (
	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// Every pass over held-out sequences (scoring the probe sets, the geometry probe and its
// ablation table, the other evaluated lengths) runs in chunks of a bounded number of
// sequences (models.PredictChunks, models.ProbeChunks; the probe sets are drawn in batches
// of the chunk). A compiled graph keeps every kernel's buffers for as long as the model
// lives, one graph per batch shape, so a pass over a whole probe set at once would keep
// buffers for all of it (at the hmm quick preset, 512 sequences of 93 tokens: about 1 GB).
// A model computes each sequence on its own, and no product of a chunk is split along its
// inner dimension (minChunk), so a set scored in chunks gives the numbers of one pass: the
// same bits with gonum's products, within float32 rounding with OpenBLAS's
// (TestChunkedEvaluationIdentical).

// evalBudget is the memory, in bytes, that one evaluation graph's buffers may take as
// estimated by inferBytesPerSeq: a run keeps one such graph per evaluated length.
const evalBudget = 12 << 20

// inferBytesPerSeq estimates the buffers a compiled forward pass keeps for each sequence
// of seqLen tokens (the values of activationFloats: every layer's, none for a backward pass).
func inferBytesPerSeq(s arch.Spec, seqLen, dt int64) int64 {
	perToken, layers := activationFloats(s, seqLen)
	return max(1, perToken*layers*seqLen*dt)
}

// minChunk is the fewest sequences of tn's length a pass must run for every product to
// have more than a quarter of its inner dimension k in rows where it needs to: the
// parallel products split a product along k when k ≥ 4·max(m, n), which sums in another
// order, so a chunk below it would not give the bits of a larger one. Only products with
// k ≥ 4n can split so: the MLPs' second layers (k the hidden width), Mamba's projections
// from its inner width to the step size and state, and the output head onto few classes.
// The body's products have a row per token, the head's one per scored position (the
// prefix MLP's every product); s is resolved (Spec.Effective).
func minChunk(s arch.Spec, tn tunnels.Tunnel) int {
	t, p := tn.SeqLen(), max(len(tn.Positions()), 1)
	out := tn.Classes()
	if _, tied := tn.ClassTokens(); tied {
		out = tn.Vocab()
	}
	lo := 1
	need := func(k, n, rowsPerSeq int) {
		if 4*n <= k {
			lo = max(lo, (k/4)/rowsPerSeq+1)
		}
	}
	switch s.Kind {
	case arch.KindLSTM:
		need(s.LSTM.Width, out, p)
	case arch.KindMamba:
		d, e := s.Mamba.Width, s.Mamba.Width*s.Mamba.Expand
		need(e, 1, t) // the step-size rank and the state are at most e/4 wide
		need(d, out, p)
	case arch.KindMLP:
		need(s.MLP.Hidden, s.MLP.Width, t)
		need(s.MLP.Width, out, p)
	case arch.KindPrefixMLP:
		need(s.PrefixMLP.Hidden, s.PrefixMLP.Width, p)
		need(s.PrefixMLP.Width, out, p)
	default:
		need(s.Transformer.MLP, s.Transformer.Width, t)
		need(s.Transformer.Width, out, p)
	}
	return lo
}

// evalChunk is the number of sequences an evaluation pass over a set of n sequences of
// tn's length runs at once: as many as fit budget (inferBytesPerSeq), at most probeChunk
// and at least minChunk; the whole set when that many fit, else a divisor of n above half
// that when there is one (so that the set compiles one graph shape, the same for sets
// whose sizes share the divisor). s is resolved (Spec.Effective).
func evalChunk(s arch.Spec, tn tunnels.Tunnel, n int, dt, budget int64) int {
	lo := minChunk(s, tn)
	c := max(int(min(budget/inferBytesPerSeq(s, int64(tn.SeqLen()), dt), probeChunk)), lo)
	if n <= c {
		return max(n, 1)
	}
	for d := c; d > max(c/2, lo-1); d-- {
		if n%d == 0 {
			return d
		}
	}
	return c
}
