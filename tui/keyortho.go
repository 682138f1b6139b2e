package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/tui/look"
)

// keysPane shows key orthogonality, the two statistics of docs/usage.md: Geometry side by side, each
// labelled: per layer (the mean over heads) or per head, the bench's (the mean |off-diagonal
// cosine| of the centred per-token mean keys of the evidence tokens) as a horizontal bar of
// block glyphs beside a bar for random Gaussian vectors of the same count and dimension, and
// the authors' (the value tokens' embeddings through the layer's norm and W_K of the head)
// now, with its level at initialisation marked. Bars, marks and numbers carry everything, so
// it reads without colour. Sessions recorded before the authors' statistic say so.
type keysPane struct {
	paneBase
	perHead bool
	scroll  int
}

// newKeysPane returns the pane reading sh.
func newKeysPane(sh *shared) *keysPane {
	return &keysPane{paneBase: newPaneBase(sh, "Key orthogonality", "Keys")}
}

// clone copies the pane onto sh.
func (p *keysPane) clone(sh *shared) pane { return cloneOn(p, sh) }

// Update toggles per-head bars (anywhere: the key is the pane's alone) and scrolls them
// when focused.
func (p *keysPane) Update(msg tea.KeyMsg, focused bool) (bool, tea.Cmd) {
	k := p.sh.keys
	switch {
	case key.Matches(msg, k.PerHead):
		p.perHead, p.scroll = !p.perHead, 0
		return true, nil
	case focused && key.Matches(msg, k.Scroll):
		rows, room := p.rows(), p.barRoom()
		if rows <= room {
			return false, nil
		}
		if key.Matches(msg, k.Up) {
			p.scroll = max(p.scroll-1, 0)
		} else {
			p.scroll = min(p.scroll+1, rows-room)
		}
		return true, nil
	}
	return false, nil
}

// Help lists the pane's keys.
func (p *keysPane) Help() []key.Binding { return []key.Binding{p.sh.keys.PerHead, p.sh.keys.Scroll} }

// View renders the bars (cached until the snapshot, the size, the toggle or the scroll
// position changes).
func (p *keysPane) View() string {
	opt := p.scroll << 1
	if p.perHead {
		opt |= 1
	}
	return p.cache.get(p.sh, snapKey{p.w, p.h, p.sh.geoGen, p.focused(), opt}, p.draw)
}

// keysHeader is the number of lines above the layer bars: the title, the column header
// (or the note that the authors' statistic was not recorded) and the random bar.
const keysHeader = 3

// rows is the number of bar rows below the random one.
func (p *keysPane) rows() int {
	ko := p.data()
	if !p.perHead {
		return len(ko)
	}
	n := 0
	for _, r := range ko {
		n += len(r)
	}
	return n
}

// barRoom is the number of bar lines that fit below the header, leaving the legend.
func (p *keysPane) barRoom() int { return max(p.h-keysHeader-1, 1) }

// data is the snapshot's key orthogonality, nil when there is none.
func (p *keysPane) data() [][]float64 {
	if p.sh.geo == nil {
		return nil
	}
	return p.sh.geo.KeyOrthogonality
}

// keyBar is one labelled row: the bench's statistic and, when recorded, the authors'.
type keyBar struct {
	label string
	v     float64
	prev  float64 // the same at the previous snapshot (NaN: none)
	emb   float64 // the authors' statistic now (NaN: none)
	init  float64 // the authors' statistic at initialisation (NaN: none)
}

// cellAt is m[l][h], NaN where m has no such cell.
func cellAt(m [][]float64, l, h int) float64 {
	if l < len(m) && h >= 0 && h < len(m[l]) {
		return m[l][h]
	}
	return math.NaN()
}

// rowMean is the mean of m[l], NaN where m has no such row.
func rowMean(m [][]float64, l int) float64 {
	if l < len(m) && len(m[l]) > 0 {
		return mean(m[l])
	}
	return math.NaN()
}

// finiteMax is the largest finite value among top and vs.
func finiteMax(top float64, vs ...float64) float64 {
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			top = math.Max(top, v)
		}
	}
	return top
}

// markBar puts the mark glyph in column col of bar (a w-cell bar), whether the bar reaches
// it or not; col < 0 leaves the bar as it is.
func markBar(bar string, col int) string {
	if col < 0 {
		return bar
	}
	r := []rune(bar)
	if col < len(r) {
		r[col] = '┆'
	}
	return string(r)
}

// markCol is the column of v on a 0..top scale in a w-cell bar (−1: none).
func markCol(v, top float64, w int) int {
	if math.IsNaN(v) || math.IsInf(v, 0) || !(v > 0) || w <= 0 {
		return -1
	}
	return min(int(v/top*float64(w)), w-1)
}

// draw renders the view.
func (p *keysPane) draw() string {
	st, sh := p.sh.st, p.sh
	w, h := p.w, p.h
	ko := p.data()
	switch {
	case !sh.hasAttention():
		return look.Fit(st.Dim.Render("no attention in this model: no keys to compare"), w, h)
	case sh.geo == nil:
		return look.Fit(st.Dim.Render(noGeometry), w, h)
	case len(ko) == 0:
		return look.Fit(st.Dim.Render("no key-orthogonality readout in this snapshot"), w, h)
	}
	var prevKO [][]float64
	if sh.geoPrev != nil {
		prevKO = sh.geoPrev.KeyOrthogonality
	}
	emb, embInit := sh.geo.KeyOrthogonalityEmbed, sh.geo.KeyOrthogonalityEmbedInit
	authors := len(emb) > 0
	var bars []keyBar
	for l, row := range ko {
		if p.perHead {
			for hd, v := range row {
				bars = append(bars, keyBar{headName(l, hd), v, cellAt(prevKO, l, hd), cellAt(emb, l, hd), cellAt(embInit, l, hd)})
			}
			continue
		}
		bars = append(bars, keyBar{fmt.Sprintf("L%d", l), mean(row), rowMean(prevKO, l), rowMean(emb, l), rowMean(embInit, l)})
	}
	rnd := sh.geo.KeyOrthogonalityRandom
	top, topA := rnd, 0.0
	for _, b := range bars {
		top = finiteMax(top, b.v)
		topA = finiteMax(topA, b.emb, b.init)
	}
	if !(top > 0) {
		top = 1
	}
	if !(topA > 0) {
		topA = 1
	}
	top, topA = top*1.05, topA*1.05

	labelW := len("random") + 1
	for _, b := range bars {
		labelW = max(labelW, len(b.label)+1)
	}
	withPrev := sh.geoPrev != nil && len(prevKO) > 0
	// The bench's column: bar and numbers (" 0.053  0.65×", then "  Δ-0.0031" when there is
	// room); the authors' column, when recorded: " │ ", bar and " 0.452  init 0.143".
	numW, sep, numA := 14, 0, 0
	if authors {
		sep, numA = 3, 18
	}
	layout := func(numW int) (barW, barA int) {
		avail := w - labelW - numW - sep - numA
		if !authors {
			return avail, 0
		}
		return avail / 2, avail - avail/2
	}
	barW, barA := layout(numW)
	if bw, _ := layout(numW + 10); withPrev && bw >= 12 {
		numW += 10 // "  Δ-0.0031"
		barW, barA = layout(numW)
	} else {
		withPrev = false
	}
	if barW < 4 { // numbers only (the bench's column keeps a bar when it is alone)
		if authors {
			barW, barA, numW = 0, 0, 7
		} else {
			barW, numW = max(w-labelW-7, 1), 7
		}
	}

	unit := "layer means"
	if p.perHead {
		unit = "per head"
	}
	title := look.FirstFit(w, fmt.Sprintf("mean |cos| between token keys, %s · @%d · lower = more orthogonal", unit, sh.geoAt),
		fmt.Sprintf("mean |cos| between token keys, %s · @%d", unit, sh.geoAt),
		fmt.Sprintf("mean |cos| of token keys, %s · @%d", unit, sh.geoAt),
		fmt.Sprintf("|cos| of keys, %s · @%d", unit, sh.geoAt))
	lines := []string{title}
	if authors {
		bench := look.FirstFit(barW+numW, "bench's: centred evidence keys vs random", "bench's: centred evidence keys",
			"bench's: evidence keys", "bench's")
		auth := look.FirstFit(barA+numA, "authors': value tokens' embed·W_K, now", "authors': value tokens' embed·W_K",
			"authors': value embed·W_K", "authors': embed·W_K", "authors'")
		lines = append(lines, look.PadLine("", labelW)+look.PadLine(bench, barW+numW)+st.Dim.Render(" │ ")+auth)
	} else {
		lines = append(lines, st.Dim.Render(look.FirstFit(w, "authors' statistic (value tokens' embeddings·W_K vs init): not recorded in this session",
			"authors' statistic (value tokens' embeddings·W_K vs init): not recorded",
			"authors' statistic (embed·W_K vs init): not recorded", "authors' statistic: not recorded", "not recorded")))
	}

	rndCol := markCol(rnd, top, barW)
	rndBar := strings.Repeat("░", max(int(math.Round(rnd/top*float64(barW))), 0))
	rndLine := look.PadLine("random", labelW) + st.Dim.Render(look.PadLine(rndBar, barW)) + p.numbers(rnd, rnd, math.NaN(), numW, withPrev, true)
	if authors {
		note := look.FirstFit(barA+numA, "┆ = at initialisation", "┆ = at init", "┆ init")
		k := sh.geo.KeyOrthogonalityEmbedTokens
		switch {
		case barA == 0 && k > 0: // numbers only: no ┆ to explain
			note = fmt.Sprintf("%d tokens", k)
		case barA == 0:
			note = ""
		case k > 0:
			note = look.FirstFit(barA+numA, fmt.Sprintf("┆ = at initialisation · %d tokens", k), note)
		}
		rndLine += st.Dim.Render(" │ ") + st.Dim.Render(look.PadLine(note, barA+numA))
	}
	lines = append(lines, rndLine)

	room := p.barRoom()
	scroll := min(p.scroll, max(len(bars)-room, 0))
	shown := bars
	more := 0
	if len(bars) > room {
		end := min(scroll+room, len(bars))
		if end < len(bars) {
			end-- // a line saying how many more
			more = len(bars) - end
		}
		shown = bars[scroll:end]
	}
	for _, b := range shown {
		bar := hbar(b.v, top, barW)
		if b.v < rnd {
			// Mark where the random level is, past the end of the bar.
			if r := []rune(bar); rndCol >= 0 && rndCol < len(r) && r[rndCol] == ' ' {
				bar = markBar(bar, rndCol)
			}
		}
		style := st.Good
		if b.v >= rnd {
			style = st.Warn
		}
		line := look.PadLine(b.label, labelW) + style.Render(bar) + p.numbers(b.v, rnd, b.prev, numW, withPrev, false)
		if authors {
			abar := markBar(hbar(b.emb, topA, barA), markCol(b.init, topA, barA))
			line += st.Dim.Render(" │ ") + st.SeriesA.Render(abar) + look.PadLine(" "+look.Num(b.emb, 3)+"  init "+look.Num(b.init, 3), numA)
		}
		lines = append(lines, line)
	}
	if more > 0 || scroll > 0 {
		lines = append(lines, st.Dim.Render(fmt.Sprintf("↑ %d above · ↓ %d below (↑/↓ when focused)", scroll, more)))
	}
	// The legend names what is drawn: the bars' glyphs only with bars, the ratio only where
	// the numbers have room for it.
	var parts []string
	switch {
	case barW > 0 && authors && barA > 0:
		parts = []string{"█ keys", "░ random (same count, dim)", "┆ random level (left), at init (right)"}
	case barW > 0:
		parts = []string{"█ keys", "░ random Gaussian (same count, dim)", "┆ random level"}
	}
	if numW >= 14 {
		parts = append(parts, "×: ratio to random")
	}
	if withPrev {
		parts = append(parts, fmt.Sprintf("Δ: vs @%d", sh.geoPrevAt))
	}
	for _, l := range look.FlowParts(parts, "  ", w) {
		if len(lines) < h {
			lines = append(lines, st.Dim.Render(l))
		}
	}
	return look.Fit(strings.Join(lines, "\n"), w, h)
}

// numbers is the value, its ratio to the random baseline and its change, in n cells.
func (p *keysPane) numbers(v, rnd, prev float64, n int, withPrev, isRandom bool) string {
	s := " " + look.Num(v, 3)
	switch {
	case n < 14:
	case isRandom:
		s += "  1.00×"
	case rnd > 0:
		s += fmt.Sprintf("  %s×", look.Num(v/rnd, 2))
	}
	if withPrev && !isRandom {
		s += "  Δ" + fsigned(v-prev, 4)
	}
	return look.PadLine(s, n)
}

// eighths are the left-aligned partial blocks, one to seven eighths of a cell.
var eighths = []rune("▏▎▍▌▋▊▉")

// hbar draws v on a 0..top scale as a bar of full and partial blocks, exactly w cells.
func hbar(v, top float64, w int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || w <= 0 {
		return look.PadLine("·", w)
	}
	n := int(math.Round(math.Min(math.Max(v/top, 0), 1) * float64(w) * 8))
	full, part := n/8, n%8
	s := strings.Repeat("█", full)
	if part > 0 && full < w {
		s += string(eighths[part-1])
	}
	return look.PadLine(s, w)
}
