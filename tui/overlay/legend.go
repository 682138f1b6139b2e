package overlay

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"windtunnel/tui"
	"windtunnel/tui/look"
)

// title names the metric, the task the runs share, how many sessions and seed groups there
// are, and the axis' scale and range: the parts that fit the width, whole.
func (o *Model) title() string {
	over := " over steps"
	switch {
	case o.wallAxis():
		over = " over wall time (x)"
	case o.wall:
		over = " over steps (no wall times recorded)"
	}
	parts := []string{o.metric.title() + over}
	task := ""
	for i, m := range o.metas {
		if i > 0 && m.Task != task {
			task = ""
			break
		}
		task = m.Task
	}
	if task != "" {
		parts = append(parts, task)
	}
	runs := overlayPlural(len(o.feeds), "session")
	if n := o.bands(); n > 0 {
		runs += fmt.Sprintf(" (%s: mean ± sd)", overlayPlural(n, "seed group"))
	}
	scale := "linear"
	if o.log {
		scale = "log"
	}
	fit := "y fitted (z)"
	if o.fromZero && !o.log {
		fit = "y from 0 (z)"
	}
	parts = append(parts, runs, scale+" (l)")
	if !o.log {
		parts = append(parts, fit)
	}
	if o.bands() > 0 && o.seeds {
		parts = append(parts, "seeds (s)")
	}
	if o.smooth > 0 {
		parts = append(parts, look.SmoothLabel(o.smooth)+" (+/−)")
	}
	return look.FitParts(strings.Join(parts, " · "), " · ", o.width)
}

// overlayPlural is "1 session", "2 sessions".
func overlayPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// bands is the number of seed groups.
func (o *Model) bands() int {
	n := 0
	for _, g := range o.groups {
		if g.band() {
			n++
		}
	}
	return n
}

// Legend densities, from the richest: full (every part of every series, wrapped onto
// continuation lines, a line per seed with its values), compact (a line per series, the
// parts that fit, and a line per seed group naming its seeds' glyphs) and tight (a line
// per series, its seeds' glyphs at its end where they fit). render takes the richest that
// leaves the charts their room.
const (
	legendFull = iota
	legendCompact
	legendTight
	numDensities
)

// legendSep separates the parts of a legend line.
const legendSep = "  "

// legend is the legend at density d: per series its glyph (and band shade) and label, then
// its verdict at step at (so that it is never the part left out), its values there (a
// group's mean ± sd) from the newest evaluation at or before it, and the heads switched off
// in its runs; with the seeds shown, under each group its seeds (density: see legendFull).
// No line is cut within a part, nor ends in "…".
func (o *Model) legend(data [][]overlaySeries, at int, ok bool, d int) []string {
	w := o.width
	lw := 0
	for _, g := range o.groups {
		lw = max(lw, ansi.StringWidth(g.label))
	}
	lw = min(lw, max(w/2, 12))
	bands := o.bands() > 0
	var lines []string
	for j, g := range o.groups {
		st := o.style(j)
		mark := ""
		if o.sel >= 0 {
			mark = "  "
			if o.sel == j {
				mark = "▶ "
			}
		}
		mark += st.Render(string(overlayGlyphs[j%len(overlayGlyphs)])) + " "
		if bands {
			shade := " "
			if g.band() {
				shade = st.Render(string(o.bandGlyph(j)))
			}
			mark += shade + " "
		}
		head := mark + look.PadLine(g.label, lw) + legendSep
		parts := o.seriesParts(data, j, at, ok)
		seedKey := g.band() && o.seeds
		var key []string
		if seedKey {
			for k, s := range g.seeds {
				key = append(key, fmt.Sprintf("%c seed %s", seedGlyph(k), s))
			}
		}
		if d == legendTight && seedKey {
			parts = append(parts, strings.Join(key, " "))
		}
		lines = append(lines, legendLines(head, parts, w, d == legendFull)...)
		if !seedKey || d == legendTight {
			continue
		}
		indent := strings.Repeat(" ", ansi.StringWidth(mark)+2)
		if d == legendCompact {
			lines = append(lines, legendLines(indent, key, w, false)...)
			continue
		}
		for k, i := range g.members {
			sv := []string{"no evaluation yet"}
			if r, found := o.evalAt(i, at); found && ok {
				sv = nil
				if v, ended, found := o.runVerdict(i, at); found {
					sv = append(sv, v.Status(ended))
				}
				for _, m := range o.metric.shown() {
					if v, found := o.valueAt(i, m, at); found {
						sv = append(sv, m.short()+" "+look.Num(v, 3))
					}
				}
				sv = append(sv, fmt.Sprintf("@%d", r.Step))
			}
			lines = append(lines, legendLines(indent+look.PadLine(key[k], lw-2)+legendSep, sv, w, true)...)
		}
	}
	return lines
}

// legendLines lays a legend entry out in lines of at most w cells: head, then the parts
// joined by legendSep; wrapped onto continuation lines under the parts' column when wrap
// is set, else on one line with the parts that fit (in order, whole).
func legendLines(head string, parts []string, w int, wrap bool) []string {
	hw := ansi.StringWidth(head)
	if !wrap || w-hw < 16 {
		line := head
		for k, p := range parts {
			sep := legendSep
			if k == 0 {
				sep = ""
			}
			if ansi.StringWidth(line)+ansi.StringWidth(sep+p) <= w {
				line += sep + p
			}
		}
		return []string{line}
	}
	rows := look.FlowParts(parts, legendSep, w-hw)
	if len(rows) == 0 {
		return []string{head}
	}
	out := []string{head + rows[0]}
	for _, r := range rows[1:] {
		out = append(out, strings.Repeat(" ", hw)+r)
	}
	return out
}

// seriesParts are series j's legend parts at step at: its verdict, its values in the
// metrics shown with the step they are from, the heads switched off; or the error reading
// one of its runs.
func (o *Model) seriesParts(data [][]overlaySeries, j, at int, ok bool) []string {
	g := o.groups[j]
	for _, i := range g.members {
		if o.errs[i] != "" {
			msg := "error: " + o.errs[i]
			if g.band() {
				msg = "error: " + o.names[i] + ": " + o.errs[i]
			}
			return []string{o.st.Warn.Render(msg)}
		}
	}
	var parts []string
	if v := o.verdictStyled(j, at); v != "" && ok {
		parts = append(parts, v)
	}
	parts = append(parts, o.values(data, j, at, ok)...)
	if hs := o.headsText(j); hs != "" {
		parts = append(parts, hs)
	}
	return parts
}

// values is series j's values at step at in the metrics shown, a part each, then the step
// they are from: "(a) 0.063", "@600"; a group's "(a) 0.062 ± 0.005", with "(2 of 3 seeds)"
// where some seeds have none yet.
func (o *Model) values(data [][]overlaySeries, j, at int, ok bool) []string {
	g := o.groups[j]
	var parts []string
	step, n := -1, len(g.members)
	for k, m := range o.metric.shown() {
		d := data[k][j]
		switch {
		case g.band() && len(d.band) > 0:
			if p, found := lastAt(d.band, func(p bandPoint) int { return p.Step }, at); ok && found {
				parts = append(parts, fmt.Sprintf("%s %s ± %s", m.short(), look.Num(p.Mean, 3), look.Num(p.SD, 3)))
				step, n = p.Step, p.N
			}
		case !g.band() && len(d.curve) > 0:
			if p, found := lastAt(d.curve, func(p stepValue) int { return p.Step }, at); ok && found {
				parts = append(parts, fmt.Sprintf("%s %s", m.short(), look.Num(p.V, 3)))
				step = p.Step
			}
		}
	}
	if step < 0 {
		if o.anyEval(j) {
			return []string{"no evaluation yet"}
		}
		return []string{"no evaluations yet"}
	}
	s := fmt.Sprintf("@%d", step)
	if n < len(g.members) {
		s += fmt.Sprintf(" (%d of %d seeds)", n, len(g.members))
	}
	return append(parts, s)
}

// anyEval reports whether any run of series j has an evaluation.
func (o *Model) anyEval(j int) bool {
	for _, i := range o.groups[j].members {
		if len(o.curves[i]) > 0 {
			return true
		}
	}
	return false
}

// axisLine is the y axis' title over the chart, and the cursor's step on the right.
func (o *Model) axisLine(w, at int) string {
	left := "bits"
	if o.metric == metricLoss {
		left = "loss"
	}
	if o.log {
		left += " (log scale)"
	}
	wall := ""
	if o.wallAxis() {
		wall = o.wallText(at)
	}
	right := fmt.Sprintf("step %d%s · newest (←/→ scrub)", at, wall)
	if !o.cursor.follow {
		right = fmt.Sprintf("step %d%s %c · scrubbing (end: follow)", at, wall, cursorGlyph)
	}
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return look.PadLine(left, w)
	}
	return left + strings.Repeat(" ", gap) + o.st.Dim.Render(right)
}

// refNote names the reference lines a chart leaves out (outside its y range, and those in
// range too when it has no room for their labels): "┄ pass 0.15 below · no context 1.11
// above", "┄ no context 1.11 · pass 0.15"; "" when it shows them all.
func refNote(refs []look.RefLine, yr look.Span, labelled bool) string {
	var parts []string
	for _, r := range refs {
		where := ""
		switch y := r.Y; {
		case y < yr.Lo:
			where = " below"
		case y > yr.Hi:
			where = " above"
		case labelled:
			continue
		}
		parts = append(parts, r.Label+" "+r.Tick+where)
	}
	if len(parts) == 0 {
		return ""
	}
	return string(look.RefGlyph) + " " + strings.Join(parts, " · ")
}

// legendGroup is the help's legend for the runs (tui.Legend of the first run: the runs
// compared share a task).
func (o *Model) legendGroup() look.HelpGroup {
	if len(o.metas) == 0 {
		return look.HelpGroup{}
	}
	n := 0
	if c := o.curves[0]; len(c) > 0 {
		n = len(c[len(c)-1].Eval.BayesEntropy)
	}
	return tui.Legend(o.metas[0], n)
}
