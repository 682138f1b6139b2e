package llm

import "fmt"

// KeyWeights returns layer l's key projection for key/value head g as a HeadDim × Hidden
// row-major matrix: row j is the weights that make key dimension j from the residual stream
// (a column of W_K in the paper's x·W_K notation). The matrix is a copy.
func (m *Model) KeyWeights(l, g int) ([]float32, error) {
	c := m.Config
	if l < 0 || l >= c.Layers || g < 0 || g >= c.KVHeads {
		return nil, fmt.Errorf("llm: key weights of layer %d head %d: the model has %d layers, %d key/value heads", l, g, c.Layers, c.KVHeads)
	}
	L := &m.layers[l]
	d, hidden := c.HeadDim, c.Hidden
	t, first := L.k, g*d
	if L.qkv != nil { // GPT-NeoX: rows per head, q k v
		t = L.qkv
		_, ko, _ := m.offsets(g*(c.Heads/c.KVHeads), g)
		first = ko
	}
	out := make([]float32, d*hidden)
	if _, err := t.Rows(first, first+d, out); err != nil {
		return nil, fmt.Errorf("llm: key weights of layer %d head %d: %w", l, g, err)
	}
	return out, nil
}
