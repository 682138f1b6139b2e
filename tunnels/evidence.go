package tunnels

// Evidencer is implemented by tunnels that can say which earlier tokens carry the evidence
// the posterior at a scored position depends on; attention focus reports the attention mass
// on them (docs/usage.md: Geometry).
type Evidencer interface {
	// Evidence sets mark[i] (i ≤ pos) for every context position that carries evidence for
	// the prediction at token position pos of the sequence tokens, and clears the rest of
	// mark[:pos+1].
	Evidence(tokens []int, pos int, mark []bool)
}

// Evidence marks the revealed value tokens before pos: the values a bijection has already
// used, which the prediction at pos must eliminate.
func (b *Bijection) Evidence(tokens []int, pos int, mark []bool) {
	for i := 0; i <= pos; i++ {
		mark[i] = i < pos && i%2 == 1
	}
}

// Evidence marks the observation symbols up to and including pos (the filtering posterior
// at a symbol conditions on it); the header's model tokens are not marked.
func (h *HMM) Evidence(tokens []int, pos int, mark []bool) {
	for i := 0; i <= pos; i++ {
		mark[i] = i >= h.headerLen() && tokens[i] >= HMMSymbolBase
	}
}

// Evidence marks the stored value bound to the key queried at pos.
func (rc *Recall) Evidence(tokens []int, pos int, mark []bool) {
	for i := 0; i <= pos; i++ {
		mark[i] = false
	}
	for j := 0; j < rc.n && 4*j+3 < pos; j++ {
		if tokens[4*j+1] == tokens[pos] {
			mark[4*j+3] = true
		}
	}
}
