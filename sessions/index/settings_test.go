package index

import "testing"

// TestCompareSetting: numbers as numbers, text as text, a missing value last; Of finds a
// session's value by its path.
func TestCompareSetting(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"0.01", "0.003", 1},
		{"0.003", "0.01", -1},
		{"1e-3", "0.001", 0},
		{"10", "9", 1},
		{"lstm", "mamba", -1},
		{"10", "lstm", -1}, // a number and a word: as text
		{"", "0.1", 1},
		{"0.1", "", -1},
		{"", "", 0},
	} {
		if got := CompareSetting(c.a, c.b); got != c.want {
			t.Errorf("CompareSetting(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	s := Settings{Flags: []string{"lr"}, Values: map[string]map[string]string{"/d/a.wtlab": {"lr": "0.1"}}}
	if got := s.Of(Run{Path: "/d/a.wtlab"}, "lr"); got != "0.1" {
		t.Errorf("Of = %q", got)
	}
	if got := s.Of(Run{Path: "/d/b.wtlab"}, "lr"); got != "" {
		t.Errorf("Of of another session = %q", got)
	}
}
