package tunnels

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// propertyTunnels are the tunnels checked for generic properties: defaults, extremes and
// large sizes.
func propertyTunnels() []Tunnel {
	return []Tunnel{
		must(NewBijection(3)), must(NewBijection(20)), must(NewBijection(64)),
		must(NewHMM(5, 5, 20)), must(NewHMM(2, 2, 1)), must(NewHMM(20, 20, 512)), must(NewHMM(20, 3, 50)),
		must(NewRecall(64, 256, 256, 32, 3)), must(NewRecall(1, 1, 1, 0, 1)),
		must(NewRecall(8, 32, 32, 8, 3)), must(NewRecall(4096, 4096, 4096, 1024, 5)),
	}
}

func tunnelName(t Tunnel) string {
	return fmt.Sprintf("%s/vocab%d/len%d/classes%d", t.Name(), t.Vocab(), t.SeqLen(), t.Classes())
}

// TestSequenceProperties checks shapes, token ranges, distributions and entropies.
func TestSequenceProperties(t *testing.T) {
	for _, tun := range propertyTunnels() {
		t.Run(tunnelName(tun), func(t *testing.T) {
			pos := tun.Positions()
			if !slices.IsSorted(pos) || len(pos) == 0 || pos[0] < 0 || pos[len(pos)-1] >= tun.SeqLen() {
				t.Fatalf("positions %v not ascending within the sequence", pos)
			}
			pos[0] = -99 // Positions returns a copy
			if tun.Positions()[0] == -99 {
				t.Fatal("Positions exposes the tunnel's own slice")
			}
			pos = tun.Positions()
			C := tun.Classes()
			maxBits := math.Log2(float64(C))
			var s Sequence
			for i := uint64(0); i < 4; i++ {
				tun.Fill(&s, TrainStream(21), i)
				if len(s.Tokens) != tun.SeqLen() || !slices.Equal(s.Positions, pos) ||
					len(s.Targets) != len(pos) || len(s.Posterior) != len(pos) || len(s.EntropyBits) != len(pos) {
					t.Fatalf("shape: %d tokens, positions %d, targets %d, posterior %d, entropy %d",
						len(s.Tokens), len(s.Positions), len(s.Targets), len(s.Posterior), len(s.EntropyBits))
				}
				for j, x := range s.Tokens {
					if x < 0 || x >= tun.Vocab() {
						t.Fatalf("token %d = %d outside [0,%d)", j, x, tun.Vocab())
					}
				}
				for j, row := range s.Posterior {
					if len(row) != C {
						t.Fatalf("posterior row %d has %d classes, want %d", j, len(row), C)
					}
					sum := 0.0
					for _, p := range row {
						if p < 0 || p > 1 || math.IsNaN(p) {
							t.Fatalf("posterior row %d has %v", j, p)
						}
						sum += p
					}
					if math.Abs(sum-1) > 1e-12 {
						t.Fatalf("posterior row %d sums to %.17g", j, sum)
					}
					h := s.EntropyBits[j]
					if h < 0 || h > maxBits+1e-12 || math.Abs(h-entropyBitsRef(row)) > 1e-10 {
						t.Fatalf("entropy %d = %v, want %v within [0,%v]", j, h, entropyBitsRef(row), maxBits)
					}
					if c := s.Targets[j]; c < 0 || c >= C || row[c] == 0 {
						t.Fatalf("target %d = %d impossible under the posterior", j, c)
					}
				}
				if off, ok := tun.ClassTokens(); ok && tun.Name() == "bijection" {
					for j, p := range pos {
						if p+1 < len(s.Tokens) && s.Tokens[p+1]-off != s.Targets[j] {
							t.Fatalf("target %d = %d but the value token after the key is %d", j, s.Targets[j], s.Tokens[p+1])
						}
					}
				}
			}
		})
	}
}

// TestDeterminism checks that sequence i is the same whatever the batch and on repeat calls,
// and that streams and indices differ.
func TestDeterminism(t *testing.T) {
	for _, tun := range propertyTunnels() {
		t.Run(tunnelName(tun), func(t *testing.T) {
			stream := TrainStream(42)
			big := NewBatch(tun, 8)
			big.Fill(tun, stream, 0)
			again := NewBatch(tun, 8)
			again.Fill(tun, stream, 0)
			if !batchEqual(big, again) {
				t.Fatal("two fills of the same batch differ")
			}
			one := NewBatch(tun, 1)
			for i := 0; i < 8; i++ {
				one.Fill(tun, stream, uint64(i))
				T, P, C := big.T, big.P, big.C
				if !slices.Equal(one.Tokens, big.Tokens[i*T:(i+1)*T]) ||
					!slices.Equal(one.Targets, big.Targets[i*P:(i+1)*P]) ||
					!slices.Equal(one.Posterior, big.Posterior[i*P*C:(i+1)*P*C]) ||
					!slices.Equal(one.EntropyBits, big.EntropyBits[i*P:(i+1)*P]) {
					t.Fatalf("sequence %d differs between a batch of 1 and a batch of 8", i)
				}
			}
			// Different streams and different indices give different sequences.
			probe := NewBatch(tun, 8)
			probe.Fill(tun, ProbeStream(42), 0)
			shifted := NewBatch(tun, 8)
			shifted.Fill(tun, stream, 8)
			if tun.Name() == "recall" && tun.Classes() == 1 {
				return // one key, one value: every sequence is the same
			}
			if slices.Equal(probe.Tokens, big.Tokens) && slices.Equal(probe.Targets, big.Targets) {
				t.Fatal("train and probe streams give the same sequences")
			}
			if slices.Equal(shifted.Tokens, big.Tokens) && slices.Equal(shifted.Targets, big.Targets) {
				t.Fatal("sequences 0..7 and 8..15 are the same")
			}
		})
	}
}

func batchEqual(a, b *Batch) bool {
	return slices.Equal(a.Tokens, b.Tokens) && slices.Equal(a.Targets, b.Targets) &&
		slices.Equal(a.Posterior, b.Posterior) && slices.Equal(a.EntropyBits, b.EntropyBits)
}

// TestGoldenSequences pins a few sequences so any change to the draws is noticed: sequences
// must stay the same across versions and machines.
func TestGoldenSequences(t *testing.T) {
	tests := []struct {
		tun    Tunnel
		tokens []int
	}{
		{must(NewBijection(5)), []int{2, 6, 1, 7, 4, 5, 3}},
		{must(NewHMM(2, 2, 3)), []int{96, 30, 60, 59, 31, 97, 1, 89, 80, 10, 98, 99, 100, 99, 101, 99, 100}},
		{must(NewRecall(2, 4, 4, 2, 2)), []int{1, 12, 4, 16, 1, 10, 4, 15, 2, 2, 3, 12, 2, 3, 10}},
	}
	for _, tc := range tests {
		s := Draw(tc.tun, TrainStream(1), 7)
		if !slices.Equal(s.Tokens, tc.tokens) {
			t.Errorf("%s: sequence 7 of TrainStream(1) is %v, pinned %v", tc.tun.Name(), s.Tokens, tc.tokens)
		}
	}
}

// TestFillReusesSlices checks that Fill resizes a sequence left by another tunnel and then
// writes the same as a fresh draw.
func TestFillReusesSlices(t *testing.T) {
	var s Sequence
	tuns := propertyTunnels()
	for round := 0; round < 2; round++ {
		for _, tun := range tuns {
			tun.Fill(&s, ProbeStream(5), 3)
			fresh := Draw(tun, ProbeStream(5), 3)
			if !slices.Equal(s.Tokens, fresh.Tokens) || !slices.Equal(s.Targets, fresh.Targets) ||
				!slices.Equal(s.EntropyBits, fresh.EntropyBits) || len(s.Posterior) != len(fresh.Posterior) {
				t.Fatalf("%s: reused sequence differs from a fresh one", tunnelName(tun))
			}
			for j := range s.Posterior {
				if !slices.Equal(s.Posterior[j], fresh.Posterior[j]) {
					t.Fatalf("%s: reused posterior row %d differs", tunnelName(tun), j)
				}
			}
		}
	}
}

// TestFillAllocations checks steady-state allocations per Fill.
func TestFillAllocations(t *testing.T) {
	tests := []struct {
		tun Tunnel
		max float64
	}{
		{must(NewBijection(20)), 0},
		{must(NewRecall(64, 256, 256, 32, 3)), 0},
		{must(NewHMM(5, 5, 20)), 2}, // math/rand/v2's Rand holds its source as an interface
	}
	for _, tc := range tests {
		var s Sequence
		tc.tun.Fill(&s, 1, 0)
		i := uint64(0)
		got := testing.AllocsPerRun(100, func() {
			i++
			tc.tun.Fill(&s, 1, i)
		})
		if got > tc.max {
			t.Errorf("%s: %.1f allocations per Fill, want ≤ %.0f", tc.tun.Name(), got, tc.max)
		}
	}
}
