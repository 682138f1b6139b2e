package tunnels

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

// Recall is the associative-recall tunnel: N key→value pairs are stored, then after fillers
// M of the keys are queried and the network must name the stored value.
type Recall struct {
	n, kv, vv, f, m int
	positions       []int
}

// NewRecall builds the tunnel with n pairs drawn from kv keys and vv values, f fillers and
// m queries.
func NewRecall(n, kv, vv, f, m int) (*Recall, error) {
	const task = "recall"
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
	rc := &Recall{n: n, kv: kv, vv: vv, f: f, m: m, positions: make([]int, m)}
	for q := range rc.positions {
		rc.positions[q] = rc.queryStart() + q*(2+f/2) + 1
	}
	return rc, nil
}

// Sizes returns N, Kv, Vv, F and M.
func (rc *Recall) Sizes() (pairs, keys, values, fillers, queries int) {
	return rc.n, rc.kv, rc.vv, rc.f, rc.m
}

// queryStart is the index of the first QUERY token: after the stores and the fillers.
func (rc *Recall) queryStart() int { return 4*rc.n + rc.f }

// Name is "recall".
func (rc *Recall) Name() string { return "recall" }

// Vocab is 10+Kv+Vv: the specials, the keys and the values.
func (rc *Recall) Vocab() int { return RecallKeyBase + rc.kv + rc.vv }

// SeqLen is 4N + F + 2M + (M−1)·⌊F/2⌋.
func (rc *Recall) SeqLen() int { return rc.queryStart() + 2*rc.m + (rc.m-1)*(rc.f/2) }

// Classes is Vv: the stored value.
func (rc *Recall) Classes() int { return rc.vv }

// Positions are the query key tokens.
func (rc *Recall) Positions() []int { return clonePositions(rc.positions) }

// ClassTokens reports that class v is the value token 10+Kv+v.
func (rc *Recall) ClassTokens() (int, bool) { return RecallKeyBase + rc.kv, true }

// DefaultTarget is Sampled, as the paper trains.
func (rc *Recall) DefaultTarget() TargetMode { return Sampled }

// Fill writes sequence i of the stream into s: `STORE k SEP v` per pair, F fillers, then M
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
		s.Tokens[4*j] = RecallSTORE
		s.Tokens[4*j+1] = RecallKeyBase + k
		s.Tokens[4*j+2] = RecallSEP
	}
	used = bitset{}
	for j := 0; j < rc.n; j++ {
		v := r.intN(rc.vv)
		for used.testAndSet(v) {
			v = r.intN(rc.vv)
		}
		s.Tokens[4*j+3] = valBase + v
	}
	pos := 4 * rc.n
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
		value := s.Tokens[4*pair+3] - valBase
		s.Tokens[pos] = RecallQUERY
		s.Tokens[pos+1] = s.Tokens[4*pair+1]
		pos += 2
		s.Targets[q] = value
		row := s.Posterior[q]
		clear(row)
		row[value] = 1
		s.EntropyBits[q] = 0
	}
}
