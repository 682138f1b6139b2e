package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// keysPane shows key orthogonality: per layer (the mean over heads) or per head, the mean
// |off-diagonal cosine| of the token keys as a horizontal bar of block glyphs, beside a
// bar for random Gaussian vectors of the same count and dimension. Bars and numbers carry
// everything, so it reads without colour.
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

// keysHeader is the number of lines above the layer bars: the title and the random bar.
const keysHeader = 2

// rows is the number of bars below the random one.
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

// keyBar is one labelled bar.
type keyBar struct {
	label string
	v     float64
	prev  float64 // the same at the previous snapshot (NaN: none)
}

// draw renders the view.
func (p *keysPane) draw() string {
	st, sh := p.sh.st, p.sh
	w, h := p.w, p.h
	ko := p.data()
	switch {
	case !sh.hasAttention():
		return fit(st.dim.Render("no attention in this model: no keys to compare"), w, h)
	case sh.geo == nil:
		return fit(st.dim.Render(noGeometry), w, h)
	case len(ko) == 0:
		return fit(st.dim.Render("no key-orthogonality readout in this snapshot"), w, h)
	}
	var prevKO [][]float64
	if sh.geoPrev != nil {
		prevKO = sh.geoPrev.KeyOrthogonality
	}
	at := func(m [][]float64, l, hd int) float64 {
		if l < len(m) && hd < len(m[l]) {
			return m[l][hd]
		}
		return math.NaN()
	}
	var bars []keyBar
	for l, row := range ko {
		if p.perHead {
			for hd, v := range row {
				bars = append(bars, keyBar{headName(l, hd), v, at(prevKO, l, hd)})
			}
			continue
		}
		pv := math.NaN()
		if l < len(prevKO) {
			pv = mean(prevKO[l])
		}
		bars = append(bars, keyBar{fmt.Sprintf("L%d", l), mean(row), pv})
	}
	rnd := sh.geo.KeyOrthogonalityRandom
	top := rnd
	for _, b := range bars {
		if !math.IsNaN(b.v) && !math.IsInf(b.v, 0) {
			top = math.Max(top, b.v)
		}
	}
	if !(top > 0) {
		top = 1
	}
	top *= 1.05

	labelW := len("random") + 1
	for _, b := range bars {
		labelW = max(labelW, len(b.label)+1)
	}
	withPrev := sh.geoPrev != nil && len(prevKO) > 0
	numW := 14 // " 0.053  0.65×r"
	if withPrev && w-labelW-numW-10 >= 12 {
		numW += 10 // "  Δ-0.0031"
	} else {
		withPrev = false
	}
	barW := w - labelW - numW
	if barW < 4 {
		barW, numW, withPrev = max(w-labelW-7, 1), 7, false
	}

	unit := "layer means"
	if p.perHead {
		unit = "per head"
	}
	title := appendFits(fmt.Sprintf("mean |cos| of token keys, %s · @%d", unit, sh.geoAt), " · lower = more orthogonal", w)
	lines := []string{title}

	rndCol := -1
	if rnd > 0 {
		rndCol = min(int(rnd/top*float64(barW)), barW-1)
	}
	rndBar := strings.Repeat("░", max(int(math.Round(rnd/top*float64(barW))), 0))
	lines = append(lines, padLine("random", labelW)+st.dim.Render(padLine(rndBar, barW))+p.numbers(rnd, rnd, math.NaN(), numW, withPrev, true))

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
		if rndCol >= 0 && b.v < rnd {
			// Mark where the random level is, past the end of the bar.
			r := []rune(bar)
			if rndCol < len(r) && r[rndCol] == ' ' {
				r[rndCol] = '┆'
			}
			bar = string(r)
		}
		style := st.good
		if b.v >= rnd {
			style = st.warn
		}
		lines = append(lines, padLine(b.label, labelW)+style.Render(bar)+p.numbers(b.v, rnd, b.prev, numW, withPrev, false))
	}
	if more > 0 || scroll > 0 {
		lines = append(lines, st.dim.Render(fmt.Sprintf("↑ %d above · ↓ %d below (↑/↓ when focused)", scroll, more)))
	}
	legend := "█ keys  ░ random Gaussian (same count, dim)"
	legend = appendFits(legend, "  ┆ random", w)
	legend = appendFits(legend, "  ×: ratio", w)
	if withPrev {
		legend = appendFits(legend, fmt.Sprintf("  Δ: vs @%d", sh.geoPrevAt), w)
	}
	if len(lines) < h {
		lines = append(lines, st.dim.Render(legend))
	}
	return fit(strings.Join(lines, "\n"), w, h)
}

// numbers is the value, its ratio to the random baseline and its change, in n cells.
func (p *keysPane) numbers(v, rnd, prev float64, n int, withPrev, isRandom bool) string {
	s := " " + fnum(v, 3)
	switch {
	case n < 14:
	case isRandom:
		s += "  1.00×"
	case rnd > 0:
		s += fmt.Sprintf("  %s×", fnum(v/rnd, 2))
	}
	if withPrev && !isRandom {
		s += "  Δ" + fsigned(v-prev, 4)
	}
	return padLine(s, n)
}

// eighths are the left-aligned partial blocks, one to seven eighths of a cell.
var eighths = []rune("▏▎▍▌▋▊▉")

// hbar draws v on a 0..top scale as a bar of full and partial blocks, exactly w cells.
func hbar(v, top float64, w int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || w <= 0 {
		return padLine("·", w)
	}
	n := int(math.Round(math.Min(math.Max(v/top, 0), 1) * float64(w) * 8))
	full, part := n/8, n%8
	s := strings.Repeat("█", full)
	if part > 0 && full < w {
		s += string(eighths[part-1])
	}
	return padLine(s, w)
}
