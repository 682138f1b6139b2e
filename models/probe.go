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
	c, ok := m.graphs[shapeKey{n: b.N, t: t.SeqLen(), p: len(t.Positions()), train: false}]
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
