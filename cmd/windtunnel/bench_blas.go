package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
)

// blasRatio compares two backends' step times on one preset and device: the median of
// each repetition's ratio, and their spread.
type blasRatio struct {
	Preset, Device string
	// Kind and Base are the --blas values compared: Kind's step time over Base's.
	Kind, Base string
	Ratios     []float64
}

// newBLASRatio pairs the repetitions of two backends run in turn.
func newBLASRatio(kind, base []benchRow) blasRatio {
	v := blasRatio{Preset: kind[0].Preset, Device: kind[0].Device, Kind: kind[0].BLASKind, Base: base[0].BLASKind}
	for i := range min(len(kind), len(base)) {
		if base[i].OursMs > 0 {
			v.Ratios = append(v.Ratios, kind[i].OursMs/base[i].OursMs)
		}
	}
	return v
}

// median is the median ratio (0 without any).
func (v blasRatio) median() float64 {
	xs := slices.Clone(v.Ratios)
	sort.Float64s(xs)
	switch n := len(xs); {
	case n == 0:
		return 0
	case n%2 == 0:
		return (xs[n/2-1] + xs[n/2]) / 2
	default:
		return xs[n/2]
	}
}

// printBLASRatios prints one line per comparison, e.g.
// "quick cpu: go / openblas step time 0.97 (0.91..1.02, 5 pairs)".
func printBLASRatios(w io.Writer, vs []blasRatio) {
	for _, v := range vs {
		if len(v.Ratios) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s %s: %s / %s step time %.2f (%.2f..%.2f, %d pairs)\n", v.Preset, v.Device, v.Kind, v.Base,
			v.median(), slices.Min(v.Ratios), slices.Max(v.Ratios), len(v.Ratios))
	}
}
