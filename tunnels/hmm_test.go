package tunnels

import (
	"math"
	"testing"
)

// hmmFromTokens decodes the matrices and observations a sequence shows.
func hmmFromTokens(t *testing.T, h *HMM, tok []int) (T, E [][]float64, obs []int) {
	t.Helper()
	S, O, K := h.Sizes()
	at := 1
	read := func(rows, cols int) [][]float64 {
		m := make([][]float64, rows)
		for a := range m {
			m[a] = make([]float64, cols)
			for b := range m[a] {
				m[a][b] = float64(tok[at]+5) / 100
				at++
			}
		}
		return m
	}
	T = read(S, S)
	at++ // [EMIT]
	E = read(S, O)
	at++ // [SEP]
	for k := 0; k < K; k++ {
		obs = append(obs, tok[at+1]-HMMSymbolBase)
		at += 2
	}
	return T, E, obs
}

// bruteForceFiltering sums p(path, o_1..o_k) over all S^k hidden paths (initial state
// uniform) and returns p(s_k | o_1..o_k).
func bruteForceFiltering(T, E [][]float64, obs []int, k int) []float64 {
	S := len(T)
	want := make([]float64, S)
	path := make([]int, k)
	for {
		p := 1 / float64(S) * E[path[0]][obs[0]]
		for m := 1; m < k; m++ {
			p *= T[path[m-1]][path[m]] * E[path[m]][obs[m]]
		}
		want[path[k-1]] += p
		// next path in lexicographic order
		m := k - 1
		for m >= 0 && path[m] == S-1 {
			path[m] = 0
			m--
		}
		if m < 0 {
			break
		}
		path[m]++
	}
	normalise(want)
	return want
}

// TestHMMBruteForce compares the forward-algorithm posterior with brute-force enumeration
// at every step.
func TestHMMBruteForce(t *testing.T) {
	for _, S := range []int{2, 3, 5} {
		for _, O := range []int{2, 3, 5} {
			h := must(NewHMM(S, O, 6))
			for i := uint64(0); i < 3; i++ {
				stream := TrainStream(uint64(10*S + O))
				s := Draw(h, stream, i)
				T, E, obs := hmmFromTokens(t, h, s.Tokens)
				for k := 1; k <= len(obs); k++ {
					want := bruteForceFiltering(T, E, obs, k)
					closeSlices(t, "hmm posterior", s.Posterior[k-1], want, 1e-10)
					if got, w := s.EntropyBits[k-1], entropyBitsRef(want); math.Abs(got-w) > 1e-10 {
						t.Fatalf("S=%d O=%d seq %d t=%d: entropy %v, brute force %v", S, O, i, k, got, w)
					}
				}
			}
		}
	}
}

// TestHMMWithKBruteForce checks a WithK tunnel (the length-generalisation probe sets: a
// K=3 tunnel lengthened to 9) against brute-force enumeration at every step, the steps
// past the original K included, on the probe stream the lab evaluates.
func TestHMMWithKBruteForce(t *testing.T) {
	for _, sz := range []struct{ S, O int }{{2, 3}, {3, 2}, {4, 4}} {
		h := must(NewHMM(sz.S, sz.O, 3))
		hk := must(h.WithK(9))
		if _, _, k := hk.Sizes(); k != 9 || hk.SeqLen() != h.SeqLen()+12 || len(hk.Positions()) != 9 {
			t.Fatalf("%+v: WithK(9) has K %d, %d tokens, %d positions", sz, k, hk.SeqLen(), len(hk.Positions()))
		}
		for i := uint64(0); i < 4; i++ {
			s := Draw(hk, ProbeStream(7), i)
			T, E, obs := hmmFromTokens(t, hk, s.Tokens)
			if len(obs) != 9 {
				t.Fatalf("%+v seq %d: %d observations", sz, i, len(obs))
			}
			for k := 1; k <= 9; k++ {
				want := bruteForceFiltering(T, E, obs, k)
				closeSlices(t, "WithK posterior", s.Posterior[k-1], want, 1e-10)
				if got, w := s.EntropyBits[k-1], entropyBitsRef(want); math.Abs(got-w) > 1e-10 {
					t.Fatalf("%+v seq %d t=%d: entropy %v, brute force %v", sz, i, k, got, w)
				}
			}
		}
	}
}

func TestHMMLayoutAndGrid(t *testing.T) {
	sizes := []struct{ S, O, K int }{{5, 5, 20}, {2, 2, 1}, {20, 20, 512}, {3, 17, 50}, {20, 2, 8}}
	for _, sz := range sizes {
		h := must(NewHMM(sz.S, sz.O, sz.K))
		hdr := sz.S*sz.S + sz.S*sz.O + 3
		if h.SeqLen() != hdr+2*sz.K || h.Vocab() != 100+sz.O || h.Classes() != sz.S {
			t.Fatalf("%+v: seqlen %d vocab %d classes %d", sz, h.SeqLen(), h.Vocab(), h.Classes())
		}
		for i := uint64(0); i < 10; i++ {
			s := Draw(h, ProbeStream(4), i)
			tok := s.Tokens
			if tok[0] != 96 || tok[1+sz.S*sz.S] != 97 || tok[2+sz.S*sz.S+sz.S*sz.O] != 98 {
				t.Fatalf("%+v: markers %d %d %d", sz, tok[0], tok[1+sz.S*sz.S], tok[2+sz.S*sz.S+sz.S*sz.O])
			}
			checkGridRows := func(start, rows, cols int) {
				for a := 0; a < rows; a++ {
					sum := 0
					for b := 0; b < cols; b++ {
						x := tok[start+a*cols+b]
						if x < 0 || x > 95 {
							t.Fatalf("%+v: probability token %d out of 0..95", sz, x)
						}
						sum += x + 5 // hundredths, each >= 5
					}
					if sum != 100 {
						t.Fatalf("%+v seq %d: row %d sums to %d hundredths", sz, i, a, sum)
					}
				}
			}
			checkGridRows(1, sz.S, sz.S)
			checkGridRows(2+sz.S*sz.S, sz.S, sz.O)
			for k := 0; k < sz.K; k++ {
				p := hdr + 2*k + 1
				if s.Positions[k] != p || tok[p-1] != 99 || tok[p] < 100 || tok[p] >= 100+sz.O {
					t.Fatalf("%+v: observation %d at %d: position %d tokens %d %d", sz, k, p, s.Positions[k], tok[p-1], tok[p])
				}
				if s.Targets[k] < 0 || s.Targets[k] >= sz.S {
					t.Fatalf("%+v: target %d out of range", sz, s.Targets[k])
				}
			}
			// Params agrees with the header, on the grid.
			T, E := h.Params(ProbeStream(4), i)
			gt, ge, _ := hmmFromTokens(t, h, tok)
			for a := range T {
				closeSlices(t, "Params T", T[a], gt[a], 0)
				closeSlices(t, "Params E", E[a], ge[a], 0)
			}
		}
	}
}

// TestHMMWithK checks that a longer or shorter K keeps the matrices and the shared prefix.
func TestHMMWithK(t *testing.T) {
	h20 := must(NewHMM(5, 5, 20))
	for _, k := range []int{1, 7, 30, 50} {
		hk := must(h20.WithK(k))
		n := min(20, k)
		hdr := 25 + 25 + 3
		for i := uint64(0); i < 10; i++ {
			a, b := Draw(h20, TrainStream(2), i), Draw(hk, TrainStream(2), i)
			for j := 0; j < hdr+2*n; j++ {
				if a.Tokens[j] != b.Tokens[j] {
					t.Fatalf("K=20 vs K=%d seq %d: token %d differs", k, i, j)
				}
			}
			for j := 0; j < n; j++ {
				if a.Targets[j] != b.Targets[j] || a.EntropyBits[j] != b.EntropyBits[j] {
					t.Fatalf("K=20 vs K=%d seq %d: step %d differs", k, i, j)
				}
				closeSlices(t, "WithK posterior", a.Posterior[j], b.Posterior[j], 0)
			}
		}
	}
}

// TestGridRow checks the Dirichlet-floor-grid rows: on the grid, floored, exact sums,
// and with the right Dirichlet(1) marginals.
func TestGridRow(t *testing.T) {
	for _, n := range []int{2, 3, 5, 19, 20} {
		r := seqRand(1, uint64(n))
		h := make([]int, n)
		mean := make([]float64, n)
		const draws = 4000
		for d := 0; d < draws; d++ {
			gridRow(r, h)
			sum := 0
			for j, x := range h {
				if x < 5 {
					t.Fatalf("n=%d: entry %d below the floor", n, x)
				}
				sum += x
				mean[j] += float64(x) / draws
			}
			if sum != 100 {
				t.Fatalf("n=%d: row sums to %d", n, sum)
			}
		}
		for j := range mean {
			// Symmetric Dirichlet: every entry has mean 100/n hundredths (sd of the mean
			// below 0.5 hundredths for 4000 draws).
			if math.Abs(mean[j]-100/float64(n)) > 2 {
				t.Errorf("n=%d: entry %d mean %.2f hundredths, want %.2f", n, j, mean[j], 100/float64(n))
			}
		}
	}
	// n=2: Dirichlet(1) makes the first entry uniform, so P(h ≤ 30) ≈ 0.305 and P(h ≤ 50) ≈ 0.505.
	r := seqRand(2, 0)
	h := make([]int, 2)
	le30, le50 := 0, 0
	const draws = 8000
	for d := 0; d < draws; d++ {
		gridRow(r, h)
		if h[0] <= 30 {
			le30++
		}
		if h[0] <= 50 {
			le50++
		}
	}
	if f := float64(le30) / draws; math.Abs(f-0.305) > 0.025 {
		t.Errorf("P(h0 ≤ 30) = %.3f, want about 0.305", f)
	}
	if f := float64(le50) / draws; math.Abs(f-0.505) > 0.025 {
		t.Errorf("P(h0 ≤ 50) = %.3f, want about 0.505", f)
	}
}

// TestHMMChainFrequencies checks that observed symbols follow the matrices: the empirical
// distribution of o_1 given the header equals Σ_s E[s][o]/S on average.
func TestHMMChainFrequencies(t *testing.T) {
	h := must(NewHMM(2, 2, 1))
	const n = 6000
	diff := 0.0
	for i := uint64(0); i < n; i++ {
		s := Draw(h, TrainStream(5), i)
		_, E, obs := hmmFromTokens(t, h, s.Tokens)
		p1 := (E[0][1] + E[1][1]) / 2
		o := 0.0
		if obs[0] == 1 {
			o = 1
		}
		diff += o - p1
	}
	// The mean residual has sd ≤ 0.5/sqrt(n) ≈ 0.0065.
	if m := diff / n; math.Abs(m) > 0.03 {
		t.Errorf("mean(o_1 − p(o_1=1)) = %.4f, want about 0", m)
	}
}

// TestHMMCalibration checks that the realised hidden states are distributed as the
// posteriors say: E[p(s_t)] over s_t drawn by the chain equals E[Σ_a p_a²].
func TestHMMCalibration(t *testing.T) {
	h := must(NewHMM(3, 3, 10))
	const n = 3000
	var got, want [10]float64
	var s Sequence
	for i := uint64(0); i < n; i++ {
		h.Fill(&s, TrainStream(6), i)
		for k, row := range s.Posterior {
			got[k] += row[s.Targets[k]] / n
			for _, p := range row {
				want[k] += p * p / n
			}
		}
	}
	for k := range got {
		// Each term lies in [0,1]: the sd of the mean is below 0.01.
		if math.Abs(got[k]-want[k]) > 0.04 {
			t.Errorf("t=%d: E[p(s_t)] = %.4f, E[Σp²] = %.4f", k+1, got[k], want[k])
		}
	}
}

// TestObservedSymbols: each scored position's symbol is the token after its OBS marker,
// counted from the symbols' base, in the batch's sequence-major order.
func TestObservedSymbols(t *testing.T) {
	h := must(NewHMM(3, 7, 6))
	b := NewBatch(h, 4)
	b.Fill(h, ProbeStream(2), 0)
	got := h.ObservedSymbols(b)
	if len(got) != 4*6 {
		t.Fatalf("%d symbols, want 24", len(got))
	}
	for n := range 4 {
		s := Draw(h, ProbeStream(2), uint64(n))
		for p, at := range h.Positions() {
			if s.Tokens[at-1] != HMMObs || got[n*6+p] != s.Tokens[at]-HMMSymbolBase || got[n*6+p] < 0 || got[n*6+p] >= 7 {
				t.Fatalf("sequence %d position %d: symbol %d, token %d after %d", n, p, got[n*6+p], s.Tokens[at], s.Tokens[at-1])
			}
		}
	}
}
