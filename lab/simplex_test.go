package lab

import (
	"math"
	"testing"

	"windtunnel/sessions/runconfig"
)

// TestSimplexSnapshots: an hmm run's geometry snapshots carry the belief-simplex measurement
// (for the transformer and the recurrent baselines alike), a bijection run's do not.
func TestSimplexSnapshots(t *testing.T) {
	for _, model := range []string{"transformer", "mamba", "lstm"} {
		t.Run(model, func(t *testing.T) {
			c := tinyHMM(model)
			c.EvalK = nil
			snaps, _ := runSnapshots(t, c)
			if len(snaps) == 0 {
				t.Fatal("no geometry snapshot")
			}
			s := snaps[len(snaps)-1].Snapshot.Simplex
			if s == nil {
				t.Fatal("an hmm snapshot without the simplex measurement")
			}
			p, r2, d := float64(s.Purity), float64(s.R2), float64(s.MeanCornerDist)
			if s.States != 3 || s.N != 8*4 || len(s.CornerDist) != 3 || !(p >= 1.0/3 && p <= 1) || !(r2 <= 1) || math.IsNaN(d) {
				t.Errorf("simplex %+v", s)
			}
			if sp := float64(s.SymbolPurity); !(sp >= 1.0/float64(tinyHMMSymbols(c)) && sp <= 1) {
				t.Errorf("purity against the observed symbol %v", sp)
			}
			if len(s.Points) == 0 || len(s.Points) != len(s.Argmax) {
				t.Errorf("%d points, %d argmax states", len(s.Points), len(s.Argmax))
			}
			for _, a := range s.Argmax {
				if a < 0 || a >= 3 {
					t.Errorf("argmax state %d", a)
				}
			}
			// The null: the same model untrained, the same in every snapshot, no points.
			n0, n1 := snaps[0].Snapshot.SimplexInit, snaps[len(snaps)-1].Snapshot.SimplexInit
			if n0 == nil || n1 == nil || (n0.Purity != n1.Purity || n0.R2 != n1.R2 || n0.MeanCornerDist != n1.MeanCornerDist) {
				t.Fatalf("simplex at initialisation: first %+v, last %+v", n0, n1)
			}
			if n0.States != 3 || n0.N != s.N || len(n0.Points) != 0 || !(float64(n0.Purity) >= 1.0/3) {
				t.Errorf("simplex at initialisation %+v", n0)
			}
		})
	}
	c := tiny("mlp")
	c.Steps, c.ProbeEvery, c.GeometryN = 20, 10, 8
	if snaps, _ := runSnapshots(t, c); len(snaps) == 0 || snaps[0].Snapshot.Simplex != nil || snaps[0].Snapshot.SimplexInit != nil {
		t.Errorf("a bijection snapshot with a simplex measurement (%d snapshots)", len(snaps))
	}
}

// tinyHMMSymbols is the symbols O of c's hmm tunnel.
func tinyHMMSymbols(c runconfig.Config) int {
	return c.Tunnel.WithDefaults().Symbols
}
