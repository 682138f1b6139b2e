package models

import (
	"fmt"
	"math"

	"windtunnel/tunnels"
)

// AttentionEntropy adds, for every layer and head, the entropy in bits of the attention rows
// at the tunnel's scored positions, summed over the batch's sequences, into acc[layer][head].
// It reads the weights of the last Predict on a batch of the same size, so call it right
// after Predict(t, b, ...). A model without attention returns an error.
func (m *net[T]) AttentionEntropy(t tunnels.Tunnel, b *tunnels.Batch, acc [][]float64) error {
	if m.heads == 0 {
		return fmt.Errorf("models: %s has no attention", m.kind)
	}
	c, ok := m.graphs[m.key(t, b.N, false, false)]
	if !ok || len(c.attn) != m.layers {
		return fmt.Errorf("models: %s: no prediction at batch size %d to read attention from", m.kind, b.N)
	}
	if len(acc) != m.layers {
		return fmt.Errorf("models: attention accumulator has %d layers, want %d", len(acc), m.layers)
	}
	L := t.SeqLen()
	pos := t.Positions()
	for l, k := range c.attn {
		if len(acc[l]) != m.heads {
			return fmt.Errorf("models: attention accumulator layer %d has %d heads, want %d", l, len(acc[l]), m.heads)
		}
		if len(k.probs) < b.N*m.heads*L*L {
			return fmt.Errorf("models: %s layer %d holds no attention for %d sequences", m.kind, l, b.N)
		}
		for item := 0; item < b.N*m.heads; item++ {
			h := item % m.heads
			pm := k.probs[item*L*L:]
			s := 0.0
			for _, i := range pos {
				row := pm[i*L : i*L+i+1]
				for _, p := range row {
					if p > 0 {
						s -= float64(p) * math.Log2(float64(p))
					}
				}
			}
			acc[l][h] += s / float64(len(pos))
		}
	}
	return nil
}

// Probe is what one forward pass reveals of a model's internals, copied out as plain
// row-major slices. Slices a model does not have are nil (no attention in an LSTM).
type Probe struct {
	// N is the number of sequences, T their length, P the number of scored positions.
	N, T, P int
	// Positions are the scored token indices.
	Positions []int
	// Width is the feature width of Q, K, V, Resid and Final.
	Width int
	// Layers and Heads are the attention layout (Heads 0 without attention).
	Layers, Heads int
	// Attn[l] holds the attention rows at the scored positions, N×Heads×P×T: row (s, h, i)
	// is the weight of each key position in the query at Positions[i] (0 beyond it).
	Attn [][]float64
	// Q, K, V[l] hold the per-token projections of layer l, N×T×Width; head h is columns
	// h·Width/Heads up to (h+1)·Width/Heads.
	Q, K, V [][]float64
	// Resid[l] is the residual stream after block l, ResidRows×Width.
	Resid [][]float64
	// ResidRows is N·T for sequence models and the per-position MLP, N·P for the prefix MLP
	// (which sees one row per scored position).
	ResidRows int
	// Final is the input of the output head at the scored positions, (N·P)×Width.
	Final []float64
	// Dist is the model's distribution over the classes at every scored position, N×P×C.
	Dist []float64
}

// Probe implements Model: a Predict on b whose internals are copied out.
func (m *net[T]) Probe(t tunnels.Tunnel, b *tunnels.Batch) (*Probe, error) {
	return m.probeChunks(t, b, b.N, b.N)
}

// probeChunks is Probe run in forward passes of at most chunk sequences, each copied out
// into the whole batch's slices at its place, V and Resid (and ResidRows) for the first
// keep sequences only.
func (m *net[T]) probeChunks(t tunnels.Tunnel, b *tunnels.Batch, chunk, keep int) (*Probe, error) {
	if err := m.checkBatch(t, b); err != nil {
		return nil, err
	}
	chunk, keep = min(max(chunk, 1), b.N), min(max(keep, 0), b.N)
	pos := t.Positions()
	L, P := t.SeqLen(), len(pos)
	pr := &Probe{N: b.N, T: L, P: P, Positions: pos, Layers: m.layers, Heads: m.heads, Dist: make([]float64, b.N*b.P*b.C)}
	// slot is the slice a tap of kind and layer is copied into, made on first use for
	// seqs sequences of per values.
	slot := func(s *[][]float64, l, per, seqs int) []float64 {
		for len(*s) <= l {
			*s = append(*s, nil)
		}
		if (*s)[l] == nil {
			(*s)[l] = make([]float64, per*seqs)
		}
		return (*s)[l]
	}
	for lo := 0; lo < b.N; lo += chunk {
		hi := min(lo+chunk, b.N)
		n := hi - lo
		if err := m.predict(t, batchRange(b, lo, hi), pr.Dist[lo*b.P*b.C:hi*b.P*b.C], true); err != nil {
			return nil, err
		}
		c, ok := m.graphs[m.key(t, n, false, true)]
		if !ok {
			return nil, fmt.Errorf("models: %s: probe: no graph for batch size %d", m.kind, n)
		}
		for _, tp := range c.taps {
			if tp.op.out == nil {
				return nil, fmt.Errorf("models: %s: probe: tap %d of layer %d holds no output", m.kind, tp.kind, tp.layer)
			}
			src := data[T](tp.op.out)
			rows, w := rows2(tp.op.out.Shape())
			stride, col := w, 0 // the tap's row r is src[r·stride+col:][:w]
			if tp.width > 0 {
				w, col = tp.width, tp.col
			}
			pr.Width = w
			per := rows * w / n
			var dst []float64
			switch tp.kind {
			case tapQ:
				dst = slot(&pr.Q, tp.layer, per, b.N)
			case tapK:
				dst = slot(&pr.K, tp.layer, per, b.N)
			case tapV:
				dst = slot(&pr.V, tp.layer, per, keep)
			case tapResid:
				dst = slot(&pr.Resid, tp.layer, per, keep)
				pr.ResidRows = rows / n * keep
			case tapFinal:
				if pr.Final == nil {
					pr.Final = make([]float64, per*b.N)
				}
				dst = pr.Final
			}
			if end := min(len(dst), hi*per); end > lo*per {
				widenRows(dst[lo*per:end], src, stride, col, w)
			}
		}
		for l, k := range c.attn {
			if len(k.probs) < n*m.heads*L*L {
				return nil, fmt.Errorf("models: %s: probe: layer %d holds no attention for %d sequences", m.kind, l, n)
			}
			rows := slot(&pr.Attn, l, m.heads*P*L, b.N)[lo*m.heads*P*L:]
			for item := 0; item < n*m.heads; item++ {
				pm := k.probs[item*L*L:]
				for i, q := range pos {
					dst := rows[(item*P+i)*L:][:L]
					for j, v := range pm[q*L : q*L+q+1] {
						dst[j] = float64(v)
					}
				}
			}
		}
	}
	return pr, nil
}

// widenInto copies the first len(dst) values of src into dst as float64.
func widenInto[T Float](dst []float64, src []T) {
	for i := range dst {
		dst[i] = float64(src[i])
	}
}

// widenRows fills dst with rows of w values as float64, row r read from src[r·stride+col:],
// until dst is full.
func widenRows[T Float](dst []float64, src []T, stride, col, w int) {
	for r := 0; r*w < len(dst); r++ {
		widenInto(dst[r*w:min(len(dst), (r+1)*w)], src[r*stride+col:])
	}
}
