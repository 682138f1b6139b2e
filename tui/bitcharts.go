package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
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
		return hcat(p.stepsChart(lw, h, lt, n), fit("", 1, h), p.entropyChart(rw, h, rt, n))
	}
	th := h / 2
	lt, rt := p.stepsTop(w), p.entropyTop(w)
	return vcat(p.stepsChart(w, th, lt, len(lt)), p.entropyChart(w, h-th, rt, len(rt)))
}

// withTop is the chart drawn by draw under the top lines padded to n, in w×h cells; the
// top lines alone when fewer than 5 lines are left for the chart.
func withTop(top []string, n, w, h int, draw func(w, h int) string) string {
	head := fit(strings.Join(top, "\n"), w, max(n, len(top)))
	if h-n < 5 {
		return fit(head, w, h)
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
	head := pickFits(w, fmt.Sprintf("bit error over steps · %s Y (%s)", scale, key),
		fmt.Sprintf("bit error · %s (%s)", scale, key), "bit error")
	legend := flowParts([]string{
		st.seriesA.Render("•") + " (a) " + fnum(last.BitErrorPosition, 3),
		st.seriesB.Render("∘") + " (b) " + fnum(last.BitErrorSample, 3),
		st.seriesA.Render(string(bothAB)) + " both",
		st.seriesKL.Render("×") + " KL " + fnum(last.KLBits, 3),
	}, "  ", w)
	refs := bitRefs(sh, p.log)
	if refMargin(w, refs) == 0 {
		var names []string
		for _, r := range refs {
			names = append(names, r.label+" "+r.tick)
		}
		names[0] = string(refGlyph) + " " + names[0]
		legend = append(legend, flowParts(names, " · ", w)...)
	}
	return append([]string{head}, legend...)
}

// stepsChart draws, under its top lines (padded to n), the bit error and KL curves over
// steps in w×h cells, with the reference lines: Bayes at 0, the pass threshold and, where
// known, the context-free level.
func (p *bitErrorPane) stepsChart(w, h int, top []string, n int) string {
	return withTop(top, n, w, h, p.drawSteps)
}

// drawSteps draws the steps chart alone in w×h cells.
func (p *bitErrorPane) drawSteps(w, h int) string {
	st, sh := p.sh.st, p.sh
	refs := bitRefs(sh, p.log)
	idx := sessions.Thin(len(sh.evals), max(w-6, 2))
	xs := make([]float64, len(idx))
	a, b, kl := make([]float64, len(idx)), make([]float64, len(idx)), make([]float64, len(idx))
	for j, i := range idx {
		r := sh.evals[i]
		xs[j] = float64(r.Step)
		a[j], b[j], kl[j] = r.Eval.BitErrorPosition, r.Eval.BitErrorSample, r.Eval.KLBits
	}
	levels := make([]float64, len(refs))
	for i, r := range refs {
		levels[i] = r.y
	}
	yr, yfmt, ytitle := linearRange(a, b, kl, levels), valueLabels, "bits"
	if p.log {
		for _, s := range [][]float64{a, b, kl} {
			for i, v := range s {
				s[i] = math.Log10(math.Max(v, logFloor))
			}
		}
		yr, yfmt, ytitle = logRange(a, b, kl, levels), powLabels, "bits (log)"
	}
	xr := span{float64(sh.first), float64(max(sh.lastEval().Step, sh.first+1))}
	return chartSpec{xr: xr, yr: yr, xfmt: intLabels, yfmt: yfmt, xTitle: "step", yTitle: ytitle,
		refs: refs, refStyle: st.dim,
		series: []series{
			{glyph: '×', style: st.seriesKL, x: xs, y: kl},
			{glyph: '∘', style: st.seriesB, x: xs, y: b},
			{glyph: '•', style: st.seriesA, x: xs, y: a},
		},
		overlaps: []overlap{{a: 1, b: 2, glyph: bothAB, style: st.seriesA}},
	}.draw(w, h)
}

// entropyTop is the entropy chart's title and legend, w cells wide.
func (p *bitErrorPane) entropyTop(w int) []string {
	st := p.sh.st
	r := p.sh.lastEval()
	e := r.Eval
	head := pickFits(w, fmt.Sprintf("entropy by position @%d", r.Step), fmt.Sprintf("entropy @%d", r.Step))
	if len(e.ModelEntropy) == 0 || len(e.BayesEntropy) == 0 {
		return []string{head, st.dim.Render("no per-position curves")}
	}
	return append([]string{head}, flowParts([]string{
		st.model.Render("●") + " model " + fnum(mean(e.ModelEntropy), 2),
		st.bayes.Render("·") + " Bayes " + fnum(mean(e.BayesEntropy), 2),
		st.model.Render(string(bothModel)) + " both",
	}, "  ", w)...)
}

// entropyChart draws, under its top lines (padded to n), the model's per-position entropy
// against the Bayes curve in w×h cells.
func (p *bitErrorPane) entropyChart(w, h int, top []string, n int) string {
	e := p.sh.lastEval().Eval
	if len(e.ModelEntropy) == 0 || len(e.BayesEntropy) == 0 {
		return fit(strings.Join(top, "\n"), w, h)
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
	return chartSpec{xr: span{1, float64(n)}, yr: linearRange(e.ModelEntropy, e.BayesEntropy),
		xfmt: intLabels, yfmt: valueLabels, xTitle: "position", yTitle: "bits",
		series: []series{
			{glyph: '·', style: st.bayes, x: pos(len(e.BayesEntropy)), y: e.BayesEntropy},
			{glyph: '●', style: st.model, x: pos(len(e.ModelEntropy)), y: e.ModelEntropy},
		},
		overlaps: []overlap{{a: 0, b: 1, glyph: bothModel, style: st.model}},
	}.draw(w, h)
}

// flowParts lays parts out joined by sep in lines of at most w cells, breaking only between
// parts (a part wider than w gets a line of its own).
func flowParts(parts []string, sep string, w int) []string {
	var lines []string
	cur := ""
	for _, part := range parts {
		switch {
		case cur == "":
			cur = part
		case ansi.StringWidth(cur)+ansi.StringWidth(sep)+ansi.StringWidth(part) <= w:
			cur += sep + part
		default:
			lines = append(lines, cur)
			cur = part
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// linearRange is [0, 1.1·max] over the finite values.
func linearRange(ss ...[]float64) span {
	hi := 0.0
	for _, s := range ss {
		for _, v := range s {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				hi = math.Max(hi, v)
			}
		}
	}
	if hi <= 0 {
		hi = 1
	}
	return span{0, hi * 1.1}
}

// logRange spans the finite log10 values with a tenth of a decade to spare.
func logRange(ss ...[]float64) span {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, v := range s {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) {
		return span{-1, 0}
	}
	return span{lo - 0.1, math.Max(hi, lo+0.5) + 0.1}
}
