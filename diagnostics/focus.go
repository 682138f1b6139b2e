package diagnostics

import (
	"fmt"
	"math"
)

// EvidenceMass returns the sum of row[i] over the positions i where evidence[i] is true.
//
// Entries of evidence beyond len(row) are ignored; positions of row beyond
// len(evidence) count as not evidence.
func EvidenceMass(row []float64, evidence []bool) float64 {
	var m float64
	for i, ok := range evidence[:min(len(evidence), len(row))] {
		if ok {
			m += row[i]
		}
	}
	return m
}

// Focus holds the attention focus of every head, indexed [layer][head], each a mean over probe sequences and scored rows.
type Focus struct {
	// Entropy is the mean entropy in bits of the attention rows.
	Entropy [][]float64 `json:"entropy_bits"`
	// Mass is the mean attention mass on evidence-consistent key positions, nil when no evidence function was given.
	Mass [][]float64 `json:"evidence_mass,omitempty"`
}

// AttentionFocus returns, per layer and head, the mean attention-row entropy (bits) and evidence mass over sequences and scored rows.
//
// attn[l] holds layer l's attention laid out n×heads×p×t, flat, row-major:
// for sequence s, head h and scored row r (0..p-1) the row of t weights over
// key positions, with entries beyond the causal limit equal to 0. evidence(s,
// r) reports which key positions of sequence s are consistent with the
// evidence at scored row r (see EvidenceMass); it is called once per (s, r)
// and shared by all layers and heads. A nil evidence leaves Focus.Mass nil.
// Non-positive sizes or a layer of the wrong length return an error.
func AttentionFocus(attn [][]float64, n, heads, p, t int, evidence func(seq, row int) []bool) (Focus, error) {
	if n <= 0 || heads <= 0 || p <= 0 || t <= 0 {
		return Focus{}, fmt.Errorf("diagnostics: attention focus: sizes must be positive (n=%d heads=%d p=%d t=%d)",
			n, heads, p, t)
	}
	want, err := product(n, heads, p, t)
	if err != nil {
		return Focus{}, fmt.Errorf("diagnostics: attention focus: %w", err)
	}
	for l, a := range attn {
		if len(a) != want {
			return Focus{}, fmt.Errorf("diagnostics: attention focus: layer %d has %d values, want %d (n=%d heads=%d p=%d t=%d)",
				l, len(a), want, n, heads, p, t)
		}
	}
	layers := len(attn)
	f := Focus{Entropy: grid(layers, heads)}
	if evidence != nil {
		f.Mass = grid(layers, heads)
	}
	for s := range n {
		for r := range p {
			var ev []bool
			if evidence != nil {
				ev = evidence(s, r)
			}
			for l, a := range attn {
				for h := range heads {
					off := ((s*heads+h)*p + r) * t
					row := a[off : off+t : off+t]
					f.Entropy[l][h] += Entropy(row)
					if f.Mass != nil {
						f.Mass[l][h] += EvidenceMass(row, ev)
					}
				}
			}
		}
	}
	inv := 1 / float64(n*p)
	for l := range layers {
		for h := range heads {
			f.Entropy[l][h] *= inv
			if f.Mass != nil {
				f.Mass[l][h] *= inv
			}
		}
	}
	return f, nil
}

// grid returns a rows×cols matrix of zeros backed by one allocation.
func grid(rows, cols int) [][]float64 {
	back := make([]float64, rows*cols)
	g := make([][]float64, rows)
	for i := range g {
		g[i] = back[i*cols : (i+1)*cols : (i+1)*cols]
	}
	return g
}

// product returns the product of the positive sizes, or an error if it overflows int.
func product(sizes ...int) (int, error) {
	p := 1
	for _, s := range sizes {
		if s != 0 && p > math.MaxInt/s {
			return 0, fmt.Errorf("size product overflows int (sizes %v)", sizes)
		}
		p *= s
	}
	return p, nil
}
