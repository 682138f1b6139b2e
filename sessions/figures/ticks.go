package figures

import (
	"gonum.org/v1/plot"

	"windtunnel/diagnostics/ticks"
)

// linearTicks labels a linear axis at round values (ticks.Linear: 1, 2 or 5 × 10^k apart,
// the spacing whose count of labels is nearest n; gonum's DefaultTicks aims at three), with
// unlabelled minor ticks between. An integer axis (steps, positions, layers) gets a spacing
// of at least 1, integer labels and integer minor ticks only.
type linearTicks struct {
	n       int
	integer bool
}

// Ticks implements plot.Ticker.
func (t linearTicks) Ticks(lo, hi float64) []plot.Tick {
	return plotTicks(ticks.Linear(lo, hi, t.n, t.integer))
}

// logTicks labels a log axis with enough ticks to read it over any range (ticks.Log: every
// decade where the range spans many, 1-2-5 and finer as it narrows, round linear values
// over less than one step of them); gonum's LogTicks labels only the decades, so a curve
// between 0.03 and 0.3 is read off one label.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick { return plotTicks(ticks.Log(lo, hi)) }

// plotTicks is ts as gonum's ticks.
func plotTicks(ts []ticks.Tick) []plot.Tick {
	if ts == nil {
		return nil
	}
	out := make([]plot.Tick, len(ts))
	for i, t := range ts {
		out[i] = plot.Tick{Value: t.Value, Label: t.Label}
	}
	return out
}

// labelled is the labelled ticks' labels, in order.
func labelled(ts []plot.Tick) []string {
	var out []string
	for _, t := range ts {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}
