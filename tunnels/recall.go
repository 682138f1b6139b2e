package tunnels

import "fmt"

// Recall special tokens; key k is token RecallKeyBase+k and value v is token
// RecallKeyBase+Kv+v.
const (
	RecallPAD     = 0
	RecallSTORE   = 1
	RecallFILLER  = 2
	RecallQUERY   = 3
	RecallSEP     = 4
	RecallKeyBase = 10
)

// Recall layouts: how each stored pair is written.
const (
	// RecallLayoutStore writes `STORE k SEP v` (the authors' generator; the default).
	RecallLayoutStore = "store"
	// RecallLayoutPairs writes `k v` (multi-query associative recall's layout): the value
	// follows its key, so the first layer's previous-token head is one step back.
	RecallLayoutPairs = "kv"
)

// Recall is the associative-recall tunnel: N key→value pairs are stored, then after fillers
// M of the keys are queried and the network must name the stored value.
type Recall struct {
	n, kv, vv, f, m int
	layout          string
	// stride is the tokens a stored pair takes; koff and voff its key's and value's offsets.
	stride, koff, voff int
	positions          []int
}

// NewRecall builds the tunnel with n pairs drawn from kv keys and vv values, f fillers and
// m queries, in the default layout (`STORE k SEP v`).
func NewRecall(n, kv, vv, f, m int) (*Recall, error) {
	return NewRecallLayout(n, kv, vv, f, m, RecallLayoutStore)
}

// NewRecallLayout is NewRecall with the pairs' layout: RecallLayoutStore ("store" or "")
// or RecallLayoutPairs ("kv").
func NewRecallLayout(n, kv, vv, f, m int, layout string) (*Recall, error) {
	const task = "recall"
	stride, koff, voff := 4, 1, 3
	switch layout {
	case "", RecallLayoutStore:
		layout = RecallLayoutStore
	case RecallLayoutPairs:
		stride, koff, voff = 2, 0, 1
	default:
		return nil, fmt.Errorf("tunnels: recall: layout %q: want %s or %s", layout, RecallLayoutStore, RecallLayoutPairs)
	}
	if err := checkRange(task, "pairs", n, 1, MaxKeys, "at most the 4096 keys"); err != nil {
		return nil, err
	}
	if err := checkRange(task, "keys", kv, n, MaxKeys, "at least one key per pair"); err != nil {
		return nil, err
	}
	if err := checkRange(task, "values", vv, n, MaxValues, "at least one value per pair"); err != nil {
		return nil, err
	}
	if err := checkRange(task, "fillers", f, 0, MaxFillers, ""); err != nil {
		return nil, err
	}
	if err := checkRange(task, "queries", m, 1, n, "distinct stored keys, at most pairs"); err != nil {
		return nil, err
	}
	rc := &Recall{n: n, kv: kv, vv: vv, f: f, m: m, layout: layout, stride: stride, koff: koff, voff: voff, positions: make([]int, m)}
	for q := range rc.positions {
		rc.positions[q] = rc.queryStart() + q*(2+f/2) + 1
	}
	return rc, nil
}

// Sizes returns N, Kv, Vv, F and M.
func (rc *Recall) Sizes() (pairs, keys, values, fillers, queries int) {
	return rc.n, rc.kv, rc.vv, rc.f, rc.m
}

// Layout is how each pair is written: RecallLayoutStore or RecallLayoutPairs.
func (rc *Recall) Layout() string { return rc.layout }

// queryStart is the index of the first QUERY token: after the stores and the fillers.
func (rc *Recall) queryStart() int { return rc.stride*rc.n + rc.f }

// Name is "recall".
func (rc *Recall) Name() string { return "recall" }

// Vocab is 10+Kv+Vv: the specials, the keys and the values.
func (rc *Recall) Vocab() int { return RecallKeyBase + rc.kv + rc.vv }

// SeqLen is sN + F + 2M + (M−1)·⌊F/2⌋, s the pair's length (4 for `STORE k SEP v`, 2 for `k v`).
func (rc *Recall) SeqLen() int { return rc.queryStart() + 2*rc.m + (rc.m-1)*(rc.f/2) }

// Classes is Vv: the stored value.
func (rc *Recall) Classes() int { return rc.vv }

// Positions are the query key tokens.
func (rc *Recall) Positions() []int { return clonePositions(rc.positions) }

// ClassTokens reports that class v is the value token 10+Kv+v.
func (rc *Recall) ClassTokens() (int, bool) { return RecallKeyBase + rc.kv, true }

// DefaultTarget is Sampled, as the paper trains.
func (rc *Recall) DefaultTarget() TargetMode { return Sampled }

// Fill writes sequence i of the stream into s: `STORE k SEP v` (or `k v`) per pair, F fillers, then M
// queries `QUERY k` of distinct stored keys with ⌊F/2⌋ fillers between them; the target and
// one-hot posterior at each query's key are the value stored with it.
func (rc *Recall) Fill(s *Sequence, stream uint64, i uint64) {
	prepare(s, rc.SeqLen(), rc.positions, rc.vv)
	r := newRNG(stream, i)
	valBase := RecallKeyBase + rc.kv
	// N distinct keys then N distinct values, each a uniformly random ordered draw without
	// replacement (rejection against a bitset).
	var used bitset
	for j := 0; j < rc.n; j++ {
		k := r.intN(rc.kv)
		for used.testAndSet(k) {
			k = r.intN(rc.kv)
		}
		at := rc.stride * j
		if rc.stride == 4 {
			s.Tokens[at] = RecallSTORE
			s.Tokens[at+2] = RecallSEP
		}
		s.Tokens[at+rc.koff] = RecallKeyBase + k
	}
	used = bitset{}
	for j := 0; j < rc.n; j++ {
		v := r.intN(rc.vv)
		for used.testAndSet(v) {
			v = r.intN(rc.vv)
		}
		s.Tokens[rc.stride*j+rc.voff] = valBase + v
	}
	pos := rc.stride * rc.n
	for j := 0; j < rc.f; j++ {
		s.Tokens[pos+j] = RecallFILLER
	}
	pos += rc.f
	used = bitset{}
	for q := 0; q < rc.m; q++ {
		if q > 0 {
			for j := 0; j < rc.f/2; j++ {
				s.Tokens[pos] = RecallFILLER
				pos++
			}
		}
		pair := r.intN(rc.n)
		for used.testAndSet(pair) {
			pair = r.intN(rc.n)
		}
		value := s.Tokens[rc.stride*pair+rc.voff] - valBase
		s.Tokens[pos] = RecallQUERY
		s.Tokens[pos+1] = s.Tokens[rc.stride*pair+rc.koff]
		pos += 2
		s.Targets[q] = value
		row := s.Posterior[q]
		clear(row)
		row[value] = 1
		s.EntropyBits[q] = 0
	}
}
