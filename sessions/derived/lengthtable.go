package derived

import (
	"fmt"
	"slices"
	"strings"

	"windtunnel/sessions"
)

// LengthStat is an hmm cell's length generalisation at one observation count K: bit error
// (a) and KL in bits over the seeds' last whole-model evaluations (README, Commands:
// --eval-k), Train marking the training K.
type LengthStat struct {
	K         int  `json:"k"`
	Train     bool `json:"train,omitempty"`
	BitErrorA Stat `json:"bit_error_a"`
	KL        Stat `json:"kl_bits"`
}

// LengthsOf pools the length-generalisation curves of a cell's seeds (each its last
// evaluation's Lengths) by K, in K order; nil when none has one.
func LengthsOf(curves [][]sessions.LengthScore) []LengthStat {
	bits, kl := map[int][]float64{}, map[int][]float64{}
	train := map[int]bool{}
	for _, c := range curves {
		for _, l := range c {
			bits[l.K], kl[l.K] = append(bits[l.K], float64(l.BitErrorPosition)), append(kl[l.K], float64(l.KLBits))
			train[l.K] = train[l.K] || l.Train
		}
	}
	var out []LengthStat
	for k := range bits {
		out = append(out, LengthStat{K: k, Train: train[k], BitErrorA: StatOf(bits[k]), KL: StatOf(kl[k])})
	}
	slices.SortFunc(out, func(a, b LengthStat) int { return a.K - b.K })
	return out
}

// formatLengths is the length-generalisation table of the cells that have one: a row per
// cell, a column per K (the union of the cells' K), bit error (a) and KL as mean ± sd; ""
// when none has.
func formatLengths(cells []PrimitiveCell) string {
	var ks []int
	train := map[int]bool{}
	for _, c := range cells {
		for _, l := range c.Lengths {
			if !slices.Contains(ks, l.K) {
				ks = append(ks, l.K)
			}
			train[l.K] = train[l.K] || l.Train
		}
	}
	if len(ks) == 0 {
		return ""
	}
	slices.Sort(ks)
	var b strings.Builder
	b.WriteString("\nHMM length generalisation (each seed's last evaluation; positions past the training K were never trained): bit error (a) / KL bits, mean ± sd over the seeds.\n\n| task | model | seeds |")
	for _, k := range ks {
		mark := ""
		if train[k] {
			mark = " (trained)"
		}
		fmt.Fprintf(&b, " K = %d%s |", k, mark)
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(ks)) + "\n")
	for _, c := range cells {
		if len(c.Lengths) == 0 {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s |", c.Task, c.Model, SeedsLabel(c.Seeds))
		for _, k := range ks {
			i := slices.IndexFunc(c.Lengths, func(l LengthStat) bool { return l.K == k })
			if i < 0 {
				b.WriteString(" — |")
				continue
			}
			fmt.Fprintf(&b, " %s / %s |", c.Lengths[i].BitErrorA.String(4), c.Lengths[i].KL.String(4))
		}
		b.WriteString("\n")
	}
	return b.String()
}
