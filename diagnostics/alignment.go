package diagnostics

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// QKAlignment returns the cosine between each scored query and every visible key, averaged over heads and sequences, as a len(positions)×t row-major map.
//
// q and k are laid out n×t×width (sequence, token, feature), flat, row-major;
// head h owns features h·hd .. (h+1)·hd−1 with hd = width/heads. Entry (i, j)
// averages cos(q_h[s, positions[i]], k_h[s, j]) over heads h and sequences s
// for j ≤ positions[i]; entries with j > positions[i] (keys not yet visible)
// are NaN. Pairs where either vector has zero norm are left out of the
// average (an entry with no pair left is NaN). Bad sizes, wrong lengths or a
// position outside [0, t) return an error.
func QKAlignment(q, k []float64, n, t, width, heads int, positions []int) ([]float64, error) {
	if n <= 0 || t <= 0 || width <= 0 || heads <= 0 {
		return nil, fmt.Errorf("diagnostics: qk alignment: sizes must be positive (n=%d t=%d width=%d heads=%d)",
			n, t, width, heads)
	}
	if width%heads != 0 {
		return nil, fmt.Errorf("diagnostics: qk alignment: width %d not divisible by heads %d", width, heads)
	}
	want, err := product(n, t, width)
	if err != nil {
		return nil, fmt.Errorf("diagnostics: qk alignment: %w", err)
	}
	if len(q) != want {
		return nil, fmt.Errorf("diagnostics: qk alignment: q has %d values, want %d (n=%d t=%d width=%d)",
			len(q), want, n, t, width)
	}
	if len(k) != want {
		return nil, fmt.Errorf("diagnostics: qk alignment: k has %d values, want %d (n=%d t=%d width=%d)",
			len(k), want, n, t, width)
	}
	for i, p := range positions {
		if p < 0 || p >= t {
			return nil, fmt.Errorf("diagnostics: qk alignment: positions[%d] = %d outside [0, %d)", i, p, t)
		}
	}

	hd := width / heads
	// Inverse norms of every head's key slice, [s][j][h]; 0 marks a zero vector.
	kInv := make([]float64, n*t*heads)
	for v := range n * t {
		for h := range heads {
			off := v*width + h*hd
			if norm := floats.Norm(k[off:off+hd], 2); norm != 0 {
				kInv[v*heads+h] = 1 / norm
			}
		}
	}
	out := make([]float64, len(positions)*t)
	cnt := make([]int, t)
	for i, p := range positions {
		row := out[i*t : (i+1)*t]
		clear(cnt)
		for s := range n {
			qv := q[(s*t+p)*width : (s*t+p+1)*width]
			for h := range heads {
				qh := qv[h*hd : (h+1)*hd]
				qn := floats.Norm(qh, 2)
				if qn == 0 {
					continue
				}
				qInv := 1 / qn
				for j := 0; j <= p; j++ {
					ki := kInv[(s*t+j)*heads+h]
					if ki == 0 {
						continue
					}
					off := (s*t+j)*width + h*hd
					row[j] += floats.Dot(qh, k[off:off+hd]) * qInv * ki
					cnt[j]++
				}
			}
		}
		for j := range row {
			switch {
			case j > p || cnt[j] == 0:
				row[j] = math.NaN()
			default:
				row[j] /= float64(cnt[j])
			}
		}
	}
	return out, nil
}
