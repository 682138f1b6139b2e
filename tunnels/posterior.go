package tunnels

import (
	"fmt"
	"math"
)

// PosteriorOf recomputes, from a sequence's tokens alone, what Fill writes about it: s gets
// a copy of the tokens, the tunnel's positions, the exact posterior and its entropy in bits
// at each scored position. The tokens fix the posterior: bijection eliminates the revealed
// values, the HMM's matrices are read from its header and filtered forward, recall's
// answer is the value stored with the queried key. Targets is left empty: the tokens do
// not always reveal the realised class (the last bijection value, the HMM's hidden state).
//
// It returns an error naming the first token that makes the sequence impossible for the
// tunnel (wrong length, out of vocabulary, out of place, repeated key or value, a header row
// that is not on the grid); for any sequence Fill writes, the posterior and entropies are
// bit-for-bit Fill's.
func PosteriorOf(t Tunnel, tokens []int, s *Sequence) error {
	if len(tokens) != t.SeqLen() {
		return fmt.Errorf("tunnels: %s: %d tokens, want %d", t.Name(), len(tokens), t.SeqLen())
	}
	for j, tok := range tokens {
		if tok < 0 || tok >= t.Vocab() {
			return fmt.Errorf("tunnels: %s: token %d at %d is out of the vocabulary 0..%d", t.Name(), tok, j, t.Vocab()-1)
		}
	}
	var err error
	switch tt := t.(type) {
	case *Bijection:
		prepare(s, tt.SeqLen(), tt.positions, tt.v)
		copy(s.Tokens, tokens)
		err = tt.posterior(s)
	case *HMM:
		prepare(s, tt.SeqLen(), tt.positions, tt.s)
		copy(s.Tokens, tokens)
		err = tt.posterior(s)
	case *Recall:
		prepare(s, tt.SeqLen(), tt.positions, tt.vv)
		copy(s.Tokens, tokens)
		err = tt.posterior(s)
	default:
		return fmt.Errorf("tunnels: %s: no posterior from tokens for %T", t.Name(), t)
	}
	s.Targets = s.Targets[:0]
	return err
}

// posterior fills s's posterior from its tokens: keys at even, values at odd positions,
// both distinct; at the j-th key the values not yet revealed are equally likely.
func (b *Bijection) posterior(s *Sequence) error {
	v := b.v
	var seenKey, seenVal [MaxV]bool
	for j := 0; j < v-1; j++ {
		k := s.Tokens[2*j]
		if k >= v {
			return fmt.Errorf("tunnels: bijection: token %d at %d is not a key (0..%d)", k, 2*j, v-1)
		}
		if seenKey[k] {
			return fmt.Errorf("tunnels: bijection: key %d repeated at %d", k, 2*j)
		}
		seenKey[k] = true
		left := v - j
		row := s.Posterior[j]
		p := 1 / float64(left)
		for c := range row {
			row[c] = p
			if seenVal[c] {
				row[c] = 0
			}
		}
		s.EntropyBits[j] = math.Log2(float64(left))
		if j < v-2 {
			val := s.Tokens[2*j+1] - v
			if val < 0 {
				return fmt.Errorf("tunnels: bijection: token %d at %d is not a value (%d..%d)", val+v, 2*j+1, v, 2*v-1)
			}
			if seenVal[val] {
				return fmt.Errorf("tunnels: bijection: value %d repeated at %d", val+v, 2*j+1)
			}
			seenVal[val] = true
		}
	}
	return nil
}

// expect checks that token at index j is want.
func expect(task string, tokens []int, j, want int, what string) error {
	if tokens[j] != want {
		return fmt.Errorf("tunnels: %s: token %d at %d, want %s (%d)", task, tokens[j], j, what, want)
	}
	return nil
}

// posterior reads the gridded matrices from s's header and filters the observations
// forward, exactly as Fill does.
func (h *HMM) posterior(s *Sequence) error {
	S, O := h.s, h.o
	tok := s.Tokens
	var logT [MaxStates * MaxStates]float64
	var logE [MaxStates * MaxSymbols]float64
	// readRows checks rows×cols grid tokens from index at and stores their log-probabilities.
	readRows := func(at, rows, cols int, dst []float64, what string) error {
		for a := 0; a < rows; a++ {
			sum := 0
			for b := 0; b < cols; b++ {
				j := at + a*cols + b
				hd := tok[j] + gridFloor
				if hd > gridTotal {
					return fmt.Errorf("tunnels: hmm: token %d at %d is not a grid probability (0..%d)", tok[j], j, gridTotal-gridFloor)
				}
				sum += hd
				dst[a*cols+b] = math.Log(float64(hd) / gridTotal)
			}
			if sum != gridTotal {
				return fmt.Errorf("tunnels: hmm: %s row %d sums to %d hundredths, want %d", what, a, sum, gridTotal)
			}
		}
		return nil
	}
	if err := expect("hmm", tok, 0, HMMTrans, "TRANS"); err != nil {
		return err
	}
	if err := readRows(1, S, S, logT[:S*S], "transition"); err != nil {
		return err
	}
	if err := expect("hmm", tok, 1+S*S, HMMEmit, "EMIT"); err != nil {
		return err
	}
	if err := readRows(2+S*S, S, O, logE[:S*O], "emission"); err != nil {
		return err
	}
	if err := expect("hmm", tok, 2+S*S+S*O, HMMSep, "SEP"); err != nil {
		return err
	}
	var la [MaxStates]float64
	for t := 0; t < h.k; t++ {
		pos := h.positions[t]
		if err := expect("hmm", tok, pos-1, HMMObs, "OBS"); err != nil {
			return err
		}
		o := tok[pos] - HMMSymbolBase
		if o < 0 {
			return fmt.Errorf("tunnels: hmm: token %d at %d is not a symbol (%d..%d)", tok[pos], pos, HMMSymbolBase, HMMSymbolBase+O-1)
		}
		s.EntropyBits[t] = filterStep(t, o, S, O, logT[:], logE[:], la[:S], s.Posterior[t])
	}
	return nil
}

// posterior checks s's layout (stored pairs of distinct keys and values, fillers, queries
// of distinct stored keys) and puts each query's posterior on the value stored with it.
func (rc *Recall) posterior(s *Sequence) error {
	tok := s.Tokens
	valBase := RecallKeyBase + rc.kv
	value := make(map[int]int, rc.n) // key token → value class
	var usedVal bitset
	for j := 0; j < rc.n; j++ {
		at := rc.stride * j
		if rc.stride == 4 {
			if err := expect("recall", tok, at, RecallSTORE, "STORE"); err != nil {
				return err
			}
			if err := expect("recall", tok, at+2, RecallSEP, "SEP"); err != nil {
				return err
			}
		}
		k, v := tok[at+rc.koff], tok[at+rc.voff]-valBase
		if k < RecallKeyBase || k >= valBase {
			return fmt.Errorf("tunnels: recall: token %d at %d is not a key (%d..%d)", k, at+rc.koff, RecallKeyBase, valBase-1)
		}
		if v < 0 {
			return fmt.Errorf("tunnels: recall: token %d at %d is not a value (%d..%d)", v+valBase, at+rc.voff, valBase, valBase+rc.vv-1)
		}
		if _, dup := value[k]; dup {
			return fmt.Errorf("tunnels: recall: key %d stored twice (again at %d)", k, at+rc.koff)
		}
		if usedVal.testAndSet(v) {
			return fmt.Errorf("tunnels: recall: value %d stored twice (again at %d)", v+valBase, at+rc.voff)
		}
		value[k] = v
	}
	pos := rc.stride * rc.n
	queried := make(map[int]bool, rc.m)
	for q := 0; q < rc.m; q++ {
		fill := rc.f
		if q > 0 {
			fill = rc.f / 2
		}
		for j := 0; j < fill; j++ {
			if err := expect("recall", tok, pos, RecallFILLER, "FILLER"); err != nil {
				return err
			}
			pos++
		}
		if err := expect("recall", tok, pos, RecallQUERY, "QUERY"); err != nil {
			return err
		}
		k := tok[pos+1]
		v, ok := value[k]
		if !ok {
			return fmt.Errorf("tunnels: recall: query at %d asks for key %d, which is not stored", pos+1, k)
		}
		if queried[k] {
			return fmt.Errorf("tunnels: recall: key %d queried twice (again at %d)", k, pos+1)
		}
		queried[k] = true
		row := s.Posterior[q]
		clear(row)
		row[v] = 1
		s.EntropyBits[q] = 0
		pos += 2
	}
	return nil
}
