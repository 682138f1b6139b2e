package tui

import (
	"fmt"
	"math"
	"strings"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// Glyphs of the bit-error charts where two curves fall on one cell, so neither hides.
const (
	bothAB    = '⊙' // bit error (a) • on (b) ∘
	bothModel = '◉' // the model's entropy ● on the Bayes curve ·
)

// charts renders both charts in w×h: side by side when wide enough (their titles and
// legends padded to the same height, so their axes line up), else stacked.
func (p *bitErrorPane) charts(w, h int) string {
	if w >= 60 {
		lw := w * 3 / 5
		rw := w - lw - 1
		lt, rt := p.stepsTop(lw), p.entropyTop(rw)
		n := max(len(lt), len(rt))
		return look.HCat(p.stepsChart(lw, h, lt, n), look.Fit("", 1, h), p.entropyChart(rw, h, rt, n))
	}
	th := h / 2
	lt, rt := p.stepsTop(w), p.entropyTop(w)
	return look.VCat(p.stepsChart(w, th, lt, len(lt)), p.entropyChart(w, h-th, rt, len(rt)))
}

// withTop is the chart drawn by draw under the top lines padded to n, in w×h cells; the
// top lines alone when fewer than 5 lines are left for the chart.
func withTop(top []string, n, w, h int, draw func(w, h int) string) string {
	head := look.Fit(strings.Join(top, "\n"), w, max(n, len(top)))
	if h-n < 5 {
		return look.Fit(head, w, h)
	}
	return head + "\n" + draw(w, h-n)
}

// stepsTop is the steps chart's title and legend, w cells wide.
func (p *bitErrorPane) stepsTop(w int) []string {
	st, sh := p.sh.st, p.sh
	last := sh.lastEval().Eval
	scale, key := "linear", p.sh.keys.LogY.Help().Key
	if p.log {
		scale = "log"
	}
	head := look.FirstFit(w, fmt.Sprintf("bit error over steps · %s Y (%s)", scale, key),
		fmt.Sprintf("bit error · %s (%s)", scale, key), "bit error")
	parts := []string{
		st.SeriesA.Render("•") + " (a) " + look.Num(last.BitErrorPosition, 3),
		st.SeriesB.Render("∘") + " (b) " + look.Num(last.BitErrorSample, 3),
		st.SeriesA.Render(string(bothAB)) + " both",
		st.SeriesKL.Render("×") + " KL " + look.Num(last.KLBits, 3),
	}
	if sh.cursorOn() { // the values are the newest evaluation's at or before the cursor
		parts = append(parts, st.Focus.Render(sh.atCursor(sh.lastEval().Step)))
	}
	legend := look.FlowParts(parts, "  ", w)
	refs := bitRefs(sh, p.log)
	if look.RefMargin(w, refs) == 0 {
		var names []string
		for _, r := range refs {
			names = append(names, r.Label+" "+r.Tick)
		}
		names[0] = string(look.RefGlyph) + " " + names[0]
		legend = append(legend, look.FlowParts(names, " · ", w)...)
	}
	return append([]string{head}, legend...)
}

// stepsChart draws, under its top lines (padded to n), the bit error and KL curves over
// steps in w×h cells, with the reference lines: Bayes at 0, the pass threshold and, where
// known, the context-free level.
func (p *bitErrorPane) stepsChart(w, h int, top []string, n int) string {
	return withTop(top, n, w, h, p.drawSteps)
}

// drawSteps draws the steps chart alone in w×h cells: the evaluations of the steps shown
// (the whole run or the zoom), with the cursor while scrubbing.
func (p *bitErrorPane) drawSteps(w, h int) string {
	st, sh := p.sh.st, p.sh
	refs := bitRefs(sh, p.log)
	lo, hi := sh.viewSpan()
	var shown []sessions.Record
	for _, r := range sh.evalsAll {
		if r.Step >= lo && r.Step <= hi {
			shown = append(shown, r)
		}
	}
	idx := sessions.Thin(len(shown), max(w-6, 2))
	xs := make([]float64, len(idx))
	a, b, kl := make([]float64, len(idx)), make([]float64, len(idx)), make([]float64, len(idx))
	for j, i := range idx {
		r := shown[i]
		xs[j] = float64(r.Step)
		a[j], b[j], kl[j] = r.Eval.BitErrorPosition, r.Eval.BitErrorSample, r.Eval.KLBits
	}
	levels := make([]float64, len(refs))
	for i, r := range refs {
		levels[i] = r.Y
	}
	yr, ytitle := look.LinearRange(a, b, kl, levels), "bits"
	if p.log {
		for _, s := range [][]float64{a, b, kl} {
			for i, v := range s {
				s[i] = math.Log10(math.Max(v, look.LogFloor))
			}
		}
		yr, ytitle = look.LogRange(a, b, kl, levels), "bits (log)"
	}
	xr := sh.stepAxis(sh.evalsAll[len(sh.evalsAll)-1].Step) // the whole run: to its newest evaluation
	return look.Chart{XR: xr, YR: yr, XInt: true, YLog: p.log, XTitle: "step", YTitle: ytitle,
		Refs: refs, RefStyle: st.Dim, Cursor: sh.stepCursor(),
		Series: []look.Series{
			{Glyph: '×', Style: st.SeriesKL, X: xs, Y: kl},
			{Glyph: '∘', Style: st.SeriesB, X: xs, Y: b},
			{Glyph: '•', Style: st.SeriesA, X: xs, Y: a},
		},
		Overlaps: []look.Overlap{{A: 1, B: 2, Glyph: bothAB, Style: st.SeriesA}},
	}.Draw(w, h)
}

// entropyTop is the entropy chart's title and legend, w cells wide.
func (p *bitErrorPane) entropyTop(w int) []string {
	st := p.sh.st
	r := p.sh.lastEval()
	e := r.Eval
	head := look.FirstFit(w, fmt.Sprintf("entropy by position @%d", r.Step), fmt.Sprintf("entropy @%d", r.Step))
	if len(e.ModelEntropy) == 0 || len(e.BayesEntropy) == 0 {
		return []string{head, st.Dim.Render("no per-position curves")}
	}
	return append([]string{head}, look.FlowParts([]string{
		st.Model.Render("●") + " model " + look.Num(mean(e.ModelEntropy), 2),
		st.Bayes.Render("·") + " Bayes " + look.Num(mean(e.BayesEntropy), 2),
		st.Model.Render(string(bothModel)) + " both",
	}, "  ", w)...)
}

// entropyChart draws, under its top lines (padded to n), the model's per-position entropy
// against the Bayes curve in w×h cells.
func (p *bitErrorPane) entropyChart(w, h int, top []string, n int) string {
	e := p.sh.lastEval().Eval
	if len(e.ModelEntropy) == 0 || len(e.BayesEntropy) == 0 {
		return look.Fit(strings.Join(top, "\n"), w, h)
	}
	return withTop(top, n, w, h, p.drawEntropy)
}

// drawEntropy draws the entropy chart alone in w×h cells.
func (p *bitErrorPane) drawEntropy(w, h int) string {
	st := p.sh.st
	e := p.sh.lastEval().Eval
	pos := func(n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(i + 1)
		}
		return xs
	}
	n := max(len(e.ModelEntropy), len(e.BayesEntropy))
	return look.Chart{XR: look.Span{Lo: 1, Hi: float64(n)}, YR: look.LinearRange(e.ModelEntropy, e.BayesEntropy),
		XInt: true, XTitle: "position", YTitle: "bits",
		Series: []look.Series{
			{Glyph: '·', Style: st.Bayes, X: pos(len(e.BayesEntropy)), Y: e.BayesEntropy},
			{Glyph: '●', Style: st.Model, X: pos(len(e.ModelEntropy)), Y: e.ModelEntropy},
		},
		Overlaps: []look.Overlap{{A: 0, B: 1, Glyph: bothModel, Style: st.Model}},
	}.Draw(w, h)
}
