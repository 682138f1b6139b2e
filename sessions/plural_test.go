package sessions

import "testing"

// TestPlural checks the counts the commands print: "1 task", never "1 tasks".
func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n          int
		noun, want string
	}{
		{1, "task", "1 task"}, {3, "task", "3 tasks"}, {0, "seed", "0 seeds"}, {1, "running point", "1 running point"}, {2, "running point", "2 running points"},
	} {
		if got := Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
