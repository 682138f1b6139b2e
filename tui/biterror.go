package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
)

// logFloor is the smallest value plotted on the log scale (bits).
const logFloor = 1e-4

// bitErrorPane plots bit error (a), (b) and KL over steps, and the model's per-position
// entropy against the Bayes curve at the current step.
type bitErrorPane struct {
	paneBase
	log bool
}

// newBitErrorPane returns the pane reading sh.
func newBitErrorPane(sh *shared) *bitErrorPane {
	return &bitErrorPane{paneBase: newPaneBase(sh, "Bit error", "Bit error")}
}

// clone copies the pane onto sh.
func (p *bitErrorPane) clone(sh *shared) pane { return cloneOn(p, sh) }

// Update toggles the log scale (whether focused or not: the key is the pane's alone).
func (p *bitErrorPane) Update(msg tea.KeyMsg, _ bool) (bool, tea.Cmd) {
	if key.Matches(msg, p.sh.keys.LogScale) {
		p.log = !p.log
		return true, nil
	}
	return false, nil
}

// bitErrorKey is what the charts depend on: the size, the scale and the evaluations (the
// x axis ends at the newest evaluation, so new records without one change nothing).
type bitErrorKey struct {
	w, h  int
	log   bool
	evals evalKey
	first int
}

// View returns the charts, redrawn only when an input changed.
func (p *bitErrorPane) View() string {
	return p.cache.get(p.sh, bitErrorKey{p.w, p.h, p.log, p.sh.evalKey, p.sh.first}, p.draw)
}

// Help lists the pane's keys.
func (p *bitErrorPane) Help() []key.Binding { return []key.Binding{p.sh.keys.LogScale} }

// draw renders both charts side by side when wide enough, else stacked, over the
// length-generalisation line of an hmm run when there is room for both.
func (p *bitErrorPane) draw() string {
	w, h := p.w, p.h
	if w <= 0 || h <= 0 {
		return ""
	}
	if len(p.sh.evals) == 0 {
		return fit(p.sh.st.dim.Render("no evaluations yet"), w, h)
	}
	if ls := p.lengthLines(w); len(ls) > 0 && h-len(ls) >= minChartsH {
		n := len(ls)
		return vcat(p.charts(w, h-n), fit(strings.Join(ls, "\n"), w, n))
	}
	return p.charts(w, h)
}

// minChartsH is the least height the charts keep when the length line takes rows.
const minChartsH = 6

// charts renders both charts in w×h: side by side when wide enough, else stacked.
func (p *bitErrorPane) charts(w, h int) string {
	if w >= 60 {
		lw := w * 3 / 5
		rw := w - lw - 1
		return hcat(p.stepsChart(lw, h), fit("", 1, h), p.entropyChart(rw, h))
	}
	th := h / 2
	return vcat(p.stepsChart(w, th), p.entropyChart(w, h-th))
}

// stepsChart draws the bit error and KL curves over steps in w×h cells.
func (p *bitErrorPane) stepsChart(w, h int) string {
	st, sh := p.sh.st, p.sh
	last := sh.lastEval().Eval
	scale := "linear"
	if p.log {
		scale = "log"
	}
	head := fmt.Sprintf("bits over steps · %s (l)", scale)
	legend := strings.Join([]string{
		st.seriesA.Render("•") + " (a) " + fnum(last.BitErrorPosition, 3),
		st.seriesB.Render("∘") + " (b) " + fnum(last.BitErrorSample, 3),
		st.seriesKL.Render("×") + " KL " + fnum(last.KLBits, 3),
	}, "  ")
	if h < 5 {
		return fit(head+"\n"+legend, w, h)
	}
	idx := sessions.Thin(len(sh.evals), max(w-6, 2))
	xs := make([]float64, len(idx))
	a, b, kl := make([]float64, len(idx)), make([]float64, len(idx)), make([]float64, len(idx))
	for j, i := range idx {
		r := sh.evals[i]
		xs[j] = float64(r.Step)
		a[j], b[j], kl[j] = r.Eval.BitErrorPosition, r.Eval.BitErrorSample, r.Eval.KLBits
	}
	yr, yfmt := linearRange(a, b, kl), valueLabels
	if p.log {
		for _, s := range [][]float64{a, b, kl} {
			for i, v := range s {
				s[i] = math.Log10(math.Max(v, logFloor))
			}
		}
		yr, yfmt = logRange(a, b, kl), powLabels
	}
	xr := span{float64(sh.first), float64(max(sh.lastEval().Step, sh.first+1))}
	chart := lineChart(w, h-2, xr, yr, []series{
		{glyph: '×', style: st.seriesKL, x: xs, y: kl},
		{glyph: '∘', style: st.seriesB, x: xs, y: b},
		{glyph: '•', style: st.seriesA, x: xs, y: a},
	}, intLabels, yfmt)
	return fit(head+"\n"+legend+"\n"+chart, w, h)
}

// entropyChart draws the model's per-position entropy against the Bayes curve.
func (p *bitErrorPane) entropyChart(w, h int) string {
	st := p.sh.st
	r := p.sh.lastEval()
	e := r.Eval
	head := fmt.Sprintf("entropy by position @%d", r.Step)
	if len(e.ModelEntropy) == 0 || len(e.BayesEntropy) == 0 {
		return fit(head+"\n"+st.dim.Render("no per-position curves"), w, h)
	}
	legend := st.model.Render("●") + " model " + fnum(mean(e.ModelEntropy), 2) + "  " +
		st.bayes.Render("·") + " Bayes " + fnum(mean(e.BayesEntropy), 2) + " bits"
	if h < 5 {
		return fit(head+"\n"+legend, w, h)
	}
	pos := func(n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(i + 1)
		}
		return xs
	}
	n := max(len(e.ModelEntropy), len(e.BayesEntropy))
	yr := linearRange(e.ModelEntropy, e.BayesEntropy)
	chart := lineChart(w, h-2, span{1, float64(n)}, yr, []series{
		{glyph: '·', style: st.bayes, x: pos(len(e.BayesEntropy)), y: e.BayesEntropy},
		{glyph: '●', style: st.model, x: pos(len(e.ModelEntropy)), y: e.ModelEntropy},
	}, intLabels, valueLabels)
	return fit(head+"\n"+legend+"\n"+chart, w, h)
}

// lengthLines is the length-generalisation summary of the newest evaluation that scored
// several lengths (an hmm run scores them at every evaluation but the one taken when the
// operator switches every head back on), wrapped
// to w cells: "length generalisation (trained K=20): K=20 (a) 0.080 (b) 0.130 KL 0.073 ·
// K=30 …", with "@step" when it is older than the newest evaluation; nil when none did.
func (p *bitErrorPane) lengthLines(w int) []string {
	sh, st := p.sh, p.sh.st
	var r *sessions.Record
	for i := len(sh.evals) - 1; i >= 0; i-- {
		if len(sh.evals[i].Eval.Lengths) > 0 {
			r = &sh.evals[i]
			break
		}
	}
	if r == nil {
		return nil
	}
	title := "length generalisation"
	for _, l := range r.Eval.Lengths {
		if l.Train {
			title += fmt.Sprintf(" (trained K=%d)", l.K)
		}
	}
	if r.Step != sh.lastEval().Step {
		title += fmt.Sprintf(" @%d", r.Step)
	}
	parts := []string{st.dim.Render(title + ":")}
	for _, l := range r.Eval.Lengths {
		parts = append(parts, st.title.Render(fmt.Sprintf("K=%d", l.K))+
			" (a) "+fnum(float64(l.BitErrorPosition), 3)+
			" (b) "+fnum(float64(l.BitErrorSample), 3)+
			" KL "+fnum(float64(l.KLBits), 3))
	}
	return wrapParts(parts, w, " · ")
}

// wrapParts lays parts out in lines of at most w cells (a part wider than w gets a line of
// its own, cut when drawn): the first two are joined by a space, the rest by sep, and a
// continuation line starts with sep without its leading space.
func wrapParts(parts []string, w int, sep string) []string {
	var lines []string
	cur := ""
	for i, part := range parts {
		join := sep
		if i == 1 {
			join = " "
		}
		switch {
		case i == 0:
			cur = part
		case ansi.StringWidth(cur)+ansi.StringWidth(join)+ansi.StringWidth(part) <= w:
			cur += join + part
		default:
			lines = append(lines, cur)
			cur = strings.TrimLeft(join, " ") + part
		}
	}
	return append(lines, cur)
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

// mean is the average of the finite values (NaN when there are none).
func mean(xs []float64) float64 {
	s, n := 0.0, 0
	for _, v := range xs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			s += v
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}
