package tui

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// binGlyphs mark the posterior-entropy bins, lowest entropy (most certain) first, so the
// scatter reads without colour.
var binGlyphs = []rune{'●', '○', '∘', '·'}

// manifoldPane is the value manifold: a scatter of the probe positions' PC1 against PC2 (or
// PC3) of the final-norm residual over many sequences, each point's glyph and colour by its
// posterior-entropy bin, under a table of the two samplings of docs/usage.md: Geometry, each labelled:
// many sequences and one sequence's positions (the authors' figures), with |ρ(PC1, entropy)|
// (Spearman) first, the headline (the PC1 share depends on the sampling, |ρ| does not), then
// the PC1..PC3 shares and the signed correlations. Sessions recorded before the one-sequence
// sampling say so.
type manifoldPane struct {
	paneBase
	pc3     bool // y axis PC3 instead of PC2
	simplex bool // the belief-simplex view (simplex.go) where the snapshot has one
}

// newManifoldPane returns the pane reading sh.
func newManifoldPane(sh *shared) *manifoldPane {
	return &manifoldPane{paneBase: newPaneBase(sh, "Value manifold", "Manifold")}
}

// clone copies the pane onto sh.
func (p *manifoldPane) clone(sh *shared) pane { return cloneOn(p, sh) }

// Update switches the y axis between PC2 and PC3, and on an hmm run between the manifold
// and the belief simplex (anywhere: the keys are the pane's alone).
func (p *manifoldPane) Update(msg tea.KeyMsg, _ bool) (bool, tea.Cmd) {
	switch {
	case key.Matches(msg, p.sh.keys.Axis):
		p.pc3 = !p.pc3
		return true, nil
	case key.Matches(msg, p.sh.keys.Simplex) && p.hasSimplex():
		p.simplex = !p.simplex
		return true, nil
	}
	return false, nil
}

// hasSimplex reports whether the geometry snapshot shown carries a belief-simplex
// measurement (hmm runs).
func (p *manifoldPane) hasSimplex() bool { return p.sh.geo != nil && p.sh.geo.Simplex != nil }

// Help lists the pane's keys: the simplex's only where the snapshot has one.
func (p *manifoldPane) Help() []key.Binding {
	if p.hasSimplex() {
		return []key.Binding{p.sh.keys.Axis, p.sh.keys.Simplex}
	}
	return []key.Binding{p.sh.keys.Axis}
}

// View renders the scatter (cached until the snapshot, the size or the axis changes).
func (p *manifoldPane) View() string {
	opt := 0
	if p.pc3 {
		opt = 1
	}
	if p.simplex && p.hasSimplex() {
		opt = 2
	}
	return p.cache.get(p.sh, snapKey{w: p.w, h: p.h, snapGen: p.sh.geoGen, opt: opt}, p.draw)
}

// entropyBins returns three cut points splitting vs into four bins: the quartiles when
// they are distinct, else equal widths over the range; and which of the two it is.
func entropyBins(vs []float64) ([3]float64, string) {
	var finite []float64
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			finite = append(finite, v)
		}
	}
	if len(finite) == 0 {
		return [3]float64{1, 2, 3}, "equal width"
	}
	slices.Sort(finite)
	q := func(f float64) float64 { return finite[min(int(f*float64(len(finite))), len(finite)-1)] }
	lo, hi := finite[0], finite[len(finite)-1]
	cuts := [3]float64{q(0.25), q(0.5), q(0.75)}
	if lo < cuts[0] && cuts[0] < cuts[1] && cuts[1] < cuts[2] && cuts[2] <= hi {
		return cuts, "quartiles"
	}
	d := (hi - lo) / 4
	if d <= 0 {
		d = 1
	}
	return [3]float64{lo + d, lo + 2*d, lo + 3*d}, "equal width"
}

// appendFits appends extra to s when the result fits w cells.
func appendFits(s, extra string, w int) string {
	if ansi.StringWidth(s)+ansi.StringWidth(extra) <= w {
		return s + extra
	}
	return s
}

// binOf is the bin of v for the cut points.
func binOf(v float64, cuts [3]float64) int {
	for i, c := range cuts {
		if v < c {
			return i
		}
	}
	return 3
}

// draw renders the view.
func (p *manifoldPane) draw() string {
	st, sh := p.sh.st, p.sh
	w, h := p.w, p.h
	if sh.geo == nil {
		return look.Fit(st.Dim.Render(noGeometry), w, h)
	}
	if p.simplex && sh.geo.Simplex != nil {
		return p.drawSimplex(sh.geo.Simplex, sh.geo.SimplexInit, sh.simplexOpt)
	}
	mf := sh.geo.Manifold
	if mf == nil {
		return look.Fit(st.Dim.Render("no value-manifold readout in this snapshot"), w, h)
	}
	yAxis := 1
	if p.pc3 {
		yAxis = 2
	}
	title := fmt.Sprintf("value manifold @%d · PCA of the final-norm residual · %d points%s", sh.geoAt, len(mf.Points), probeNote(sh.geo.ProbeN))
	title = look.FitParts(appendFits(title, " · scatter: many sequences", w), " · ", w)
	var prevMany, prevOne *sessions.Manifold
	if sh.geoPrev != nil {
		prevMany, prevOne = sh.geoPrev.Manifold, sh.geoPrev.ManifoldOne
	}
	lines := []string{title}
	lines = append(lines, manifoldTable(st, sh.geo, prevMany, prevOne, sh.geoPrevAt, w)...)
	cuts, how := entropyBins(mf.Entropy)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range mf.Entropy {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	edges := []float64{lo, cuts[0], cuts[1], cuts[2], hi}
	parts := make([]string, 4)
	for i := range parts {
		parts[i] = st.Bins[i].Render(string(binGlyphs[i])) + " " + look.Num(edges[i], 1) + "–" + look.Num(edges[i+1], 1)
	}
	parts[0] = "entropy, bits: " + parts[0]
	legend := look.FlowParts(parts, "  ", w)
	legend[len(legend)-1] = appendFits(legend[len(legend)-1], " ("+how+")", w)
	if ch := h - len(lines) - len(legend); ch >= 5 && len(mf.Points) > 0 {
		lines = append(lines, p.scatter(mf, yAxis, cuts, w, ch))
	}
	lines = append(lines, legend...)
	return look.Fit(strings.Join(lines, "\n"), w, h)
}

// scatter draws PC1 against PC yAxis+1 in w×h cells, axes included, points of the highest
// entropy bin first so that the more certain ones show where points share a cell.
func (p *manifoldPane) scatter(mf *sessions.Manifold, yAxis int, cuts [3]float64, w, h int) string {
	if w < 10 {
		return look.Fit("", w, h)
	}
	xr, yr := look.Span{Lo: math.Inf(1), Hi: math.Inf(-1)}, look.Span{Lo: math.Inf(1), Hi: math.Inf(-1)}
	ok := func(pt []float64) bool {
		return len(pt) > yAxis && !math.IsNaN(pt[0]) && !math.IsNaN(pt[yAxis]) && !math.IsInf(pt[0], 0) && !math.IsInf(pt[yAxis], 0)
	}
	for _, pt := range mf.Points {
		if ok(pt) {
			xr = look.Span{Lo: math.Min(xr.Lo, pt[0]), Hi: math.Max(xr.Hi, pt[0])}
			yr = look.Span{Lo: math.Min(yr.Lo, pt[yAxis]), Hi: math.Max(yr.Hi, pt[yAxis])}
		}
	}
	if math.IsInf(xr.Lo, 0) {
		return look.Fit(p.sh.st.Dim.Render(fmt.Sprintf("no PC%d coordinates", yAxis+1)), w, h)
	}
	xr, yr = padSpan(xr), padSpan(yr)
	var ss []look.Series
	for bin := 3; bin >= 0; bin-- {
		var xs, ys []float64
		for i, pt := range mf.Points {
			if ok(pt) && i < len(mf.Entropy) && binOf(mf.Entropy[i], cuts) == bin {
				xs, ys = append(xs, pt[0]), append(ys, pt[yAxis])
			}
		}
		ss = append(ss, look.Series{Glyph: binGlyphs[bin], Style: p.sh.st.Bins[bin], X: xs, Y: ys, Dots: true})
	}
	return look.Chart{XR: xr, YR: yr, Series: ss,
		XTitle: "PC1", YTitle: fmt.Sprintf("PC%d", yAxis+1)}.Draw(w, h)
}

// padSpan is s made non-empty and widened by 4 % on either side: a scatter's axis range,
// so that no point sits on the frame.
func padSpan(s look.Span) look.Span {
	s = s.Widen()
	d := (s.Hi - s.Lo) * 0.04
	return look.Span{Lo: s.Lo - d, Hi: s.Hi + d}
}

// manifoldTable is the table of the two samplings: a header and one row each for many
// sequences (sn.Manifold) and one sequence (sn.ManifoldOne), |ρ(PC1, H)| (Spearman) first,
// then the PC1..PC3 shares and, as room allows, the signed Spearman and Pearson
// correlations, sequences × positions sampled and |ρ| at the previous snapshot (prevAt).
func manifoldTable(st look.Styles, sn *sessions.Snapshot, prevMany, prevOne *sessions.Manifold, prevAt, w int) []string {
	const labelW = 15
	row := func(label string, m, prev *sessions.Manifold, sampled string) string {
		s := look.PadLine(label, labelW)
		if m == nil {
			return s + st.Dim.Render("not recorded in this session")
		}
		share := func(i int) string {
			if i < len(m.Share) {
				return look.Num(100*m.Share[i], 1) + "%"
			}
			return "–"
		}
		s += st.Title.Render(fmt.Sprintf("%10s", look.Num(math.Abs(float64(m.Spearman)), 2))) +
			fmt.Sprintf(" %5s %5s %5s", share(0), share(1), share(2))
		s = appendFits(s, "  Spearman "+fsigned(float64(m.Spearman), 2), w)
		s = appendFits(s, " Pearson "+fsigned(float64(m.Pearson), 2), w)
		s = appendFits(s, "  "+sampled, w)
		if prev != nil {
			s = appendFits(s, fmt.Sprintf(" (@%d: %s)", prevAt, look.Num(math.Abs(float64(prev.Spearman)), 2)), w)
		}
		return s
	}
	sampled := func(m *sessions.Manifold, seqs int) string {
		if m != nil && m.Sequences > 0 && m.N > 0 {
			return fmt.Sprintf("%d×%d", m.Sequences, m.N/m.Sequences)
		}
		if seqs > 0 {
			return fmt.Sprintf("%d×?", seqs)
		}
		return "?"
	}
	sm := sampled(sn.Manifold, sn.ProbeN)
	many := row("many sequences", sn.Manifold, prevMany, sm)
	one := row("one sequence", sn.ManifoldOne, prevOne, sampled(sn.ManifoldOne, 1))
	head := look.PadLine("", labelW) + st.Title.Render("|ρ(PC1,H)|") + "   PC1   PC2   PC3"
	if strings.Contains(many, " Pearson ") {
		head += "  signed ρ"
		if strings.Contains(many, "  "+sm) {
			head = appendFits(head, " · sequences×positions", w)
		}
	}
	return []string{head, many, one}
}
