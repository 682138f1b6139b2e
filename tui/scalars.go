package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// scalarPoints is the most records the scalar panes (Loss, LR & grad norm, System) read:
// more than any chart has columns.
const scalarPoints = 400

// refreshScalars sets sh.scalars, every record's scalars (loss, learning rate, gradient
// norm, steps/s, wall time) up to the current step thinned to scalarPoints: only while a
// pane that shows them is on screen, and while following a live run only once per stride
// of steps (sparkTo), so a co-running trainer pays for a read now and then, not on every
// refresh. sh.scalarGen changes when they do.
func (m *Model) refreshScalars() error {
	sh := m.sh
	if !m.scalarsShown() {
		return nil
	}
	if !sh.any {
		sh.scalars, sh.scalarTo = nil, -1
		return nil
	}
	to := sh.step
	if sh.follow && !sh.replay && !sh.ended {
		to = sparkTo(sh.first, sh.step, scalarPoints)
	}
	if to == sh.scalarTo && sh.scalars != nil {
		return nil
	}
	recs, err := sh.feed.Scalars(to, scalarPoints)
	if err != nil {
		return err
	}
	sh.scalars, sh.scalarTo = recs, to
	sh.scalarGen++
	return nil
}

// scalarPanes are the panes that show the scalars: Loss, LR & grad norm, System.
var scalarPanes = [...]int{7, 8, 9}

// scalarsShown reports whether a pane that shows the scalars is on screen: focused (tabs),
// or on the page shown.
func (m *Model) scalarsShown() bool {
	for _, i := range scalarPanes {
		if i == m.focus || (m.mode() != modeTabs && pageOf(i) == m.page) {
			return true
		}
	}
	return false
}

// scalarSeries is one field of the scalar records as a chart's x (steps) and y.
func scalarSeries(recs []sessions.Record, f func(sessions.Record) float64) (xs, ys []float64) {
	xs, ys = make([]float64, len(recs)), make([]float64, len(recs))
	for i, r := range recs {
		xs[i], ys[i] = float64(r.Step), f(r)
	}
	return xs, ys
}

// finiteOf is the finite values of ys.
func finiteOf(ys []float64) []float64 {
	var out []float64
	for _, v := range ys {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	return out
}

// logOf is ys as log10 (values ≤ 0 at look.LogFloor), for a log axis.
func logOf(ys []float64) []float64 {
	out := make([]float64, len(ys))
	for i, v := range ys {
		out[i] = math.Log10(math.Max(v, look.LogFloor))
		if math.IsNaN(v) {
			out[i] = v
		}
	}
	return out
}

// scalarChart is a chart of one scalar over steps: its raw values dotted (·, dim) and,
// with smoothing, their moving average as the line (•); on a log axis when log. refs are
// its reference lines.
func scalarChart(sh *shared, xs, ys []float64, title string, smooth bool, log bool, refs []look.RefLine) look.Chart {
	st := sh.st
	line := ys
	if smooth {
		line = look.EMA(ys, look.Smoothings[sh.smooth])
	}
	yr := look.ZoomRange(ys, refLevels(refs))
	if log {
		ys, line = logOf(ys), logOf(line)
		for i := range refs {
			refs[i].Y = math.Log10(math.Max(refs[i].Y, look.LogFloor))
		}
		yr = look.FitLogRange(ys, refLevels(refs))
		title += " (log)"
	}
	c := look.Chart{XR: look.Span{Lo: xs[0], Hi: math.Max(xs[len(xs)-1], xs[0]+1)}, YR: yr, XInt: true, YLog: log,
		XTitle: "step", YTitle: title, Refs: refs, RefStyle: st.Dim}
	if smooth && sh.smooth > 0 {
		c.Series = append(c.Series, look.Series{Glyph: '·', Style: st.Dim, X: xs, Y: ys, Dots: true})
	}
	c.Series = append(c.Series, look.Series{Glyph: '•', Style: st.SeriesA, X: xs, Y: line})
	return c
}

// refLevels is the reference lines' values.
func refLevels(refs []look.RefLine) []float64 {
	out := make([]float64, len(refs))
	for i, r := range refs {
		out[i] = r.Y
	}
	return out
}

// lossPane plots the training loss over steps: each record's loss dotted, its moving
// average (+/−: the smoothing) as the line, on a log axis with y.
type lossPane struct {
	paneBase
	log bool
	// user is the user's own metrics, charted in the loss chart's place on u.
	user userCharts
}

// newLossPane returns the pane reading sh.
func newLossPane(sh *shared) *lossPane {
	return &lossPane{paneBase: newPaneBase(sh, "Loss", "Loss")}
}

// clone copies the pane onto sh.
func (p *lossPane) clone(sh *shared) pane { return cloneOn(p, sh) }

// Update toggles the log-Y scale while focused (y elsewhere is the bit-error chart's).
func (p *lossPane) Update(msg tea.KeyMsg, focused bool) (bool, tea.Cmd) {
	if focused && key.Matches(msg, p.sh.keys.LogY) {
		p.log = !p.log
		return true, nil
	}
	return focused && p.user.update(msg), nil
}

// Refresh re-reads the user's own metrics when the scalars were.
func (p *lossPane) Refresh() error { return p.user.refresh(p.sh) }

// Help lists the pane's keys (+ and −, the smoothing, are global).
func (p *lossPane) Help() []key.Binding {
	return append([]key.Binding{p.sh.keys.LogY}, p.user.help()...)
}

// scalarKey is what a scalar pane's view depends on.
type scalarKey struct {
	w, h, gen, smooth int
	log               bool
	user              [3]int
}

// View renders the chart, redrawn only when an input changed.
func (p *lossPane) View() string {
	return p.cache.get(p.sh, scalarKey{p.w, p.h, p.sh.scalarGen, p.sh.smooth, p.log, p.user.viewKey(p.sh)}, p.draw)
}

// draw renders the title, the values at the current step and the chart.
func (p *lossPane) draw() string {
	sh, w, h := p.sh, p.w, p.h
	if p.user.shown > 0 {
		return p.user.draw(sh, w, h, p.log)
	}
	if len(sh.scalars) == 0 {
		return look.Fit(sh.st.Dim.Render("no records yet"), w, h)
	}
	scale := "linear Y (y/l)"
	if p.log {
		scale = "log Y (y/l)"
	}
	smooth := look.SmoothLabel(sh.smooth) + " (+/−)"
	title := look.FitParts(strings.Join(append([]string{"training loss over steps", smooth, scale}, p.user.hint()...), " · "), " · ", w)
	xs, ys := scalarSeries(sh.scalars, func(r sessions.Record) float64 { return r.Loss })
	last := sh.scalars[len(sh.scalars)-1]
	legend := fmt.Sprintf("• loss %s @%d", look.Num(last.Loss, 4), last.Step)
	if sh.smooth > 0 {
		ema := look.EMA(ys, look.Smoothings[sh.smooth])
		legend = fmt.Sprintf("· loss %s  • %s %s  @%d", look.Num(last.Loss, 4), look.SmoothLabel(sh.smooth), look.Num(ema[len(ema)-1], 4), last.Step)
	}
	lines := []string{title, look.PadLine(legend, w)}
	if ch := h - len(lines); ch >= 5 {
		lines = append(lines, scalarChart(sh, xs, ys, "loss", true, p.log, nil).Draw(w, ch))
	}
	return look.Fit(strings.Join(lines, "\n"), w, h)
}

// optimPane plots the learning rate (the schedule: warm-up, then decay) and the gradient
// norm over steps (dotted, its moving average as the line, with the clip level), stacked,
// or side by side when wide.
type optimPane struct{ paneBase }

// newOptimPane returns the pane reading sh.
func newOptimPane(sh *shared) *optimPane {
	return &optimPane{paneBase: newPaneBase(sh, "LR & grad norm", "LR/grad")}
}

// clone copies the pane onto sh.
func (p *optimPane) clone(sh *shared) pane { return cloneOn(p, sh) }

// View renders the charts, redrawn only when an input changed.
func (p *optimPane) View() string {
	return p.cache.get(p.sh, scalarKey{w: p.w, h: p.h, gen: p.sh.scalarGen, smooth: p.sh.smooth}, p.draw)
}

// draw renders the values at the current step and the two charts.
func (p *optimPane) draw() string {
	sh, w, h := p.sh, p.w, p.h
	if len(sh.scalars) == 0 {
		return look.Fit(sh.st.Dim.Render("no records yet"), w, h)
	}
	last := sh.scalars[len(sh.scalars)-1]
	xs, lr := scalarSeries(sh.scalars, func(r sessions.Record) float64 { return r.LR })
	_, gn := scalarSeries(sh.scalars, func(r sessions.Record) float64 { return r.GradNorm })
	parts := []string{fmt.Sprintf("lr %.2e", last.LR), "grad norm " + look.Num(last.GradNorm, 3)}
	if sh.smooth > 0 {
		ema := look.EMA(gn, look.Smoothings[sh.smooth])
		parts[1] += fmt.Sprintf(" (%s %s)", look.SmoothLabel(sh.smooth), look.Num(ema[len(ema)-1], 3))
	}
	var refs []look.RefLine
	if c := sh.cfg.Clip; c > 0 {
		refs = append(refs, look.RefLine{Y: c, Tick: look.Num(c, 2), Label: "clip"})
		parts = append(parts, "clip "+look.Num(c, 2))
	}
	parts = append(parts, fmt.Sprintf("@%d", last.Step), look.SmoothLabel(sh.smooth)+" (+/−)")
	lines := look.FlowParts(parts, " · ", w)
	ch := h - len(lines)
	lrC := scalarChart(sh, xs, lr, "learning rate", false, false, nil)
	gnC := scalarChart(sh, xs, gn, "grad norm", true, false, refs)
	switch {
	case w >= 2*minScalarW && ch >= 5:
		lw := (w - 1) / 2
		lines = append(lines, look.HCat(lrC.Draw(lw, ch), look.Fit("", 1, ch), gnC.Draw(w-lw-1, ch)))
	case ch >= 10:
		look.AlignX(w, []*look.Chart{&lrC, &gnC}, []int{ch / 2, ch - ch/2}) // their x axes end in one column
		lines = append(lines, lrC.Draw(w, ch/2), gnC.Draw(w, ch-ch/2))
	case ch >= 5:
		lines = append(lines, gnC.Draw(w, ch))
	}
	return look.Fit(strings.Join(lines, "\n"), w, h)
}

// minScalarW is the least width of one of the LR & grad norm pane's charts side by side.
const minScalarW = 50
