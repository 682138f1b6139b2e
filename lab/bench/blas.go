package bench

import (
	"fmt"
	"io"
	"slices"
	"sort"
)

// BLASRatio compares two backends' step times on one preset and device: the median of
// each repetition's ratio, and their spread.
type BLASRatio struct {
	Preset, Device string
	// Kind and Base are the --blas values compared: Kind's step time over Base's.
	Kind, Base string
	Ratios     []float64
}

// NewBLASRatio pairs the repetitions of two backends run in turn.
func NewBLASRatio(kind, base []Row) BLASRatio {
	v := BLASRatio{Preset: kind[0].Preset, Device: kind[0].Device, Kind: kind[0].BLASKind, Base: base[0].BLASKind}
	for i := range min(len(kind), len(base)) {
		if base[i].OursMs > 0 {
			v.Ratios = append(v.Ratios, kind[i].OursMs/base[i].OursMs)
		}
	}
	return v
}

// Median is the median ratio (0 without any).
func (v BLASRatio) Median() float64 { return median(v.Ratios) }

// PrintBLASRatios prints one line per comparison, e.g.
// "quick cpu: go / openblas step time 0.97 (0.91..1.02, 5 pairs)".
func PrintBLASRatios(w io.Writer, vs []BLASRatio) {
	for _, v := range vs {
		if len(v.Ratios) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s %s: %s / %s step time %.2f (%.2f..%.2f, %d pairs)\n", v.Preset, v.Device, v.Kind, v.Base,
			v.Median(), slices.Min(v.Ratios), slices.Max(v.Ratios), len(v.Ratios))
	}
}

// median is the middle of xs (the mean of the middle two for an even count; 0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
