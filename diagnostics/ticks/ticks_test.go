package ticks

import (
	"math"
	"strconv"
	"testing"
)

// TestLinearRound checks, over ranges like those the dashboard and the figures meet, that
// every label is a multiple of a 1-2-5 spacing, reads back as its value (no
// "0.30000000000000004"), lies in the range, and that their count is near the one asked
// for; integer axes get integer labels only.
func TestLinearRound(t *testing.T) {
	for _, tc := range []struct {
		lo, hi  float64
		n       int
		integer bool
		want    string // the labels, when given
	}{
		{1, 600, 6, true, "[100 200 300 400 500 600]"}, // steps: not 1 91 181 270 360
		{25, 589, 7, true, "[100 200 300 400 500]"},
		{0.05, 2.3, 5, false, "[0.5 1.0 1.5 2.0]"},
		{0.987, 1.013, 4, false, ""},
		{0, 3, 7, true, "[0 1 2 3]"},
		{-0.03, 0.11, 6, false, "[-0.02 0.00 0.02 0.04 0.06 0.08 0.10]"},
		{33, 76, 3, true, "[40 60]"},
	} {
		ts := Labelled(Linear(tc.lo, tc.hi, tc.n, tc.integer))
		var got []string
		step := 0.0
		for i, tk := range ts {
			got = append(got, tk.Label)
			v, err := strconv.ParseFloat(tk.Label, 64)
			if err != nil || math.Abs(v-tk.Value) > 1e-9*math.Max(1, math.Abs(v)) || tk.Value < tc.lo-1e-12 || tk.Value > tc.hi+1e-12 {
				t.Errorf("[%g, %g]: label %q for %g", tc.lo, tc.hi, tk.Label, tk.Value)
			}
			if i == 1 {
				step = tk.Value - ts[0].Value
			}
		}
		if step > 0 {
			mant := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
			if math.Abs(mant-1) > 1e-9 && math.Abs(mant-2) > 1e-9 && math.Abs(mant-5) > 1e-9 {
				t.Errorf("[%g, %g]: spacing %g is not 1, 2 or 5 × 10^k", tc.lo, tc.hi, step)
			}
			for _, tk := range ts {
				if r := tk.Value / step; math.Abs(r-math.Round(r)) > 1e-6 {
					t.Errorf("[%g, %g]: %g is not a multiple of %g", tc.lo, tc.hi, tk.Value, step)
				}
			}
		}
		if len(ts) < 2 || len(ts) > 2*tc.n+1 {
			t.Errorf("[%g, %g] n=%d: %d labels %q", tc.lo, tc.hi, tc.n, len(ts), got)
		}
		if s := "[" + join(got) + "]"; tc.want != "" && s != tc.want {
			t.Errorf("[%g, %g] n=%d: labels %s, want %s", tc.lo, tc.hi, tc.n, s, tc.want)
		}
	}
}

// TestLogDecades checks that a log axis over a few decades is labelled at 1-2-5 multiples
// and over a narrow range at every multiple of the decade.
func TestLogDecades(t *testing.T) {
	if got := join(labels(Log(0.01, 0.2))); got != "0.01 0.02 0.05 0.1 0.2" {
		t.Errorf("0.01..0.2: %s", got)
	}
	if got := join(labels(Log(0.8, 1.6))); got != "0.8 0.9 1.0 1.1 1.2 1.3 1.4 1.5 1.6" {
		t.Errorf("0.8..1.6: %s", got)
	}
	if Log(0, 1) != nil {
		t.Error("a log axis from 0 got ticks")
	}
}

func labels(ts []Tick) []string {
	var out []string
	for _, t := range Labelled(ts) {
		out = append(out, t.Label)
	}
	return out
}

func join(ss []string) string {
	s := ""
	for i, x := range ss {
		if i > 0 {
			s += " "
		}
		s += x
	}
	return s
}
