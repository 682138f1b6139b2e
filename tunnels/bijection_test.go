package tunnels

import (
	"math"
	"testing"
)

// permutations returns every permutation of 0..n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for at := 0; at <= len(p); at++ {
			q := make([]int, 0, n)
			q = append(q, p[:at]...)
			q = append(q, n-1)
			q = append(q, p[at:]...)
			out = append(out, q)
		}
	}
	return out
}

// TestBijectionBruteForce enumerates all V! permutations, keeps those consistent with the
// pairs shown before each key, and compares the distribution of π(key) with Posterior.
func TestBijectionBruteForce(t *testing.T) {
	for _, v := range []int{3, 4, 5, 6} {
		b := must(NewBijection(v))
		perms := permutations(v)
		for i := uint64(0); i < 6; i++ {
			stream := TrainStream(uint64(v))
			s := Draw(b, stream, i)
			for j := 0; j < v-1; j++ {
				key := s.Tokens[2*j]
				want := make([]float64, v)
				for _, pi := range perms {
					ok := true
					for m := 0; m < j; m++ {
						if pi[s.Tokens[2*m]] != s.Tokens[2*m+1]-v {
							ok = false
							break
						}
					}
					if ok {
						want[pi[key]]++
					}
				}
				normalise(want)
				closeSlices(t, "bijection posterior", s.Posterior[j], want, 1e-12)
				if got, w := s.EntropyBits[j], entropyBitsRef(want); math.Abs(got-w) > 1e-12 {
					t.Fatalf("V=%d seq %d key %d: entropy %v, brute force %v", v, i, j, got, w)
				}
				if s.Posterior[j][s.Targets[j]] == 0 {
					t.Fatalf("V=%d seq %d key %d: target %d has zero posterior", v, i, j, s.Targets[j])
				}
			}
		}
	}
}

func TestBijectionLayout(t *testing.T) {
	for _, v := range []int{3, 20, 64} {
		b := must(NewBijection(v))
		if b.SeqLen() != 2*v-3 || b.Vocab() != 2*v || b.Classes() != v {
			t.Fatalf("V=%d: seqlen %d vocab %d classes %d", v, b.SeqLen(), b.Vocab(), b.Classes())
		}
		for i := uint64(0); i < 20; i++ {
			s := Draw(b, ProbeStream(3), i)
			keys, vals := map[int]bool{}, map[int]bool{}
			for j, p := range s.Positions {
				if p != 2*j {
					t.Fatalf("V=%d: position %d = %d, want %d", v, j, p, 2*j)
				}
				k := s.Tokens[p]
				if k < 0 || k >= v || keys[k] {
					t.Fatalf("V=%d seq %d: key token %d at %d not a fresh key", v, i, k, p)
				}
				keys[k] = true
				if p+1 < len(s.Tokens) {
					val := s.Tokens[p+1] - v
					if val < 0 || val >= v || vals[val] {
						t.Fatalf("V=%d seq %d: value token %d at %d not a fresh value", v, i, s.Tokens[p+1], p+1)
					}
					vals[val] = true
					if s.Targets[j] != val {
						t.Fatalf("V=%d seq %d: target %d at key %d, next token says %d", v, i, s.Targets[j], j, val)
					}
				} else if vals[s.Targets[j]] {
					t.Fatalf("V=%d seq %d: last target %d was already revealed", v, i, s.Targets[j])
				}
				// The entropy ladder log2(V), ..., log2(2).
				if w := math.Log2(float64(v - j)); math.Abs(s.EntropyBits[j]-w) > 1e-12 {
					t.Fatalf("V=%d: entropy at key %d = %v, want %v", v, j, s.EntropyBits[j], w)
				}
			}
		}
	}
}

// TestBijectionUniform checks that keys, values and the first target are roughly uniform.
func TestBijectionUniform(t *testing.T) {
	const v, n = 5, 5000
	b := must(NewBijection(v))
	var firstKey, firstVal [v]int
	var s Sequence
	for i := uint64(0); i < n; i++ {
		b.Fill(&s, TrainStream(9), i)
		firstKey[s.Tokens[0]]++
		firstVal[s.Targets[0]]++
	}
	for c := 0; c < v; c++ {
		// Binomial sd = sqrt(5000*0.2*0.8) ≈ 28; allow 5 sd.
		if math.Abs(float64(firstKey[c])-n/v) > 140 || math.Abs(float64(firstVal[c])-n/v) > 140 {
			t.Errorf("symbol %d: first key %d times, first value %d times; want about %d", c, firstKey[c], firstVal[c], n/v)
		}
	}
}
