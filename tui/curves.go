package tui

import (
	"fmt"
	"math"

	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/tui/look"
)

// The charts over steps (bit error, loss, learning rate and gradient norm, steps/s) show the
// whole run, not the run cut at the current step: a cursor line (look.CursorGlyph) marks
// the step while scrubbing, and their legends give the values at it. Their x range is the
// whole span or the zoom, a step range set with z at both ends (or the mouse wheel) and
// reset with Z.

// stepZoom is the step range the charts over steps show, when on; marked while z has set
// one end (mark) and waits for the other. tail: the range ended at the newest step when it
// was set, and slides with it while the view follows.
type stepZoom struct {
	on     bool
	lo, hi int
	tail   bool
	marked bool
	mark   int
}

// minZoomSpan is the fewest steps a zoom spans.
const minZoomSpan = 4

// viewSpan is the steps the charts over steps show: the zoom, or the whole recorded span.
func (s *shared) viewSpan() (lo, hi int) {
	if !s.zoom.on {
		return s.first, s.last
	}
	lo, hi = s.zoom.lo, s.zoom.hi
	if s.zoom.tail && s.follow {
		lo, hi = s.last-(hi-lo), s.last
	}
	return max(lo, s.first), min(max(hi, lo+1), max(s.last, lo+1))
}

// stepAxis is viewSpan as a chart's x range (never empty), ending at end (the newest step
// the chart's data was read up to) when it shows the whole run: the chart is then drawn
// again only when its data changes, not on every record.
func (s *shared) stepAxis(end int) look.Span {
	lo, hi := s.viewSpan()
	if !s.zoom.on {
		hi = end
	}
	return look.Span{Lo: float64(lo), Hi: float64(max(hi, lo+1))}
}

// cursorOn reports whether the charts over steps draw the cursor: while scrubbing, at a
// step inside the range they show.
func (s *shared) cursorOn() bool {
	lo, hi := s.viewSpan()
	return s.any && !s.follow && s.step >= lo && s.step <= hi
}

// stepCursor is the cursor line of a chart over steps (nil when cursorOn is false).
func (s *shared) stepCursor() *look.Cursor {
	if !s.cursorOn() {
		return nil
	}
	return &look.Cursor{X: float64(s.step), Glyph: look.CursorGlyph, Style: s.st.Focus}
}

// cursorKey is what a chart over steps depends on besides its data: the zoom (0, 0: none,
// the data's own key then says where the axis ends) and the cursor's step (−1: none).
type cursorKey struct{ lo, hi, at int }

// curveKey returns the cursorKey of the view now.
func (s *shared) curveKey() cursorKey {
	lo, hi := 0, 0
	if s.zoom.on {
		lo, hi = s.viewSpan()
	}
	at := -1
	if s.cursorOn() {
		at = s.step
	}
	return cursorKey{lo, hi, at}
}

// inView keeps the points of a series (xs steps) inside the range shown.
func (s *shared) inView(xs []float64, yss ...[]float64) ([]float64, [][]float64) {
	lo, hi := s.viewSpan()
	var kx []float64
	kys := make([][]float64, len(yss))
	for i, x := range xs {
		if x < float64(lo) || x > float64(hi) {
			continue
		}
		kx = append(kx, x)
		for k, ys := range yss {
			kys[k] = append(kys[k], ys[i])
		}
	}
	return kx, kys
}

// valueAt is the value of the newest point of a series at or before step (xs ascending),
// and its step; false when none is.
func valueAt(xs, ys []float64, step int) (float64, int, bool) {
	k := -1
	for i, x := range xs {
		if x > float64(step) {
			break
		}
		k = i
	}
	if k < 0 || k >= len(ys) {
		return math.NaN(), 0, false
	}
	return ys[k], int(xs[k]), true
}

// zoomKey marks one end of the zoom at the current step (z): the first press waits for the
// other end, the second zooms to the range between them. It returns the status line.
func (s *shared) zoomKey() string {
	z := &s.zoom
	if !z.marked {
		z.marked, z.mark = true, s.step
		return fmt.Sprintf("zoom: from step %d; move the cursor and press z at the other end (Z: whole run)", s.step)
	}
	z.marked = false
	lo, hi := min(z.mark, s.step), max(z.mark, s.step)
	if hi-lo < minZoomSpan {
		return s.zoomAround(s.step, 0.5)
	}
	s.setZoom(lo, hi)
	return fmt.Sprintf("zoom: steps %d–%d (Z: whole run)", lo, hi)
}

// zoomAround scales the range shown by f about step (f < 1 zooms in): the mouse wheel,
// and z pressed twice at one step. A range covering the whole span ends the zoom.
func (s *shared) zoomAround(step int, f float64) string {
	lo, hi := s.viewSpan()
	span := max(int(math.Round(float64(hi-lo)*f)), minZoomSpan)
	if span >= s.last-s.first {
		s.zoom = stepZoom{}
		return "zoom: whole run"
	}
	step = min(max(step, lo), hi)
	// The step keeps its place in the range: its share of it left of it before and after.
	share := 0.5
	if hi > lo {
		share = float64(step-lo) / float64(hi-lo)
	}
	nlo := step - int(math.Round(share*float64(span)))
	nlo = min(max(nlo, s.first), s.last-span)
	s.setZoom(nlo, nlo+span)
	return fmt.Sprintf("zoom: steps %d–%d (Z: whole run)", nlo, nlo+span)
}

// setZoom shows steps lo–hi (tail when hi is the newest step).
func (s *shared) setZoom(lo, hi int) {
	s.zoom = stepZoom{on: true, lo: lo, hi: hi, tail: hi >= s.last && !s.replay && !s.ended}
}

// zoomReset shows the whole run again (Z).
func (s *shared) zoomReset() string {
	s.zoom = stepZoom{}
	return "zoom: whole run"
}

// zoomText names the zoom for the scrubber line ("" when off).
func (s *shared) zoomText() string {
	if !s.zoom.on {
		return ""
	}
	lo, hi := s.viewSpan()
	return fmt.Sprintf("zoom %d–%d", lo, hi)
}

// mouseDrag is a press of the left button on the scrubber bar: the step and column it
// started at, while the button is down.
type mouseDrag struct {
	on      bool
	from, x int
}

// mouse handles the mouse where the terminal reports it (tea.WithMouseCellMotion): the
// wheel zooms the charts over steps in (up) and out (down) about the current step; on the
// scrubber bar a click moves to the step under it, and a drag scrubs and, let go two columns or more away, zooms to
// the steps dragged over. It reports whether the message changed anything.
func (m *Model) mouse(msg tea.MouseMsg) bool {
	sh := m.sh
	if m.showHelp || m.quit.open || !sh.any || m.mode() == modeSmall {
		m.drag = mouseDrag{}
		return false
	}
	if msg.Action == tea.MouseActionPress {
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			m.status = sh.zoomAround(sh.step, 0.5)
			return true
		case tea.MouseButtonWheelDown:
			m.status = sh.zoomAround(sh.step, 2)
			return true
		}
	}
	step, onBar := m.scrub.stepAt(msg.X, m.width)
	switch {
	case msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft:
		if !onBar || msg.Y != m.height-footerH-1 {
			return false
		}
		m.drag = mouseDrag{on: true, from: step, x: msg.X}
		m.scrub.moveTo(step)
	case msg.Action == tea.MouseActionMotion && m.drag.on:
		if !onBar {
			return false
		}
		m.scrub.moveTo(step)
	case msg.Action == tea.MouseActionRelease && m.drag.on:
		d := m.drag
		m.drag = mouseDrag{}
		if !onBar || abs(msg.X-d.x) < 2 {
			return true
		}
		lo, hi := min(d.from, step), max(d.from, step)
		if hi-lo < minZoomSpan {
			return true
		}
		sh.setZoom(lo, hi)
		m.scrub.moveTo(step)
		m.status = fmt.Sprintf("zoom: steps %d–%d (Z: whole run)", lo, hi)
	default:
		return false
	}
	return true
}

// abs is |v|.
func abs(v int) int { return max(v, -v) }
