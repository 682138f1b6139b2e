package tunnels

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat"
)

// HMM header and observation tokens; probability p on the grid is token round(100p)−5, and
// symbol o is token HMMSymbolBase+o.
const (
	HMMTrans      = 96
	HMMEmit       = 97
	HMMSep        = 98
	HMMObs        = 99
	HMMSymbolBase = 100
)

// HMM is the state-tracking tunnel: each sequence draws its own gridded transition and
// emission matrices, shows them in a header, then emits K observations of a hidden chain.
type HMM struct {
	s, o, k   int
	positions []int
}

// NewHMM builds the tunnel with s hidden states (2..20), o symbols (2..20) and k
// observations (1..512).
func NewHMM(s, o, k int) (*HMM, error) {
	const task = "hmm"
	if err := checkRange(task, "states", s, MinStates, MaxStates, ""); err != nil {
		return nil, err
	}
	if err := checkRange(task, "symbols", o, MinSymbols, MaxSymbols, ""); err != nil {
		return nil, err
	}
	if err := checkRange(task, "k", k, MinK, MaxK, ""); err != nil {
		return nil, err
	}
	h := &HMM{s: s, o: o, k: k, positions: make([]int, k)}
	for t := range h.positions {
		h.positions[t] = h.headerLen() + 2*t + 1
	}
	return h, nil
}

// WithK returns the same tunnel with k observations: sequence i of a stream has the same
// matrices and the same first min(K, k) observations and posteriors in both.
func (h *HMM) WithK(k int) (*HMM, error) { return NewHMM(h.s, h.o, k) }

// Sizes returns S, O and K.
func (h *HMM) Sizes() (states, symbols, k int) { return h.s, h.o, h.k }

// headerLen is the number of header tokens: [TRANS] T [EMIT] E [SEP].
func (h *HMM) headerLen() int { return h.s*h.s + h.s*h.o + 3 }

// Name is "hmm".
func (h *HMM) Name() string { return "hmm" }

// Vocab is 100+O: the 96 grid probabilities, four markers and the symbols.
func (h *HMM) Vocab() int { return HMMSymbolBase + h.o }

// SeqLen is the header and K (OBS, symbol) pairs.
func (h *HMM) SeqLen() int { return h.headerLen() + 2*h.k }

// Classes is S: the hidden state.
func (h *HMM) Classes() int { return h.s }

// Positions are the symbol tokens.
func (h *HMM) Positions() []int { return clonePositions(h.positions) }

// ClassTokens reports that hidden states are not input tokens.
func (h *HMM) ClassTokens() (int, bool) { return 0, false }

// ObservedSymbols is the symbol (0..O−1) observed at each scored position of b's sequences,
// N×P in b's order (sequence-major), read from its tokens; b must be this tunnel's.
func (h *HMM) ObservedSymbols(b *Batch) []int {
	out := make([]int, 0, b.N*len(h.positions))
	for n := range b.N {
		for _, at := range h.positions {
			out = append(out, b.Tokens[n*b.T+at]-HMMSymbolBase)
		}
	}
	return out
}

// DefaultTarget is Posterior, as the paper trains.
func (h *HMM) DefaultTarget() TargetMode { return Posterior }

// header draws the gridded matrices of a sequence in hundredths (th S×S, eh S×O,
// row-major) from its generator; it is the first thing drawn.
func (h *HMM) header(r *rand.Rand, th, eh []int) {
	for a := 0; a < h.s; a++ {
		gridRow(r, th[a*h.s:(a+1)*h.s])
	}
	for a := 0; a < h.s; a++ {
		gridRow(r, eh[a*h.o:(a+1)*h.o])
	}
}

// Params returns the gridded transition T (S×S) and emission E (S×O) matrices of sequence
// i of the stream, as the probabilities the model reads in the header.
func (h *HMM) Params(stream, i uint64) (T, E [][]float64) {
	th, eh := make([]int, h.s*h.s), make([]int, h.s*h.o)
	h.header(seqRand(stream, i), th, eh)
	return gridMatrix(th, h.s, h.s), gridMatrix(eh, h.s, h.o)
}

// gridMatrix turns rows×cols hundredths into probabilities.
func gridMatrix(hs []int, rows, cols int) [][]float64 {
	m := make([][]float64, rows)
	for a := range m {
		m[a] = make([]float64, cols)
		for b := range m[a] {
			m[a][b] = float64(hs[a*cols+b]) / gridTotal
		}
	}
	return m
}

// Fill writes sequence i of the stream into s: the header, then K observations of the
// chain, with the realised hidden state as target and the forward-algorithm filtering
// posterior p(s_t | o_1..o_t) at each symbol.
func (h *HMM) Fill(s *Sequence, stream uint64, i uint64) {
	S, O := h.s, h.o
	prepare(s, h.SeqLen(), h.positions, S)
	r := seqRand(stream, i)
	var th [MaxStates * MaxStates]int
	var eh [MaxStates * MaxSymbols]int
	h.header(r, th[:S*S], eh[:S*O])

	// Header tokens and log-probabilities of the gridded matrices.
	var logT [MaxStates * MaxStates]float64
	var logE [MaxStates * MaxSymbols]float64
	tok := s.Tokens
	tok[0] = HMMTrans
	for j := 0; j < S*S; j++ {
		tok[1+j] = th[j] - gridFloor
		logT[j] = math.Log(float64(th[j]) / gridTotal)
	}
	tok[1+S*S] = HMMEmit
	for j := 0; j < S*O; j++ {
		tok[2+S*S+j] = eh[j] - gridFloor
		logE[j] = math.Log(float64(eh[j]) / gridTotal)
	}
	tok[2+S*S+S*O] = HMMSep

	// The chain, drawn step by step (s_t then o_t) so a longer K extends a shorter one.
	var la [MaxStates]float64 // normalised log filtering distribution
	state := r.IntN(S)
	for t := 0; t < h.k; t++ {
		if t > 0 {
			state = sampleGrid(r, th[state*S:(state+1)*S])
		}
		o := sampleGrid(r, eh[state*O:(state+1)*O])
		pos := h.positions[t]
		tok[pos-1] = HMMObs
		tok[pos] = HMMSymbolBase + o
		s.Targets[t] = state
		s.EntropyBits[t] = filterStep(t, o, S, O, logT[:], logE[:], la[:S], s.Posterior[t])
	}
}

// filterStep advances the exact forward filter by observation o: la holds the normalised
// log filtering distribution over the S states (from the uniform prior at t = 0), logT and
// logE the log transition (S×S) and emission (S×O) matrices. It writes the posterior into
// row and returns its entropy in bits. Fill and PosteriorOf share it, so a recomputed
// posterior is the drawn one bit for bit.
func filterStep(t, o, S, O int, logT, logE, la, row []float64) float64 {
	var next, terms [MaxStates]float64
	if t == 0 {
		logPrior := -math.Log(float64(S))
		for a := 0; a < S; a++ {
			next[a] = logPrior + logE[a*O+o]
		}
	} else {
		for b := 0; b < S; b++ {
			for a := 0; a < S; a++ {
				terms[a] = la[a] + logT[a*S+b]
			}
			next[b] = logSumExp(terms[:S]) + logE[b*O+o]
		}
	}
	z := logSumExp(next[:S])
	for a := 0; a < S; a++ {
		la[a] = next[a] - z
		row[a] = math.Exp(la[a])
	}
	return stat.Entropy(row) / math.Ln2
}

// logSumExp returns log Σ exp(x) stably.
func logSumExp(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	if math.IsInf(m, -1) {
		return m
	}
	sum := 0.0
	for _, v := range x {
		sum += math.Exp(v - m)
	}
	return m + math.Log(sum)
}
