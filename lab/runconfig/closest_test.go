package runconfig

import "testing"

// TestClosest: the closest name within two edits (one for names of 2 or 3 letters, none for
// one letter), or the only name the word begins, or none.
func TestClosest(t *testing.T) {
	names := []string{"steps", "seed", "checkpoint-every", "eval-every", "json", "v", "k"}
	for _, c := range []struct{ word, want string }{
		{"step", "steps"}, {"setps", "steps"}, {"sed", "seed"}, {"STEPS", "steps"}, {"jsn", "json"},
		{"check", "checkpoint-every"}, {"eval", "eval-every"}, {"e", "eval-every"}, {"x", ""}, {"zzzzzz", ""}, {"every", ""},
	} {
		if got := Closest(c.word, names); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"step", "steps", 1}, {"µs", "ms", 1}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
