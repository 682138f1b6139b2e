package models

import (
	"fmt"

	"windtunnel/tunnels"
)

// A compiled graph keeps the buffers of every kernel for as long as the model lives, one
// graph per batch shape, so a pass over many sequences at once keeps buffers for all of
// them. PredictChunks and ProbeChunks run a batch in passes of a bounded number of
// sequences instead; every sequence is computed on its own (attention stays within a
// sequence), so the results are those of one pass up to the summation order of the matrix
// products (the same bits with gonum's, about an ulp of float32 with OpenBLAS's kernels,
// whose order depends on where a row falls in a call).

// batchRange is sequences [lo, hi) of b, sharing its storage.
func batchRange(b *tunnels.Batch, lo, hi int) *tunnels.Batch {
	if lo == 0 && hi == b.N {
		return b
	}
	return &tunnels.Batch{
		N: hi - lo, T: b.T, P: b.P, C: b.C,
		Tokens:      b.Tokens[lo*b.T : hi*b.T],
		Targets:     b.Targets[lo*b.P : hi*b.P],
		Posterior:   b.Posterior[lo*b.P*b.C : hi*b.P*b.C],
		EntropyBits: b.EntropyBits[lo*b.P : hi*b.P],
	}
}

// PredictChunks is m.Predict over b in passes of at most chunk sequences, each writing its
// part of q (N×P×C); with acc not nil, each pass's attention entropy is added into it
// (Model.AttentionEntropy).
func PredictChunks(m Model, t tunnels.Tunnel, b *tunnels.Batch, chunk int, q []float64, acc [][]float64) error {
	if len(q) != b.N*b.P*b.C {
		return fmt.Errorf("models: predict: q has %d values, want %d", len(q), b.N*b.P*b.C)
	}
	chunk = max(chunk, 1)
	per := b.P * b.C
	for lo := 0; lo < b.N; lo += chunk {
		hi := min(lo+chunk, b.N)
		sb := batchRange(b, lo, hi)
		if err := m.Predict(t, sb, q[lo*per:hi*per]); err != nil {
			return err
		}
		if acc != nil {
			if err := m.AttentionEntropy(t, sb, acc); err != nil {
				return err
			}
		}
	}
	return nil
}

// ProbeChunks is m.Probe over b in passes of at most chunk sequences, copied out into the
// whole batch's slices, with the values and residual streams (V, Resid and ResidRows) of
// the first keep sequences only: a caller that reads them for a few sequences (the J-lens)
// does not hold them for all.
func ProbeChunks(m Model, t tunnels.Tunnel, b *tunnels.Batch, chunk, keep int) (*Probe, error) {
	switch n := m.(type) {
	case *net[float32]:
		return n.probeChunks(t, b, chunk, keep)
	case *net[float64]:
		return n.probeChunks(t, b, chunk, keep)
	}
	return nil, fmt.Errorf("models: probe of %s in chunks: not a model of this package", m.Kind())
}
