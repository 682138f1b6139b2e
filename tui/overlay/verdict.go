package overlay

import (
	"fmt"
	"math"
	"strings"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// headOff is a head an operator switched off, and the step it took effect.
type headOff struct{ step, layer, head int }

// headGlyph marks a head switched off, in the legend and on the curve at its step.
const headGlyph = '⊘'

// headsOff lists the heads switched off among a run's operator events, in order.
func headsOff(evs []sessions.Event) []headOff {
	var out []headOff
	for _, e := range evs {
		if e.Kind == sessions.EventHead && !e.On {
			out = append(out, headOff{e.Step, e.Layer, e.Head})
		}
	}
	return out
}

// headsText is "⊘ L1H2@400, L0H3@450" for the heads switched off in series j's runs
// (a seed's name before its heads in a band), "" for none.
func (o *Model) headsText(j int) string {
	var parts []string
	g := o.groups[j]
	for k, i := range g.members {
		var hs []string
		for _, h := range o.heads[i] {
			hs = append(hs, fmt.Sprintf("L%dH%d@%d", h.layer, h.head, h.step))
		}
		if len(hs) == 0 {
			continue
		}
		s := strings.Join(hs, ", ")
		if g.band() {
			s = "seed " + g.seeds[k] + " " + s
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return string(headGlyph) + " " + strings.Join(parts, "; ")
}

// evalAt is run i's newest evaluation at or before step.
func (o *Model) evalAt(i, step int) (sessions.Record, bool) {
	return lastAt(o.curves[i], func(r sessions.Record) int { return r.Step }, step)
}

// runVerdict is run i's verdict at step: its newest evaluation there judged by the
// tunnel's criterion (derived.VerdictOf), and whether the run had ended there (its newest
// record is done, stopped or failed, at or before step).
func (o *Model) runVerdict(i, step int) (derived.Verdict, bool, bool) {
	r, ok := o.evalAt(i, step)
	if !ok {
		return derived.Verdict{}, false, false
	}
	ended := derived.Ended(o.last[i].State) && step >= o.last[i].Step
	return derived.VerdictOf(o.metas[i].Task, *r.Eval), ended, true
}

// verdictText is series j's verdict at step: a run's status (pass or FAIL once it has
// ended there, passing or not yet before); a seed group's on the mean of its seeds'
// measure, then how many seeds pass ("FAIL 1/3", as compare counts them); "" before any
// evaluation.
func (o *Model) verdictText(j, step int) string {
	g := o.groups[j]
	var vals []float64
	var crit derived.Primitive
	passing, ended, n := 0, true, 0
	for _, i := range g.members {
		v, end, ok := o.runVerdict(i, step)
		if !ok {
			ended = false
			continue
		}
		n++
		crit, ended = v.Primitive, ended && end
		vals = append(vals, v.Value)
		if v.Pass {
			passing++
		}
	}
	if n == 0 {
		return ""
	}
	mean := derived.MeanFinite(vals)
	v := derived.Verdict{Primitive: crit, Value: mean, Pass: crit.Meets(mean)}
	word := v.Status(ended)
	if !g.band() {
		return word
	}
	return fmt.Sprintf("%s %d/%d", word, passing, len(g.members))
}

// verdictStyled is verdictText in the good or warn style.
func (o *Model) verdictStyled(j, step int) string {
	t := o.verdictText(j, step)
	switch {
	case t == "":
		return ""
	case strings.HasPrefix(t, "pass"):
		return o.st.Good.Render(t)
	}
	return o.st.Warn.Render(t)
}

// passLine reports whether every run is judged by bit error (a), whose pass line the (a)
// chart then draws (recall is judged by accuracy, which the chart does not plot).
func (o *Model) passLine() bool {
	for _, m := range o.metas {
		if derived.CriterionOf(m.Task).AtLeast() {
			return false
		}
	}
	return len(o.metas) > 0
}

// contextFree is the runs' context-free levels (derived.ContextFreeOf), each once, in
// order: one for runs of one bijection size.
func (o *Model) contextFree() []float64 {
	var out []float64
	for i, m := range o.metas {
		n := 0
		if c := o.curves[i]; len(c) > 0 {
			n = len(c[len(c)-1].Eval.BayesEntropy)
		}
		cf := derived.ContextFreeOf(m, n)
		if math.IsNaN(cf) {
			continue
		}
		seen := false
		for _, v := range out {
			seen = seen || math.Abs(v-cf) < 1e-9
		}
		if !seen {
			out = append(out, cf)
		}
	}
	return out
}
