package diagnostics

import (
	"math"
	"testing"
)

func TestEvidenceMass(t *testing.T) {
	row := []float64{0.1, 0.2, 0.3, 0.4}
	tests := []struct {
		name     string
		evidence []bool
		want     float64
	}{
		{"alternate", []bool{true, false, true, false}, 0.4},
		{"extra entries ignored", []bool{false, true, false, true, true, true}, 0.6},
		{"short evidence", []bool{true, true}, 0.3},
		{"all", []bool{true, true, true, true}, 1},
		{"none", []bool{false, false, false, false}, 0},
		{"nil", nil, 0},
	}
	for _, tc := range tests {
		checkScalar(t, "EvidenceMass("+tc.name+")", EvidenceMass(row, tc.evidence), tc.want, tol)
	}
}

// focusFixture builds 2 layers of attention, n=2, heads=2, p=2, t=4:
//
//	layer 0 head 0: uniform over 4 keys (2 bits); head 1: one-hot on key 0 (0 bits)
//	layer 1 head 0: uniform over keys 0,1 (1 bit); head 1: row 0 uniform over 2, row 1 over 4
func focusFixture() [][]float64 {
	const n, heads, p, tt = 2, 2, 2, 4
	rows := [2][2][2][]float64{
		{{{.25, .25, .25, .25}, {.25, .25, .25, .25}}, {{1, 0, 0, 0}, {1, 0, 0, 0}}},
		{{{.5, .5, 0, 0}, {.5, .5, 0, 0}}, {{.5, .5, 0, 0}, {.25, .25, .25, .25}}},
	}
	attn := make([][]float64, 2)
	for l := range attn {
		for range n {
			for h := range heads {
				for r := range p {
					attn[l] = append(attn[l], rows[l][h][r]...)
				}
			}
		}
		if len(attn[l]) != n*heads*p*tt {
			panic("fixture size")
		}
	}
	return attn
}

func TestAttentionFocus(t *testing.T) {
	attn := focusFixture()
	calls := 0
	// Sequence 0: only key 0 is consistent; sequence 1: keys 0 and 1.
	evidence := func(seq, row int) []bool {
		calls++
		if seq == 0 {
			return []bool{true, false, false, false}
		}
		return []bool{true, true, false, false, false} // one extra entry, ignored
	}
	f, err := AttentionFocus(attn, 2, 2, 2, 4, evidence)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 4 {
		t.Errorf("evidence called %d times, want n·p = 4", calls)
	}
	checkCurve(t, "Entropy[0]", f.Entropy[0], []float64{2, 0}, tol)
	checkCurve(t, "Entropy[1]", f.Entropy[1], []float64{1, 1.5}, tol)
	// Mass: L0H0 (0.25+0.5)/2; L0H1 1; L1H0 (0.5+1)/2; L1H1 (0.5+1+0.25+0.5)/4.
	checkCurve(t, "Mass[0]", f.Mass[0], []float64{0.375, 1}, tol)
	checkCurve(t, "Mass[1]", f.Mass[1], []float64{0.75, 0.5625}, tol)

	nf, err := AttentionFocus(attn, 2, 2, 2, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if nf.Mass != nil {
		t.Errorf("Mass = %v with nil evidence, want nil", nf.Mass)
	}
	checkCurve(t, "Entropy[1] (nil evidence)", nf.Entropy[1], []float64{1, 1.5}, tol)

	empty, err := AttentionFocus(nil, 2, 2, 2, 4, nil)
	if err != nil || len(empty.Entropy) != 0 {
		t.Errorf("no layers: Focus %+v, err %v; want empty, nil", empty, err)
	}
}

func TestAttentionFocusErrors(t *testing.T) {
	attn := focusFixture()
	tests := []struct {
		name              string
		attn              [][]float64
		n, heads, p, tLen int
		want              string
	}{
		{"zero n", attn, 0, 2, 2, 4, "sizes must be positive (n=0 heads=2 p=2 t=4)"},
		{"negative t", attn, 2, 2, 2, -1, "sizes must be positive"},
		{"short layer", [][]float64{attn[0], attn[1][:31]}, 2, 2, 2, 4, "layer 1 has 31 values, want 32"},
		{"wrong heads", attn, 2, 4, 2, 4, "layer 0 has 32 values, want 64"},
		{"overflow", attn, math.MaxInt, 2, 2, 4, "overflows int"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := AttentionFocus(tc.attn, tc.n, tc.heads, tc.p, tc.tLen, nil)
			checkErr(t, err, "attention focus: ")
			checkErr(t, err, tc.want)
		})
	}
}
