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

// framePane is the frame-precision dissociation at the current snapshot: over the steps of
// the snapshots so far, the frame (the authors' J-lens ratio where it was recorded, and the
// attention pattern's distance to this snapshot's, mean over layers or per layer) and the
// precision (bit error on its log2 scale, 1 − |ρ(PC1, entropy)|), each scaled min–max to
// [0, 1] on one time axis, and when each settled (as the lab recorded it in Frame.Settle).
type framePane struct {
	paneBase
	perLayer bool
}

// newFramePane returns the pane reading sh.
func newFramePane(sh *shared) *framePane {
	return &framePane{paneBase: newPaneBase(sh, "Frame-precision", "Frame")}
}

// clone copies the pane onto sh.
func (p *framePane) clone(sh *shared) pane { return cloneOn(p, sh) }

// Update switches between the mean frame line and one per layer (anywhere: the key is the
// pane's alone).
func (p *framePane) Update(msg tea.KeyMsg, _ bool) (bool, tea.Cmd) {
	if key.Matches(msg, p.sh.keys.PerLayer) {
		p.perLayer = !p.perLayer
		return true, nil
	}
	return false, nil
}

// Help lists the pane's keys.
func (p *framePane) Help() []key.Binding { return []key.Binding{p.sh.keys.PerLayer} }

// View renders the curves (cached until the snapshot, the size or the toggle changes).
func (p *framePane) View() string {
	opt := 0
	if p.perLayer {
		opt = 1
	}
	return p.cache.get(p.sh, snapKey{w: p.w, h: p.h, snapGen: p.sh.geoGen, opt: opt}, p.draw)
}

// layerGlyphs mark the per-layer frame lines.
const layerGlyphs = "0123456789abcdefghijklmnopqrstuvwxyz"

// minMax scales the finite values of vs to [0, 1] (all 0 when they are equal); NaN stays.
func minMax(vs []float64) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	out := make([]float64, len(vs))
	for i, v := range vs {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			out[i] = math.NaN()
		case hi > lo:
			out[i] = (v - lo) / (hi - lo)
		default:
			out[i] = 0
		}
	}
	return out
}

// frameSeries are the pane's curves at the current snapshot.
type frameSeries struct {
	steps    []int
	frame    []float64   // mean over layers of ToLatest
	layers   [][]float64 // ToLatest per layer
	bitError []float64   // on derived.PrecisionScale (log2)
	rho      []float64   // 1 − |ρ(PC1, entropy)|
	hasRho   bool
	jlens    []float64 // the J-lens ratio, mean over sites, against the latest frame (derived.FrameJLens)
	hasJLens bool
	drift    float64 // the latest mean drift
}

// readFrame collects the curves from the snapshot's frame history.
func readFrame(f *sessions.Frame) frameSeries {
	var s frameSeries
	nl := 0
	for _, pt := range f.Points {
		nl = max(nl, len(pt.ToLatest))
	}
	s.layers = make([][]float64, nl)
	s.drift = math.NaN()
	for _, pt := range f.Points {
		s.steps = append(s.steps, pt.Step)
		tl := make([]float64, len(pt.ToLatest))
		for l := range nl {
			v := math.NaN()
			if l < len(pt.ToLatest) {
				v = float64(pt.ToLatest[l])
				tl[l] = v
			}
			s.layers[l] = append(s.layers[l], v)
		}
		s.frame = append(s.frame, mean(tl))
		b := pt.BitErrorSample
		if b == 0 { // sessions written before (b) was kept in the history
			b = pt.BitError
		}
		s.bitError = append(s.bitError, derived.PrecisionScale(b))
		r := math.NaN()
		if a := float64(pt.PC1Abs); !math.IsNaN(a) {
			r, s.hasRho = 1-a, true
		}
		s.rho = append(s.rho, r)
		d := make([]float64, len(pt.Drift))
		for i, v := range pt.Drift {
			d[i] = float64(v)
		}
		s.drift = mean(d)
	}
	s.jlens, s.hasJLens = derived.FrameJLens(f.Points)
	return s
}

// draw renders the view.
func (p *framePane) draw() string {
	st, sh := p.sh.st, p.sh
	w, h := p.w, p.h
	switch {
	case sh.geo == nil && !sh.hasAttention():
		return look.Fit(st.Dim.Render("no attention in this model: no frame to track"), w, h)
	case sh.geo == nil:
		return look.Fit(st.Dim.Render(noGeometry), w, h)
	case sh.geo.Frame == nil && !sh.hasAttention():
		return look.Fit(st.Dim.Render("no attention in this model: no frame to track"), w, h)
	case sh.geo.Frame == nil:
		return look.Fit(st.Dim.Render("no frame history in this snapshot"), w, h)
	}
	s := readFrame(sh.geo.Frame)
	if len(s.steps) < 2 {
		return look.Fit(st.Dim.Render(fmt.Sprintf("frame-precision @%d: one snapshot so far, nothing to compare yet", sh.geoAt)), w, h)
	}
	title := fmt.Sprintf("frame vs precision @%d · %d snapshots · latest drift %s", sh.geoAt, len(s.steps), look.Num(s.drift, 4))
	title = look.FitParts(appendFits(title, " · each scaled min–max to [0,1]", w), " · ", w)
	frame := st.SeriesKL.Render("●") + fmt.Sprintf(" attention distance to @%d, mean of %d layers", sh.geoAt, len(s.layers))
	if p.perLayer {
		frame = fmt.Sprintf("0–%d attention distance of each layer (to @%d)", len(s.layers)-1, sh.geoAt)
	}
	parts := []string{}
	if s.hasJLens {
		parts = append(parts, st.Good.Render("◆")+fmt.Sprintf(" frame: J-lens ratio, authors' (now %s× null)", look.Num(s.jlens[len(s.jlens)-1], 2)))
	}
	parts = append(parts, frame, st.SeriesA.Render("•")+" log2 bit error (b)")
	if s.hasRho {
		parts = append(parts, st.SeriesB.Render("∘")+" 1−|ρ(PC1,H)|")
	}
	legend := look.FlowParts(parts, "  ", w)

	xs := make([]float64, len(s.steps))
	for i, v := range s.steps {
		xs[i] = float64(v)
	}
	var ss []look.Series
	if s.hasRho {
		ss = append(ss, look.Series{Glyph: '∘', Style: st.SeriesB, X: xs, Y: minMax(s.rho)})
	}
	ss = append(ss, look.Series{Glyph: '•', Style: st.SeriesA, X: xs, Y: minMax(s.bitError)})
	if p.perLayer {
		for l, ys := range s.layers {
			g := rune(layerGlyphs[l%len(layerGlyphs)])
			ss = append(ss, look.Series{Glyph: g, Style: st.Lines[l%len(st.Lines)], X: xs, Y: minMax(ys)})
		}
	} else {
		ss = append(ss, look.Series{Glyph: '●', Style: st.SeriesKL, X: xs, Y: minMax(s.frame)})
	}
	if s.hasJLens {
		ss = append(ss, look.Series{Glyph: '◆', Style: st.Good, X: xs, Y: minMax(s.jlens)})
	}

	verdict := look.Wrap(p.verdict(), w)
	lines := append([]string{title}, legend...)
	if ch := h - len(lines) - len(verdict); ch >= 5 {
		xr := look.Span{Lo: xs[0], Hi: xs[len(xs)-1]}
		lines = append(lines, look.Chart{XR: xr, YR: look.Span{Lo: 0, Hi: 1}, Series: ss, XInt: true,
			XTitle: "step", YTitle: "scaled to [0, 1]"}.Draw(w, ch))
	}
	lines = append(lines, verdict...)
	return look.Fit(strings.Join(lines, "\n"), w, h)
}

// verdict states the pre-registered dissociation rule (derived.HistoryDissociation) on the
// history up to this snapshot, against its frame and bit error (the final ones once the run
// has ended), e.g. "rule: θ 1.51; formed @750, plateau @2250; bit error (b) there 23× and
// 3.1× its @3000 value → holds"; a history without the authors' J-lens says so.
func (p *framePane) verdict() string {
	geo := p.sh.geo
	if !geo.JLens.Current() || !(float64(geo.JLens.Null) > 0) {
		return "dissociation rule: no J-lens of the authors' statistic in this snapshot (probe FILE re-measures it)"
	}
	d, ok := derived.HistoryDissociation(geo.Frame.Points, 1/float64(geo.JLens.Null))
	if !ok {
		return "dissociation rule: no J-lens ratio in the history yet"
	}
	v := fmt.Sprintf("rule: θ %.2f; ", d.Threshold)
	if d.FormStep < 0 {
		return v + fmt.Sprintf("not formed (ratio %s at @%d)", look.Num(d.FinalRatio, 2), p.sh.geoAt)
	}
	v += fmt.Sprintf("formed @%d, plateau @%d; bit error (b) there %.3g× and %.3g× its @%d value", d.FormStep, d.PlateauStep,
		d.BitErrorForm/d.BitErrorFinal, d.BitErrorPlateau/d.BitErrorFinal, p.sh.geoAt)
	if d.Holds {
		return v + fmt.Sprintf(" → holds (≥ %d× and ≥ %d×)", derived.FormFactor, derived.PlateauFactor)
	}
	return v + fmt.Sprintf(" → fails (want ≥ %d× and ≥ %d×)", derived.FormFactor, derived.PlateauFactor)
}
