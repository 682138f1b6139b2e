package tunnels

import "math"

// Bijection is the bijection-elimination tunnel: V symbols, a fresh random permutation per
// sequence, and V−1 of its key→value pairs revealed one after another.
type Bijection struct {
	v         int
	positions []int
}

// NewBijection builds the tunnel with v symbols (3..64).
func NewBijection(v int) (*Bijection, error) {
	if err := checkRange("bijection", "v", v, MinV, MaxV, ""); err != nil {
		return nil, err
	}
	b := &Bijection{v: v, positions: make([]int, v-1)}
	for j := range b.positions {
		b.positions[j] = 2 * j
	}
	return b, nil
}

// V is the number of symbols.
func (b *Bijection) V() int { return b.v }

// Name is "bijection".
func (b *Bijection) Name() string { return "bijection" }

// Vocab is 2V: keys 0..V−1 and values V..2V−1.
func (b *Bijection) Vocab() int { return 2 * b.v }

// SeqLen is 2V−3: V−1 keys and the V−2 values that follow all but the last.
func (b *Bijection) SeqLen() int { return 2*b.v - 3 }

// Classes is V: the value π(k) at a key.
func (b *Bijection) Classes() int { return b.v }

// Positions are the key positions 0, 2, ..., 2(V−2).
func (b *Bijection) Positions() []int { return clonePositions(b.positions) }

// ClassTokens reports that class c is the value token c+V.
func (b *Bijection) ClassTokens() (int, bool) { return b.v, true }

// DefaultTarget is Sampled, as the paper trains.
func (b *Bijection) DefaultTarget() TargetMode { return Sampled }

// Fill writes sequence i of the stream into s: keys k_j with their values π(k_j)+V, the
// realised values as targets, and at the j-th key the uniform posterior over the values
// not yet revealed.
func (b *Bijection) Fill(s *Sequence, stream uint64, i uint64) {
	v := b.v
	prepare(s, b.SeqLen(), b.positions, v)
	r := newRNG(stream, i)
	// The values of V−1 distinct keys under a uniform permutation are V−1 distinct values
	// in uniformly random order, independent of the keys: draw both by partial shuffles.
	var keys, vals [MaxV]int
	for j := 0; j < v; j++ {
		keys[j], vals[j] = j, j
	}
	for j := 0; j < v-1; j++ {
		k := j + r.intN(v-j)
		keys[j], keys[k] = keys[k], keys[j]
	}
	for j := 0; j < v-1; j++ {
		k := j + r.intN(v-j)
		vals[j], vals[k] = vals[k], vals[j]
	}
	for j := 0; j < v-1; j++ {
		s.Tokens[2*j] = keys[j]
		if j < v-2 {
			s.Tokens[2*j+1] = vals[j] + v
		}
		s.Targets[j] = vals[j]
		// Before the j-th key (0-based) the values vals[0..j-1] are revealed; the rest
		// are equally likely.
		left := v - j
		row := s.Posterior[j]
		p := 1 / float64(left)
		for c := range row {
			row[c] = p
		}
		for m := 0; m < j; m++ {
			row[vals[m]] = 0
		}
		s.EntropyBits[j] = math.Log2(float64(left))
	}
}
