package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tui/look"
)

// The belief simplex (Paper I's Mamba figure) is the value-manifold pane's second view on hmm
// runs (key b): PC1 against PC2 of the final layer's states at the observation positions, each
// point drawn as its exact posterior's argmax state (0–9, then a–j), under a table of the
// numbers that turn the picture into a measurement — k-means purity against the state and
// against the observed symbol, R² of the linear map to the posterior, the mean corner
// distance — for the trained model and, beside it, the same model untrained (the null), and
// the claim's rule with its outcome (derived.SimplexMeets).

// stateGlyphs name the hidden states in the simplex scatter: a state's index in one cell.
const stateGlyphs = "0123456789abcdefghij"

// stateGlyph is the glyph of state s ('?' past the table).
func stateGlyph(s int) rune {
	if s < 0 || s >= len(stateGlyphs) {
		return '?'
	}
	return rune(stateGlyphs[s])
}

// drawSimplex renders the simplex view of sx (the snapshot's), null the untrained model's
// measurement (nil: not recorded) and opt the exact posterior's (nil: not known).
func (p *manifoldPane) drawSimplex(sx, null, opt *sessions.Simplex) string {
	st, sh := p.sh.st, p.sh
	w, h := p.w, p.h
	title := fmt.Sprintf("belief simplex @%d · final layer at the observations · %d points", sh.geoAt, sx.N)
	title = look.FitParts(appendFits(title, fmt.Sprintf(" · %d drawn", len(sx.Points)), w), " · ", w)
	lines := []string{title}
	lines = append(lines, simplexTable(st, sx, null, opt, w)...)
	legend := simplexLegend(st, sx.States, w)
	if ch := h - len(lines) - len(legend); ch >= 5 && len(sx.Points) > 0 {
		lines = append(lines, p.simplexScatter(sx, w, ch))
	}
	lines = append(lines, legend...)
	return look.Fit(strings.Join(lines, "\n"), w, h)
}

// simplexTable is a header, the trained, untrained and exact-posterior rows and the claim's
// line (drawn from the exact posterior's corner distance when it is known).
func simplexTable(st look.Styles, sx, null, opt *sessions.Simplex, w int) []string {
	const labelW = 10
	num := func(v sessions.Num) string { return look.Num(float64(v), 2) }
	row := func(label string, s *sessions.Simplex) string {
		out := look.PadLine(label, labelW)
		if s == nil {
			return out + st.Dim.Render("not recorded in this session")
		}
		sym := "–"
		if s.SymbolPurity > 0 {
			sym = num(s.SymbolPurity)
		}
		return out + fmt.Sprintf("%7s %7s %7s %7s", num(s.Purity), sym, num(s.R2), num(s.MeanCornerDist))
	}
	head := look.PadLine("", labelW) + st.Title.Render(" purity  symbol      R²  corner")
	k := sx.States
	optimum := math.NaN()
	if opt != nil {
		optimum = float64(opt.MeanCornerDist)
	}
	outcome := st.Dim.Render("not met")
	if derived.SimplexMeets(float64(sx.Purity), float64(sx.MeanCornerDist), k, optimum) {
		outcome = st.Title.Render("met")
	}
	claim := "one cluster per state at the corners: " + outcome
	claim = appendFits(claim, fmt.Sprintf(" (purity ≥ %g, corner ≤ %.3f)", derived.SimplexPurity, derived.SimplexCornerLine(k, optimum)), w)
	lines := []string{head, row("trained", sx), row("untrained", null)}
	if opt != nil {
		lines = append(lines, row("posterior", opt))
	}
	return append(lines, claim)
}

// simplexLegend names the states' glyphs and colours, flowed to width w.
func simplexLegend(st look.Styles, states, w int) []string {
	parts := make([]string, 0, states)
	for s := range states {
		parts = append(parts, stateStyle(st, s).Render(string(stateGlyph(s))))
	}
	if len(parts) == 0 {
		return nil
	}
	parts[0] = "argmax state: " + parts[0]
	return look.FlowParts(parts, " ", w)
}

// stateStyle is the colour of state s: the multi-line charts' palette, cycled.
func stateStyle(st look.Styles, s int) lipgloss.Style {
	if len(st.Lines) == 0 {
		return st.Dim
	}
	return st.Lines[s%len(st.Lines)]
}

// simplexScatter draws PC1 against PC2 in w×h cells, axes included, one series a state.
func (p *manifoldPane) simplexScatter(sx *sessions.Simplex, w, h int) string {
	if w < 10 {
		return look.Fit("", w, h)
	}
	xr, yr := look.Span{Lo: math.Inf(1), Hi: math.Inf(-1)}, look.Span{Lo: math.Inf(1), Hi: math.Inf(-1)}
	finite := func(pt [2]float64) bool {
		return !math.IsNaN(pt[0]) && !math.IsNaN(pt[1]) && !math.IsInf(pt[0], 0) && !math.IsInf(pt[1], 0)
	}
	for _, pt := range sx.Points {
		if finite(pt) {
			xr = look.Span{Lo: math.Min(xr.Lo, pt[0]), Hi: math.Max(xr.Hi, pt[0])}
			yr = look.Span{Lo: math.Min(yr.Lo, pt[1]), Hi: math.Max(yr.Hi, pt[1])}
		}
	}
	if math.IsInf(xr.Lo, 0) {
		return look.Fit(p.sh.st.Dim.Render("no finite coordinates"), w, h)
	}
	var ss []look.Series
	for s := range sx.States {
		var xs, ys []float64
		for i, pt := range sx.Points {
			if finite(pt) && i < len(sx.Argmax) && sx.Argmax[i] == s {
				xs, ys = append(xs, pt[0]), append(ys, pt[1])
			}
		}
		ss = append(ss, look.Series{Glyph: stateGlyph(s), Style: stateStyle(p.sh.st, s), X: xs, Y: ys, Dots: true})
	}
	return look.Chart{XR: padSpan(xr), YR: padSpan(yr), Series: ss, XTitle: "PC1", YTitle: "PC2"}.Draw(w, h)
}
