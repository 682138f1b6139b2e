package diagnostics

import (
	"math"
	"testing"
)

func TestAttentionDrift(t *testing.T) {
	up := []float64{0.1, 0.2, 0.3, 0.4}
	down := []float64{0.4, 0.3, 0.2, 0.1}
	flat := []float64{0.25, 0.25, 0.25, 0.25}
	peaked := []float64{0.7, 0.1, 0.1, 0.1}
	// corr(up, peaked) = −√0.6 (up has centred values −1.5,−.5,.5,1.5 ×0.1; peaked 0.45,−0.15×3).
	cat := func(rows ...[]float64) []float64 {
		var out []float64
		for _, r := range rows {
			out = append(out, r...)
		}
		return out
	}
	tests := []struct {
		name string
		a, b []float64
		want float64
	}{
		{"identical", cat(up, peaked, down), cat(up, peaked, down), 0},
		{"reversed", up, down, 2},
		{"reversed rows", cat(up, down), cat(down, up), 2},
		{"half changed", cat(up, up), cat(up, down), 1},
		{"constant row skipped", cat(up, flat), cat(down, peaked), 2},
		{"constant on the other side", cat(flat, up), cat(peaked, up), 0},
		{"all constant", cat(flat, flat), cat(peaked, flat), 0},
		{"known correlation", up, peaked, 1 + math.Sqrt(0.6)},
		{"empty", nil, nil, 0},
		{"mismatched", up, cat(up, up), math.NaN()},
		{"not a multiple of rowLen", up[:3], down[:3], math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AttentionDrift(tc.a, tc.b, 4)
			if math.IsNaN(tc.want) {
				if !math.IsNaN(got) {
					t.Errorf("AttentionDrift = %v, want NaN", got)
				}
				return
			}
			checkScalar(t, "AttentionDrift", got, tc.want, 1e-12)
		})
	}
	if !math.IsNaN(AttentionDrift(up, up, 0)) {
		t.Error("AttentionDrift with rowLen 0 is not NaN")
	}
	if got := AttentionDrift(up, down, 4); !(got > 0) {
		t.Errorf("pattern vs its reverse: drift %v, want > 0", got)
	}
}

func TestSettleStep(t *testing.T) {
	steps := []int{0, 100, 200, 300, 400, 500, 600, 700}
	nan := math.NaN()
	tests := []struct {
		name   string
		steps  []int
		series []float64
		frac   float64
		want   int
		ok     bool
	}{
		// Final 0.98, range 9.1, band 0.91: 2 is 1.02 away, 1.2 and later within.
		{"decay", steps, []float64{10, 5, 2, 1.2, 0.9, 1.05, 1.0, 0.98}, 0.1, 300, true},
		// A late excursion resets the settle point.
		{"late excursion", steps, []float64{10, 1, 1, 1, 4, 1, 1, 1}, 0.1, 500, true},
		{"rising", steps, []float64{0, 0.5, 0.8, 0.95, 0.97, 1, 1, 1}, 0.1, 300, true},
		{"wide band", steps, []float64{10, 5, 2, 1.2, 0.9, 1.05, 1.0, 0.98}, 0.5, 100, true},
		{"frac 0", []int{1, 2, 3, 4, 5}, []float64{3, 2, 1, 1, 1}, 0, 3, true},
		{"negative frac", []int{1, 2, 3, 4, 5}, []float64{3, 2, 1, 1, 1}, -0.2, 3, true},
		{"constant", []int{5, 6, 7}, []float64{2, 2, 2}, 0.1, 5, true},
		{"last only moves", []int{1, 2, 3}, []float64{0, 0, 1}, 0.1, 3, false},
		{"single", []int{42}, []float64{1}, 0.1, 42, false},
		// NaNs are skipped: the reference is the last finite value, 1.
		{"NaN entries", []int{1, 2, 3, 4, 5, 6}, []float64{nan, 10, nan, 1, nan, nan}, 0.1, 4, false},
		{"leading NaN constant", []int{1, 2, 3}, []float64{nan, 2, 2}, 0.1, 2, true},
		{"all NaN", []int{1, 2}, []float64{nan, nan}, 0.1, -1, false},
		{"empty", nil, nil, 0.1, -1, false},
		{"mismatched", []int{1, 2}, []float64{1}, 0.1, -1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := SettleStep(tc.steps, tc.series, tc.frac); got != tc.want || ok != tc.ok {
				t.Errorf("SettleStep = %d, %v, want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
