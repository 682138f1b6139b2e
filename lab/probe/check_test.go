package probe

import "testing"

// TestCheck: the ranges probe's flags take, each edge on both sides.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		step, geometryN, jlensN int
		want                    string // "" accepted
	}{
		{-1, 0, 0, ""},
		{0, 3, 1, ""},
		{500, 4096, 4096, ""},
		{-2, 0, 0, "--step -2: want a step ≥ 0 (or -1, or no --step: the last checkpoint)"},
		{-1, 2, 0, "--geometry-n 2 out of range: want 3..4096"},
		{-1, 4097, 0, "--geometry-n 4097 out of range: want 3..4096"},
		{-1, 0, -1, "--jlens-n -1 out of range: want 1..4096 (0: the run's)"},
		{-1, 0, 4097, "--jlens-n 4097 out of range: want 1..4096 (0: the run's)"},
	} {
		err := Check(c.step, c.geometryN, c.jlensN)
		if (err == nil) != (c.want == "") || err != nil && err.Error() != c.want {
			t.Errorf("Check(%d, %d, %d) = %v, want %q", c.step, c.geometryN, c.jlensN, err, c.want)
		}
	}
}
