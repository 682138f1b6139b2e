package bench

import (
	"strings"
	"testing"
)

// TestBLASRatios: each repetition's step time of a backend over the first backend's, their
// median and spread in one line; a comparison without pairs prints nothing.
func TestBLASRatios(t *testing.T) {
	row := func(kind string, ms float64) Row {
		return Row{Preset: "paper", Device: "cpu", BLASKind: kind, OursMs: ms}
	}
	base := []Row{row("openblas", 100), row("openblas", 200), row("openblas", 100)}
	kind := []Row{row("go", 90), row("go", 220), row("go", 95)}
	v := NewBLASRatio(kind, base)
	if v.Kind != "go" || v.Base != "openblas" || len(v.Ratios) != 3 || v.Median() != 0.95 {
		t.Fatalf("ratio = %+v, median %v", v, v.Median())
	}
	var b strings.Builder
	PrintBLASRatios(&b, []BLASRatio{v, {Preset: "quick", Device: "cpu", Kind: "go", Base: "gonum"}})
	if want := "paper cpu: go / openblas step time 0.95 (0.90..1.10, 3 pairs)\n"; b.String() != want {
		t.Errorf("printed %q, want %q", b.String(), want)
	}
	if even := (BLASRatio{Ratios: []float64{1, 2}}); even.Median() != 1.5 {
		t.Errorf("median of 1, 2 = %v", even.Median())
	}
}
