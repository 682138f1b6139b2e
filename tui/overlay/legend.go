package overlay

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"windtunnel/tui"
	"windtunnel/tui/look"
)

// title names the metric, the task the runs share, how many sessions and seed groups there
// are, and the axis' scale and range.
func (o *Model) title() string {
	parts := []string{o.metric.title() + " over steps"}
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
	return strings.Join(parts, " · ")
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

// legend is one line per series: its glyph (and band shade), its label, its values at step
// at (a group's mean ± sd) from the newest evaluation at or before it, its verdict and the
// heads switched off in its runs; with the seeds shown, a line per seed under its group.
func (o *Model) legend(data [][]overlaySeries, at int, ok bool) []string {
	lw := 0
	for _, g := range o.groups {
		lw = max(lw, ansi.StringWidth(g.label))
	}
	lw = min(lw, max(o.width/2, 12))
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
		val := o.values(data, j, at, ok)
		for _, i := range g.members {
			if o.errs[i] != "" {
				msg := "error: " + o.errs[i]
				if g.band() {
					msg = "error: " + o.names[i] + ": " + o.errs[i]
				}
				val = o.st.Warn.Render(msg)
				break
			}
		}
		if v := o.verdictStyled(j, at); v != "" && ok {
			val += " · " + v
		}
		if hs := o.headsText(j); hs != "" {
			val += "  " + hs
		}
		lines = append(lines, mark+look.PadLine(g.label, lw)+"  "+val)
		if g.band() && o.seeds {
			for k, i := range g.members {
				sv := "no evaluation yet"
				if r, found := o.evalAt(i, at); found && ok {
					var vs []string
					for _, m := range o.metric.shown() {
						vs = append(vs, m.short()+" "+look.Num(m.value(r.Eval), 3))
					}
					sv = strings.Join(vs, " ") + fmt.Sprintf(" @%d", r.Step)
					if v, ended, found := o.runVerdict(i, at); found {
						sv += " · " + v.Status(ended)
					}
				}
				lines = append(lines, strings.Repeat(" ", ansi.StringWidth(mark))+
					look.PadLine(fmt.Sprintf("  %c seed %s", seedGlyph, g.seeds[k]), lw)+"  "+sv)
			}
		}
	}
	return lines
}

// values is series j's values at step at in the metrics shown: "(a) 0.063 @600", a group's
// "(a) 0.062 ± 0.005 @600", with "(2 of 3 seeds)" where some seeds have none yet.
func (o *Model) values(data [][]overlaySeries, j, at int, ok bool) string {
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
			return "no evaluation yet"
		}
		return "no evaluations yet"
	}
	s := strings.Join(parts, " ") + fmt.Sprintf(" @%d", step)
	if n < len(g.members) {
		s += fmt.Sprintf(" (%d of %d seeds)", n, len(g.members))
	}
	return s
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
	if o.log {
		left = "bits (log scale)"
	}
	right := fmt.Sprintf("step %d · newest (←/→ scrub)", at)
	if !o.cursor.follow {
		right = fmt.Sprintf("step %d %c · scrubbing (end: follow)", at, cursorGlyph)
	}
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return look.PadLine(left, w)
	}
	return left + strings.Repeat(" ", gap) + o.st.Dim.Render(right)
}

// refNote names the reference lines a chart leaves out (outside its y range, or all of
// them when it has no room for their labels): "┄ pass 0.15 below · no context 1.11 above"; ""
// when it shows them all.
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
