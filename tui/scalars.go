package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tui/look"
)

// scalarPoints is the most records the scalar panes (Loss, LR & grad norm, System) read
// over the range they show: more than any chart has columns. zoomPoints is the most they
// read when zoomed (the denser the smaller the range).
const (
	scalarPoints = 400
	zoomPoints   = 8000
)

// refreshScalars sets sh.scalars, every record's scalars (loss, learning rate, gradient
// norm, steps/s, wall time) of the whole run, thinned to scalarPoints over the range the
// charts show (from the first step, so that the moving average starts there), and the
// run's pauses: only while a pane that shows them is on screen, and on a live run only
// once per stride of steps (sparkTo), so a co-running trainer pays for a read now and
// then, not on every refresh. sh.scalarGen changes when they do.
func (m *Model) refreshScalars() error {
	sh := m.sh
	if !m.scalarsShown() {
		return nil
	}
	if !sh.any {
		sh.scalars, sh.scalarTo = nil, -1
		return nil
	}
	to := sh.last
	if !sh.replay && !sh.ended {
		to = sparkTo(sh.first, sh.last, scalarPoints)
	}
	n := scalarPoints
	if lo, hi := sh.viewSpan(); sh.zoom.on {
		to = min(to, hi)
		n = scalarPoints
		for n < zoomPoints && n*max(to-lo, 1) < scalarPoints*(to-sh.first) {
			n *= 2 // a power of two times scalarPoints: read again only when the zoom changes much
		}
	}
	if to == sh.scalarTo && n == sh.scalarN && sh.scalars != nil {
		return nil
	}
	recs, err := sh.feed.Scalars(to, n)
	if err != nil {
		return err
	}
	evs, err := sh.feed.Events(-1)
	if err != nil {
		return err
	}
	sh.scalars, sh.scalarTo, sh.scalarN = recs, to, n
	sh.pauses = derived.Pauses(evs, sh.last)
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

// chartView is one chart's own settings: its moving average's weight (an index into
// look.Smoothings: + and − while its pane has focus) and its log-Y scale (y).
type chartView struct {
	smooth int
	log    bool
}

// newChartView is a chart's settings at the start: TensorBoard's smoothing, linear Y.
func newChartView() chartView { return chartView{smooth: 1} }

// key applies the keys of the chart's settings (y/l, +, −) and reports whether msg was one.
func (v *chartView) key(k KeyMap, msg tea.KeyMsg, smooths bool) bool {
	switch {
	case key.Matches(msg, k.LogY):
		v.log = !v.log
	case smooths && key.Matches(msg, k.SmoothMore):
		v.smooth = look.SmoothStep(v.smooth, 1)
	case smooths && key.Matches(msg, k.SmoothLess):
		v.smooth = look.SmoothStep(v.smooth, -1)
	default:
		return false
	}
	return true
}

// scale names the chart's Y scale and its key: "linear Y (y/l)".
func (v chartView) scale() string {
	if v.log {
		return "log Y (y/l)"
	}
	return "linear Y (y/l)"
}

// scalarChart is a chart of one scalar over the steps shown (sh.stepAxis: the whole run or
// the zoom), with the cursor while scrubbing: its raw values dotted (·, dim) and, with
// smoothing, their moving average (computed from the first step) as the line (•); on a
// log axis when v.log. refs are its reference lines.
func scalarChart(sh *shared, xs, ys []float64, title string, v chartView, smooth bool, refs []look.RefLine) look.Chart {
	st := sh.st
	line := ys
	if smooth {
		line = look.EMA(ys, look.Smoothings[v.smooth])
	}
	xs, kept := sh.inView(xs, ys, line)
	ys, line = kept[0], kept[1]
	yr := look.ZoomRange(ys, refLevels(refs))
	if v.log {
		ys, line = logOf(ys), logOf(line)
		for i := range refs {
			refs[i].Y = math.Log10(math.Max(refs[i].Y, look.LogFloor))
		}
		yr = look.FitLogRange(ys, refLevels(refs))
		title += " (log)"
	}
	c := look.Chart{XR: sh.stepAxis(sh.scalarTo), YR: yr, XInt: true, YLog: v.log, Cursor: sh.stepCursor(),
		XTitle: "step", YTitle: title, Refs: refs, RefStyle: st.Dim}
	if smooth && v.smooth > 0 {
		c.Series = append(c.Series, look.Series{Glyph: '·', Style: st.Dim, X: xs, Y: ys, Dots: true})
	}
	c.Series = append(c.Series, look.Series{Glyph: '•', Style: st.SeriesA, X: xs, Y: line})
	return c
}

// atCursor is the legend's mark of the step its values are at: "┊ @300" while scrubbing
// (the cursor line's glyph), "@300" at the newest step.
func (s *shared) atCursor(step int) string {
	if s.cursorOn() {
		return fmt.Sprintf("%c @%d", look.CursorGlyph, step)
	}
	return fmt.Sprintf("@%d", step)
}

// scalarAt is the record the scalar legends give the values of: the newest at or before
// the cursor while scrubbing, else the newest read (the charts are then drawn again only
// when the scalars are read again, not on every record).
func (s *shared) scalarAt() (sessions.Record, bool) {
	switch {
	case s.cursorOn() && s.hasRec:
		return s.rec, true
	case len(s.scalars) > 0:
		return s.scalars[len(s.scalars)-1], true
	}
	return sessions.Record{}, false
}

// emaAt is the moving average of ys (xs steps) of weight index i at step.
func emaAt(xs, ys []float64, i, step int) float64 {
	v, _, _ := valueAt(xs, look.EMA(ys, look.Smoothings[i]), step)
	return v
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
// average (+/−: the smoothing) as the line, on a log axis with y: both the pane's own.
type lossPane struct {
	paneBase
	view chartView
	// user is the user's own metrics, charted in the loss chart's place on u.
	user userCharts
}

// newLossPane returns the pane reading sh.
func newLossPane(sh *shared) *lossPane {
	return &lossPane{paneBase: newPaneBase(sh, "Loss", "Loss"), view: newChartView()}
}

// clone copies the pane onto sh.
func (p *lossPane) clone(sh *shared) pane { return cloneOn(p, sh) }

// Update toggles the log-Y scale and steps the smoothing while focused.
func (p *lossPane) Update(msg tea.KeyMsg, focused bool) (bool, tea.Cmd) {
	if !focused {
		return false, nil
	}
	if p.view.key(p.sh.keys, msg, true) {
		return true, nil
	}
	return p.user.update(msg), nil
}

// Refresh re-reads the user's own metrics when the scalars were.
func (p *lossPane) Refresh() error { return p.user.refresh(p.sh) }

// Help lists the pane's keys.
func (p *lossPane) Help() []key.Binding {
	k := p.sh.keys
	return append([]key.Binding{k.LogY, k.SmoothMore, k.SmoothLess}, p.user.help()...)
}

// scalarKey is what a scalar pane's view depends on.
type scalarKey struct {
	w, h, gen int
	view      chartView
	curve     cursorKey
	user      [3]int
}

// View renders the chart, redrawn only when an input changed.
func (p *lossPane) View() string {
	return p.cache.get(p.sh, scalarKey{w: p.w, h: p.h, gen: p.sh.scalarGen, view: p.view, curve: p.sh.curveKey(), user: p.user.viewKey(p.sh)}, p.draw)
}

// draw renders the title, the values at the current step and the chart.
func (p *lossPane) draw() string {
	sh, w, h := p.sh, p.w, p.h
	if p.user.shown > 0 {
		return p.user.draw(sh, w, h, p.view)
	}
	rec, ok := sh.scalarAt()
	if len(sh.scalars) == 0 || !ok {
		return look.Fit(sh.st.Dim.Render("no records yet"), w, h)
	}
	smooth := look.SmoothLabel(p.view.smooth) + " (+/−)"
	title := look.FitParts(strings.Join(append([]string{"training loss over steps", smooth, p.view.scale()}, p.user.hint()...), " · "), " · ", w)
	xs, ys := scalarSeries(sh.scalars, func(r sessions.Record) float64 { return r.Loss })
	legend := fmt.Sprintf("• loss %s %s", look.Num(rec.Loss, 4), sh.atCursor(rec.Step))
	if p.view.smooth > 0 {
		legend = fmt.Sprintf("· loss %s  • %s %s  %s", look.Num(rec.Loss, 4), look.SmoothLabel(p.view.smooth),
			look.Num(emaAt(xs, ys, p.view.smooth, rec.Step), 4), sh.atCursor(rec.Step))
	}
	lines := []string{title, look.PadLine(legend, w)}
	if ch := h - len(lines); ch >= 5 {
		lines = append(lines, scalarChart(sh, xs, ys, "loss", p.view, true, nil).Draw(w, ch))
	}
	return look.Fit(strings.Join(lines, "\n"), w, h)
}

// optimPane plots the learning rate (the schedule: warm-up, then decay; drawn raw) and the
// gradient norm over steps (dotted, its moving average as the line, with the clip level;
// its smoothing and log-Y scale the pane's own), stacked, or side by side when wide.
type optimPane struct {
	paneBase
	grad chartView
}

// newOptimPane returns the pane reading sh.
func newOptimPane(sh *shared) *optimPane {
	return &optimPane{paneBase: newPaneBase(sh, "LR & grad norm", "LR/grad"), grad: newChartView()}
}

// clone copies the pane onto sh.
func (p *optimPane) clone(sh *shared) pane { return cloneOn(p, sh) }

// Update toggles the grad-norm chart's log-Y scale and steps its smoothing while focused.
func (p *optimPane) Update(msg tea.KeyMsg, focused bool) (bool, tea.Cmd) {
	return focused && p.grad.key(p.sh.keys, msg, true), nil
}

// Help lists the pane's keys (they set the grad-norm chart's scale and smoothing).
func (p *optimPane) Help() []key.Binding {
	k := p.sh.keys
	return []key.Binding{k.LogY, k.SmoothMore, k.SmoothLess}
}

// View renders the charts, redrawn only when an input changed.
func (p *optimPane) View() string {
	return p.cache.get(p.sh, scalarKey{w: p.w, h: p.h, gen: p.sh.scalarGen, view: p.grad, curve: p.sh.curveKey()}, p.draw)
}

// draw renders the values at the current step and the two charts.
func (p *optimPane) draw() string {
	sh, w, h := p.sh, p.w, p.h
	rec, ok := sh.scalarAt()
	if len(sh.scalars) == 0 || !ok {
		return look.Fit(sh.st.Dim.Render("no records yet"), w, h)
	}
	xs, lr := scalarSeries(sh.scalars, func(r sessions.Record) float64 { return r.LR })
	_, gn := scalarSeries(sh.scalars, func(r sessions.Record) float64 { return r.GradNorm })
	parts := []string{fmt.Sprintf("lr %.2e", rec.LR), "grad norm " + look.Num(rec.GradNorm, 3)}
	if p.grad.smooth > 0 {
		parts[1] += fmt.Sprintf(" (%s %s)", look.SmoothLabel(p.grad.smooth), look.Num(emaAt(xs, gn, p.grad.smooth, rec.Step), 3))
	}
	var refs []look.RefLine
	if c := sh.cfg.Clip; c > 0 {
		refs = append(refs, look.RefLine{Y: c, Tick: look.Num(c, 2), Label: "clip"})
		parts = append(parts, "clip "+look.Num(c, 2))
	}
	parts = append(parts, sh.atCursor(rec.Step), "grad norm "+look.SmoothLabel(p.grad.smooth)+" (+/−)")
	if p.grad.log {
		parts = append(parts, "log Y (y/l)")
	}
	lines := look.FlowParts(parts, " · ", w)
	ch := h - len(lines)
	lrC := scalarChart(sh, xs, lr, "learning rate", chartView{}, false, nil)
	gnC := scalarChart(sh, xs, gn, "grad norm", p.grad, true, refs)
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
