package tunnels

import "fmt"

// TargetMode says what a network is trained against at each scored position.
type TargetMode int

const (
	// Sampled trains on the realised class (the value, hidden state or stored value): a
	// cross-entropy whose population minimiser is the posterior.
	Sampled TargetMode = iota
	// Posterior trains with a soft cross-entropy on the exact posterior.
	Posterior
)

// String returns the mode's flag spelling.
func (m TargetMode) String() string {
	switch m {
	case Sampled:
		return "sampled"
	case Posterior:
		return "posterior"
	}
	return fmt.Sprintf("TargetMode(%d)", int(m))
}

// ParseTargetMode reads "sampled" or "posterior".
func ParseTargetMode(s string) (TargetMode, error) {
	switch s {
	case "sampled":
		return Sampled, nil
	case "posterior":
		return Posterior, nil
	}
	return 0, fmt.Errorf("tunnels: target %q: want sampled or posterior", s)
}

// Tunnel is one task with exact posteriors. All sequences of a tunnel have the same length
// and the same scored positions.
type Tunnel interface {
	// Name is the task's flag spelling: "bijection", "hmm" or "recall".
	Name() string
	// Vocab is the number of distinct input tokens.
	Vocab() int
	// SeqLen is the number of tokens in every sequence.
	SeqLen() int
	// Classes is the number of output classes at a scored position.
	Classes() int
	// Positions are the scored token indices, ascending; the network predicts there.
	Positions() []int
	// ClassTokens reports the token id of class 0 when the classes are a contiguous run of
	// input tokens (bijection values, recall values), so a tied output head can predict them;
	// ok is false when the classes are not tokens (HMM states).
	ClassTokens() (offset int, ok bool)
	// DefaultTarget is the paper's training target for this task.
	DefaultTarget() TargetMode
	// Fill writes sequence i of the stream into s, reusing its slices.
	Fill(s *Sequence, stream uint64, i uint64)
}

// Sequence is one drawn sequence with its scoring information.
type Sequence struct {
	// Tokens has SeqLen token ids.
	Tokens []int `json:"tokens"`
	// Positions are the scored token indices (the tunnel's Positions).
	Positions []int `json:"positions"`
	// Targets is the realised class at each scored position (the sampled target).
	Targets []int `json:"targets"`
	// Posterior is the exact posterior over the classes at each scored position.
	Posterior [][]float64 `json:"posterior"`
	// EntropyBits is the posterior's entropy in bits at each scored position.
	EntropyBits []float64 `json:"entropy_bits"`
}

// Draw returns sequence i of the stream as a fresh Sequence.
func Draw(t Tunnel, stream, i uint64) Sequence {
	var s Sequence
	t.Fill(&s, stream, i)
	return s
}

// Batch is n consecutive sequences of a stream laid out flat for a network.
type Batch struct {
	N, T, P, C int
	// Tokens is N×T token ids.
	Tokens []int
	// Targets is N×P sampled classes.
	Targets []int
	// Posterior is N×P×C exact posteriors.
	Posterior []float64
	// EntropyBits is N×P posterior entropies in bits.
	EntropyBits []float64

	seq Sequence
}

// NewBatch allocates a batch of n sequences for the tunnel.
func NewBatch(t Tunnel, n int) *Batch {
	T, P, C := t.SeqLen(), len(t.Positions()), t.Classes()
	return &Batch{
		N: n, T: T, P: P, C: C,
		Tokens:      make([]int, n*T),
		Targets:     make([]int, n*P),
		Posterior:   make([]float64, n*P*C),
		EntropyBits: make([]float64, n*P),
	}
}

// Fill writes sequences first, first+1, ... of the stream into b.
func (b *Batch) Fill(t Tunnel, stream, first uint64) {
	for n := 0; n < b.N; n++ {
		t.Fill(&b.seq, stream, first+uint64(n))
		copy(b.Tokens[n*b.T:(n+1)*b.T], b.seq.Tokens)
		copy(b.Targets[n*b.P:(n+1)*b.P], b.seq.Targets)
		copy(b.EntropyBits[n*b.P:(n+1)*b.P], b.seq.EntropyBits)
		for p := 0; p < b.P; p++ {
			copy(b.Posterior[(n*b.P+p)*b.C:(n*b.P+p+1)*b.C], b.seq.Posterior[p])
		}
	}
}

// Stream domains keep training and held-out probe sequences disjoint in seed space.
const (
	trainDomain = 0x7472_6169_6e00_0001 // "train"
	probeDomain = 0x7072_6f62_6500_0002 // "probe"
)

// TrainStream is the stream of fresh training sequences for a run seed.
func TrainStream(seed uint64) uint64 { return mix64(seed ^ trainDomain) }

// ProbeStream is the stream of the fixed held-out probe set for a run seed.
func ProbeStream(seed uint64) uint64 { return mix64(seed ^ probeDomain) }

// mix64 is the splitmix64 finaliser: a bijection on uint64 with good avalanche.
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
