package tunnels

import (
	"strings"
	"testing"
)

// TestPosteriorOfMatchesFill recomputes the posterior of 1000 drawn sequences of each task
// (recall in both layouts) from their tokens alone and requires Fill's, bit for bit.
func TestPosteriorOfMatchesFill(t *testing.T) {
	cases := []struct {
		name string
		task string
		cfg  Config
	}{
		{"bijection", "bijection", Config{V: 9}},
		{"hmm", "hmm", Config{States: 4, Symbols: 3, K: 12}},
		{"recall store", "recall", Config{Pairs: 8, Keys: 16, Values: 16, Fillers: 4, Queries: 3}},
		{"recall kv", "recall", Config{Pairs: 8, Keys: 16, Values: 16, Fillers: 3, Queries: 4, Layout: RecallLayoutPairs}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tn := must(New(c.task, c.cfg))
			var want, got Sequence
			for i := uint64(0); i < 1000; i++ {
				tn.Fill(&want, ProbeStream(3), i)
				if err := PosteriorOf(tn, want.Tokens, &got); err != nil {
					t.Fatalf("sequence %d: %v", i, err)
				}
				for j := range want.Posterior {
					for k := range want.Posterior[j] {
						if got.Posterior[j][k] != want.Posterior[j][k] {
							t.Fatalf("sequence %d position %d class %d: %v, want %v", i, j, k, got.Posterior[j][k], want.Posterior[j][k])
						}
					}
					if got.EntropyBits[j] != want.EntropyBits[j] {
						t.Fatalf("sequence %d position %d: entropy %v, want %v", i, j, got.EntropyBits[j], want.EntropyBits[j])
					}
				}
			}
		})
	}
}

// TestPosteriorOfRejects checks that impossible token sequences are refused with a reason.
func TestPosteriorOfRejects(t *testing.T) {
	bij := must(New("bijection", Config{V: 5}))
	hmm := must(New("hmm", Config{States: 2, Symbols: 2, K: 3}))
	rec := must(New("recall", Config{Pairs: 4, Keys: 8, Values: 8, Fillers: 2, Queries: 2}))
	edit := func(tn Tunnel, f func([]int)) []int {
		s := Draw(tn, ProbeStream(1), 0)
		f(s.Tokens)
		return s.Tokens
	}
	cases := []struct {
		name   string
		tn     Tunnel
		tokens []int
		want   string
	}{
		{"short", bij, []int{0, 5}, "tokens, want"},
		{"out of vocabulary", bij, edit(bij, func(x []int) { x[1] = 10 }), "out of the vocabulary"},
		{"repeated key", bij, edit(bij, func(x []int) { x[2] = x[0] }), "repeated"},
		{"value at key", bij, edit(bij, func(x []int) { x[2] = 6 }), "not a key"},
		{"repeated value", bij, edit(bij, func(x []int) { x[3] = x[1] }), "repeated"},
		{"hmm marker", hmm, edit(hmm, func(x []int) { x[0] = HMMSep }), "TRANS"},
		{"hmm grid row", hmm, edit(hmm, func(x []int) { x[1]++ }), "sums to"},
		{"hmm symbol", hmm, edit(hmm, func(x []int) { x[len(x)-1] = HMMObs }), "not a symbol"},
		{"recall unstored key", rec, edit(rec, func(x []int) { x[len(x)-1] = unstored(x) }), "not stored"},
		{"recall filler", rec, edit(rec, func(x []int) { x[16] = RecallPAD }), "FILLER"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s Sequence
			err := PosteriorOf(c.tn, c.tokens, &s)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

// unstored returns a recall key token (Kv = 8, store layout, 4 pairs) that no pair stores.
func unstored(x []int) int {
	for k := RecallKeyBase; ; k++ {
		if k != x[1] && k != x[5] && k != x[9] && k != x[13] {
			return k
		}
	}
}
