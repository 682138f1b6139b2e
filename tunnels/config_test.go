package tunnels

import (
	"errors"
	"slices"
	"testing"
)

func TestNewBuildsEveryTask(t *testing.T) {
	if got, want := Names(), []string{"bijection", "hmm", "recall"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, name := range Names() {
		tun, err := New(name, Config{})
		if err != nil {
			t.Fatalf("New(%q, defaults): %v", name, err)
		}
		if tun.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, tun.Name())
		}
	}
}

func TestNewDefaults(t *testing.T) {
	c := DefaultConfig()
	want := Config{V: 20, States: 5, Symbols: 5, K: 20, Pairs: 64, Keys: 256, Values: 256, Fillers: 32, Queries: 3}
	if c != want {
		t.Fatalf("DefaultConfig() = %+v, want %+v", c, want)
	}
	if got := (Config{V: 7}).WithDefaults().V; got != 7 {
		t.Errorf("WithDefaults overwrote V=7 with %d", got)
	}
	tests := []struct {
		task                   string
		vocab, seqLen, classes int
		offset                 int
		tied                   bool
		target                 TargetMode
		positions              int
	}{
		{"bijection", 40, 37, 20, 20, true, Sampled, 19},
		{"hmm", 105, 25 + 25 + 3 + 40, 5, 0, false, Posterior, 20},
		{"recall", 10 + 256 + 256, 4*64 + 32 + 6 + 2*16, 256, 266, true, Sampled, 3},
	}
	for _, tc := range tests {
		tun, err := New(tc.task, Config{})
		if err != nil {
			t.Fatal(err)
		}
		off, ok := tun.ClassTokens()
		if tun.Vocab() != tc.vocab || tun.SeqLen() != tc.seqLen || tun.Classes() != tc.classes ||
			off != tc.offset || ok != tc.tied || tun.DefaultTarget() != tc.target || len(tun.Positions()) != tc.positions {
			t.Errorf("%s: vocab %d seqlen %d classes %d classtokens (%d,%v) target %v positions %d; want %+v",
				tc.task, tun.Vocab(), tun.SeqLen(), tun.Classes(), off, ok, tun.DefaultTarget(), len(tun.Positions()), tc)
		}
	}
}

func TestNewUnknownTask(t *testing.T) {
	tun, err := New("maze", Config{})
	if err == nil || tun != nil {
		t.Fatalf("New(maze) = %v, %v; want nil tunnel and an error", tun, err)
	}
	for _, name := range Names() {
		if !contains(err.Error(), name) {
			t.Errorf("error %q does not list %q", err, name)
		}
	}
}

func TestValidation(t *testing.T) {
	tests := []struct {
		task     string
		c        Config
		param    string
		value    int
		min, max int
	}{
		{"bijection", Config{V: 2}, "v", 2, 3, 64},
		{"bijection", Config{V: 65}, "v", 65, 3, 64},
		{"bijection", Config{V: -1}, "v", -1, 3, 64},
		{"hmm", Config{States: 1}, "states", 1, 2, 20},
		{"hmm", Config{States: 21}, "states", 21, 2, 20},
		{"hmm", Config{Symbols: 1}, "symbols", 1, 2, 20},
		{"hmm", Config{Symbols: 21}, "symbols", 21, 2, 20},
		{"hmm", Config{K: -3}, "k", -3, 1, 512},
		{"hmm", Config{K: 513}, "k", 513, 1, 512},
		{"recall", Config{Pairs: -1}, "pairs", -1, 1, 4096},
		{"recall", Config{Pairs: 5000, Keys: 4096, Values: 4096}, "pairs", 5000, 1, 4096},
		{"recall", Config{Keys: 63}, "keys", 63, 64, 4096},
		{"recall", Config{Keys: 4097}, "keys", 4097, 64, 4096},
		{"recall", Config{Values: 10}, "values", 10, 64, 4096},
		{"recall", Config{Values: 4097}, "values", 4097, 64, 4096},
		{"recall", Config{Fillers: -1}, "fillers", -1, 0, 1024},
		{"recall", Config{Fillers: 1025}, "fillers", 1025, 0, 1024},
		{"recall", Config{Queries: 65}, "queries", 65, 1, 64},
		{"recall", Config{Pairs: 2, Queries: 3}, "queries", 3, 1, 2},
		{"recall", Config{Queries: -2}, "queries", -2, 1, 64},
	}
	for _, tc := range tests {
		tun, err := New(tc.task, tc.c)
		var pe *ParamError
		if !errors.As(err, &pe) {
			t.Errorf("New(%s, %+v) = %v, %v; want *ParamError", tc.task, tc.c, tun, err)
			continue
		}
		if tun != nil {
			t.Errorf("New(%s, %+v) returned a non-nil tunnel with an error", tc.task, tc.c)
		}
		if pe.Task != tc.task || pe.Param != tc.param || pe.Value != tc.value || pe.Min != tc.min || pe.Max != tc.max {
			t.Errorf("New(%s, %+v): %+v; want param %s=%d range %d..%d", tc.task, tc.c, *pe, tc.param, tc.value, tc.min, tc.max)
		}
	}
}

func TestValidationConstructors(t *testing.T) {
	if _, err := NewRecall(8, 32, 32, 0, 3); err != nil {
		t.Errorf("NewRecall with no fillers: %v", err)
	}
	if _, err := NewRecall(4096, 4096, 4096, 1024, 4096); err != nil {
		t.Errorf("NewRecall at the largest sizes: %v", err)
	}
	checks := []struct {
		name  string
		err   error
		param string
	}{
		{"NewBijection(0)", second(NewBijection(0)), "v"},
		{"NewHMM(0,5,20)", second(NewHMM(0, 5, 20)), "states"},
		{"NewHMM(5,0,20)", second(NewHMM(5, 0, 20)), "symbols"},
		{"NewHMM(5,5,0)", second(NewHMM(5, 5, 0)), "k"},
		{"NewRecall(0,...)", second(NewRecall(0, 256, 256, 32, 3)), "pairs"},
		{"NewRecall(..,0,...)", second(NewRecall(8, 32, 32, 8, 0)), "queries"},
		{"HMM.WithK(600)", second(must(NewHMM(5, 5, 20)).WithK(600)), "k"},
	}
	for _, c := range checks {
		var pe *ParamError
		if !errors.As(c.err, &pe) || pe.Param != c.param {
			t.Errorf("%s: err %v; want *ParamError for %s", c.name, c.err, c.param)
		}
	}
}

func TestParamErrorMessage(t *testing.T) {
	_, err := NewBijection(70)
	if got, want := err.Error(), "tunnels: bijection v=70 out of range 3..64"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	_, err = NewRecall(64, 10, 256, 32, 3)
	if got, want := err.Error(), "tunnels: recall keys=10 out of range 64..4096 (at least one key per pair)"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

func TestParseTargetMode(t *testing.T) {
	for _, m := range []TargetMode{Sampled, Posterior} {
		got, err := ParseTargetMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseTargetMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseTargetMode("soft"); err == nil {
		t.Error("ParseTargetMode(soft) succeeded")
	}
}
