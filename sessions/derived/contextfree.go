package derived

import (
	"fmt"
	"math"

	"windtunnel/tunnels"
)

// hmmContextFreeSequences is how many sequences HMMContextFree fits the predictor on, and
// as many again it scores it on: 20,000 of the presets' HMM (20 observations of 5 states)
// put the estimate within ≈ 0.001 bits of another 20,000's (TestHMMContextFree).
const hmmContextFreeSequences = 20000

// maxContextFreeValues bounds the posterior values HMMContextFree holds at once (sequences ×
// positions × states): a configuration read from someone else's session may ask for 512
// observations over 20 states; the presets' HMM fits its 20,000 sequences in 2 million values.
const maxContextFreeValues = 1 << 21

// Streams of HMMContextFree's fit and score sets: fixed, so the level is one number for a
// tunnel, and apart from every run's training and probe streams.
const (
	contextFreeFitStream   = 0x636f6e74657874 // "context"
	contextFreeScoreStream = 0x66726565       // "free"
)

// HMMContextFree is the context-free level of an HMM tunnel in bit error (a): the error of
// the best predictor that sees only the position and the symbol observed there (all a
// per-position model sees), which is the exact posterior's mean over the sequences with that
// symbol at that position. It is fitted on one set of sequences and scored on another, each
// of hmmContextFreeSequences (fewer for HMMs too large to hold: maxContextFreeValues). Its KL
// is the same number up to sampling: the entropy of a conditional mean exceeds, on average,
// the posteriors' by their mean KL from it. As every sequence draws its own matrices, the
// states are exchangeable and that mean is the uniform guess, the level log2 S less the
// posteriors' mean entropy: 0.419 bits on the presets' HMM (5 states, 5 symbols, K = 20);
// the authors' generator gives 0.413 at their K = 15.
func HMMContextFree(h *tunnels.HMM) (bitErrorA, kl float64, err error) {
	s, _, k := h.Sizes()
	n := max(1, min(hmmContextFreeSequences, maxContextFreeValues/(k*s)))
	return hmmContextFree(h, n, contextFreeFitStream, contextFreeScoreStream)
}

// hmmContextFree is HMMContextFree on n sequences of each of the streams fitStream and
// scoreStream (the same stream: the predictor scored on the sequences it was fitted on).
func hmmContextFree(h *tunnels.HMM, n int, fitStream, scoreStream uint64) (bitErrorA, kl float64, err error) {
	s, o, k := h.Sizes()
	fit := tunnels.NewBatch(h, n)
	fit.Fill(h, fitStream, 0)
	if fit.P != k || fit.C != s {
		return math.NaN(), math.NaN(), fmt.Errorf("derived: hmm context-free level: %d positions of %d classes, want %d of %d", fit.P, fit.C, k, s)
	}
	// q[(t·o + sym)·s + state]: the mean posterior at position t over the sequences that
	// observe sym there (uniform where none does).
	q := make([]float64, k*o*s)
	count := make([]float64, k*o)
	for i, sym := range h.ObservedSymbols(fit) {
		cell := (i%k)*o + sym
		count[cell]++
		for st, v := range fit.Posterior[i*s : (i+1)*s] {
			q[cell*s+st] += v
		}
	}
	for cell, c := range count {
		for st := range s {
			if c == 0 {
				q[cell*s+st] = 1 / float64(s)
			} else {
				q[cell*s+st] /= c
			}
		}
	}
	score := tunnels.NewBatch(h, n)
	score.Fill(h, scoreStream, 0)
	hq, hp := make([]float64, k), make([]float64, k)
	for i, sym := range h.ObservedSymbols(score) {
		cell := (i%k)*o + sym
		p, qc := score.Posterior[i*s:(i+1)*s], q[cell*s:(cell+1)*s]
		for st, v := range p {
			if v > 0 {
				hp[i%k] -= v * math.Log2(v)
				kl += v * math.Log2(v/qc[st])
			}
			if qc[st] > 0 {
				hq[i%k] -= qc[st] * math.Log2(qc[st])
			}
		}
	}
	for t := range k {
		bitErrorA += math.Abs(hq[t]-hp[t]) / float64(n)
	}
	return bitErrorA / float64(k), kl / float64(n*k), nil
}
