package runconfig

import "testing"

// TestClosest: the closest name within two edits (one for names of 2 or 3 letters, none for
// one letter; a swap of two neighbouring letters is one edit), or the only name the word
// begins, or none.
func TestClosest(t *testing.T) {
	names := []string{"steps", "seed", "checkpoint-every", "eval-every", "json", "v", "k"}
	for _, c := range []struct{ word, want string }{
		{"step", "steps"}, {"setps", "steps"}, {"sed", "seed"}, {"STEPS", "steps"}, {"jsn", "json"},
		{"check", "checkpoint-every"}, {"eval", "eval-every"}, {"e", "eval-every"}, {"x", ""}, {"zzzzzz", ""}, {"every", ""},
		{"dri", ""}, {"stpes", "steps"}, {"sede", "seed"},
	} {
		if got := Closest(c.word, names); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"step", "steps", 1}, {"µs", "ms", 1},
		{"dri", "dir", 1}, {"rnu", "run", 1}, {"ab", "ba", 1}, {"ca", "abc", 3}, {"stpes", "steps", 1}, {"abcd", "badc", 2}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
