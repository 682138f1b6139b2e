package diagnostics

import (
	"math"
	"testing"
)

func TestEffectOf(t *testing.T) {
	base := Scores{BitErrorPosition: 0.01, KLBits: 0.02}
	worse := Scores{BitErrorPosition: 0.31, KLBits: 0.52}
	better := Scores{BitErrorPosition: 0.005, KLBits: 0.01}
	tests := []struct {
		name           string
		unit           string
		layer, head    int
		ablated        Scores
		wantHead       int
		dBits, dKL     float64
		positiveChange bool
	}{
		{"head hurts", UnitHead, 1, 3, worse, 3, 0.30, 0.50, true},
		{"head helps when removed", UnitHead, 0, 0, better, 0, -0.005, -0.01, false},
		{"mlp has no head", UnitMLP, 2, 5, worse, -1, 0.30, 0.50, true},
		{"attn", UnitAttn, 0, 0, base, -1, 0, 0, false},
		{"layer", UnitLayer, 1, -1, worse, -1, 0.30, 0.50, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := EffectOf(tc.unit, tc.layer, tc.head, base, tc.ablated)
			if e.Unit != tc.unit || e.Layer != tc.layer || e.Head != tc.wantHead {
				t.Errorf("Effect = %+v, want unit %q layer %d head %d", e, tc.unit, tc.layer, tc.wantHead)
			}
			checkScalar(t, "DeltaBits", e.DeltaBits, tc.dBits, 1e-15)
			checkScalar(t, "DeltaKL", e.DeltaKL, tc.dKL, 1e-15)
			if (e.DeltaBits > 0) != tc.positiveChange {
				t.Errorf("DeltaBits = %v: sign wrong (ablation that hurts must be positive)", e.DeltaBits)
			}
		})
	}
}

func TestHeadTableAndWorst(t *testing.T) {
	effects := []Effect{
		{Unit: UnitHead, Layer: 0, Head: 0, DeltaBits: 0.1},
		{Unit: UnitHead, Layer: 1, Head: 1, DeltaBits: 0.5},
		{Unit: UnitMLP, Layer: 0, Head: -1, DeltaBits: 0.9},
		{Unit: UnitHead, Layer: 0, Head: 1, DeltaBits: -0.2},
		{Unit: UnitHead, Layer: 2, Head: 0, DeltaBits: 7},  // outside the table
		{Unit: UnitHead, Layer: 0, Head: -1, DeltaBits: 7}, // outside the table
		{Unit: UnitHead, Layer: 1, Head: 0, DeltaBits: math.NaN()},
	}
	tab := HeadTable(effects, 2, 2)
	if len(tab) != 2 {
		t.Fatalf("HeadTable has %d layers, want 2", len(tab))
	}
	checkNaNCurve(t, "HeadTable[0]", tab[0], []float64{0.1, -0.2}, 0)
	checkNaNCurve(t, "HeadTable[1]", tab[1], []float64{math.NaN(), 0.5}, 0)
	sparse := HeadTable(effects[:1], 1, 3)
	checkNaNCurve(t, "HeadTable (sparse)", sparse[0], []float64{0.1, math.NaN(), math.NaN()}, 0)
	if empty := HeadTable(nil, 0, 4); len(empty) != 0 {
		t.Errorf("HeadTable with 0 layers = %v, want empty", empty)
	}

	w, ok := Worst(effects)
	if !ok || w.Unit != UnitHead || w.Layer != 2 || w.DeltaBits != 7 {
		t.Errorf("Worst = %+v, %v; want the first DeltaBits 7 head (layer 2)", w, ok)
	}
	w, ok = Worst(effects[:4])
	if !ok || w.Unit != UnitMLP || w.DeltaBits != 0.9 {
		t.Errorf("Worst = %+v, %v; want the mlp effect", w, ok)
	}
	w, ok = Worst([]Effect{{Unit: UnitHead, DeltaBits: math.NaN()}, {Unit: UnitAttn, DeltaBits: -1}})
	if !ok || w.Unit != UnitAttn {
		t.Errorf("Worst skipping NaN = %+v, %v; want the attn effect", w, ok)
	}
	if _, ok := Worst(nil); ok {
		t.Error("Worst(nil) reported an effect")
	}
	if _, ok := Worst([]Effect{{DeltaBits: math.NaN()}}); ok {
		t.Error("Worst of all-NaN reported an effect")
	}
}
