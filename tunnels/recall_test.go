package tunnels

import (
	"math"
	"testing"
)

// TestRecallByConstruction decodes each sequence and checks the targets and posteriors
// against the stored pairs, and the layout token by token.
func TestRecallByConstruction(t *testing.T) {
	sizes := []struct{ N, Kv, Vv, F, M int }{
		{64, 256, 256, 32, 3}, {8, 32, 32, 8, 3}, {1, 1, 1, 0, 1}, {5, 5, 7, 3, 5},
		{16, 16, 16, 1, 4}, {300, 4096, 300, 1024, 7},
	}
	for _, sz := range sizes {
		rc := must(NewRecall(sz.N, sz.Kv, sz.Vv, sz.F, sz.M))
		valBase := 10 + sz.Kv
		wantLen := 4*sz.N + sz.F + 2*sz.M + (sz.M-1)*(sz.F/2)
		if rc.SeqLen() != wantLen || rc.Vocab() != 10+sz.Kv+sz.Vv || rc.Classes() != sz.Vv {
			t.Fatalf("%+v: seqlen %d vocab %d classes %d", sz, rc.SeqLen(), rc.Vocab(), rc.Classes())
		}
		for i := uint64(0); i < 10; i++ {
			s := Draw(rc, TrainStream(8), i)
			tok := s.Tokens
			stored := map[int]int{}
			values := map[int]bool{}
			for j := 0; j < sz.N; j++ {
				k, v := tok[4*j+1]-10, tok[4*j+3]-valBase
				if tok[4*j] != 1 || tok[4*j+2] != 4 || k < 0 || k >= sz.Kv || v < 0 || v >= sz.Vv {
					t.Fatalf("%+v seq %d: pair %d is %v", sz, i, j, tok[4*j:4*j+4])
				}
				if _, dup := stored[k]; dup || values[v] {
					t.Fatalf("%+v seq %d: pair %d repeats a key or value", sz, i, j)
				}
				stored[k], values[v] = v, true
			}
			at := 4 * sz.N
			queried := map[int]bool{}
			for q := 0; q < sz.M; q++ {
				fill := sz.F
				if q > 0 {
					fill = sz.F / 2
				}
				for j := 0; j < fill; j++ {
					if tok[at] != 2 {
						t.Fatalf("%+v seq %d: token %d = %d, want FILLER", sz, i, at, tok[at])
					}
					at++
				}
				if tok[at] != 3 || s.Positions[q] != at+1 {
					t.Fatalf("%+v seq %d: query %d at %d: token %d position %d", sz, i, q, at, tok[at], s.Positions[q])
				}
				k := tok[at+1] - 10
				v, ok := stored[k]
				if !ok || queried[k] {
					t.Fatalf("%+v seq %d: query %d key %d not a fresh stored key", sz, i, q, k)
				}
				queried[k] = true
				if s.Targets[q] != v {
					t.Fatalf("%+v seq %d: query %d target %d, stored value %d", sz, i, q, s.Targets[q], v)
				}
				want := make([]float64, sz.Vv)
				want[v] = 1
				closeSlices(t, "recall posterior", s.Posterior[q], want, 0)
				if s.EntropyBits[q] != 0 {
					t.Fatalf("%+v: entropy %v, want 0", sz, s.EntropyBits[q])
				}
				at += 2
			}
			if at != len(tok) {
				t.Fatalf("%+v: layout ends at %d of %d tokens", sz, at, len(tok))
			}
		}
	}
}

// TestRecallUniform checks that the first stored key and the queried pair are roughly uniform.
func TestRecallUniform(t *testing.T) {
	const n = 4000
	rc := must(NewRecall(4, 8, 8, 2, 1))
	var key [8]int
	var pair [4]int
	var s Sequence
	for i := uint64(0); i < n; i++ {
		rc.Fill(&s, TrainStream(11), i)
		key[s.Tokens[1]-10]++
		for j := 0; j < 4; j++ {
			if s.Tokens[4*j+1] == s.Tokens[s.Positions[0]] {
				pair[j]++
			}
		}
	}
	for k, c := range key { // mean 500, sd ≈ 21
		if math.Abs(float64(c)-n/8) > 105 {
			t.Errorf("key %d first %d times, want about %d", k, c, n/8)
		}
	}
	for j, c := range pair { // mean 1000, sd ≈ 27
		if math.Abs(float64(c)-n/4) > 135 {
			t.Errorf("pair %d queried %d times, want about %d", j, c, n/4)
		}
	}
}

// TestRecallPairsLayout checks the `k v` layout against the default one: sequence i of a
// stream stores the same pairs and queries the same keys in both, each value directly after
// its key, and the target at a query is the token after that key's stored occurrence.
func TestRecallPairsLayout(t *testing.T) {
	for _, sz := range []struct{ N, Kv, Vv, F, M int }{{4, 32, 32, 2, 4}, {8, 32, 32, 8, 3}, {1, 1, 1, 0, 1}, {5, 9, 7, 3, 5}} {
		store := must(NewRecall(sz.N, sz.Kv, sz.Vv, sz.F, sz.M))
		pairs := must(NewRecallLayout(sz.N, sz.Kv, sz.Vv, sz.F, sz.M, RecallLayoutPairs))
		if pairs.Layout() != RecallLayoutPairs || store.Layout() != RecallLayoutStore {
			t.Fatalf("layouts %q %q", store.Layout(), pairs.Layout())
		}
		if want := 2*sz.N + sz.F + 2*sz.M + (sz.M-1)*(sz.F/2); pairs.SeqLen() != want {
			t.Fatalf("%+v: seqlen %d, want %d", sz, pairs.SeqLen(), want)
		}
		for i := uint64(0); i < 20; i++ {
			a, b := Draw(store, TrainStream(3), i), Draw(pairs, TrainStream(3), i)
			for j := 0; j < sz.N; j++ {
				if a.Tokens[4*j+1] != b.Tokens[2*j] || a.Tokens[4*j+3] != b.Tokens[2*j+1] {
					t.Fatalf("%+v seq %d: pair %d differs: %v vs %v", sz, i, j, a.Tokens[4*j:4*j+4], b.Tokens[2*j:2*j+2])
				}
			}
			for q, p := range b.Positions {
				if b.Tokens[p-1] != RecallQUERY || b.Tokens[p] != a.Tokens[a.Positions[q]] || b.Targets[q] != a.Targets[q] {
					t.Fatalf("%+v seq %d: query %d differs", sz, i, q)
				}
				found := false
				for j := 0; j < sz.N; j++ {
					if b.Tokens[2*j] == b.Tokens[p] {
						found = b.Tokens[2*j+1]-(RecallKeyBase+sz.Kv) == b.Targets[q] && b.Posterior[q][b.Targets[q]] == 1
					}
				}
				if !found {
					t.Fatalf("%+v seq %d: query %d target %d is not the value after its key", sz, i, q, b.Targets[q])
				}
			}
		}
	}
	if _, err := NewRecallLayout(2, 4, 4, 0, 1, "vk"); err == nil {
		t.Error("layout vk accepted")
	}
}
