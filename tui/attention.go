package tui

import (
	"fmt"
	"math"
	"strings"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// shadeRamp runs from diffuse (high entropy) to focused (low entropy).
const shadeRamp = "░▒▓█"

// attentionPane shows the attention entropy of every layer × head as a grid of shade glyphs
// and numbers, which reads without colour, plus each layer's change since the previous
// snapshot.
type attentionPane struct {
	paneBase
	snap   *sessions.Snapshot
	at     int
	prev   *sessions.Snapshot
	prevAt int
}

// newAttentionPane returns the pane reading sh.
func newAttentionPane(sh *shared) *attentionPane {
	return &attentionPane{paneBase: newPaneBase(sh, "Attention focus", "Attention")}
}

// clone copies the pane onto sh.
func (p *attentionPane) clone(sh *shared) pane { return cloneOn(p, sh) }

// Refresh takes the snapshot at the current step and the one before it from what the root
// fetched.
func (p *attentionPane) Refresh() error {
	p.snap, p.prev = nil, nil
	sh := p.sh
	if !sh.hasAttention() || sh.snap == nil || len(sh.snap.AttentionEntropy) == 0 {
		return nil
	}
	p.snap, p.at = sh.snap, sh.snapAt
	if sh.prev != nil && len(sh.prev.AttentionEntropy) > 0 {
		p.prev, p.prevAt = sh.prev, sh.prevAt
	}
	return nil
}

// cellMode is how much of a cell fits: glyphs and a number, or glyphs only.
type cellMode struct {
	glyphs int // shade glyphs per cell
	dec    int // decimals of the number; -1: no number
	sep    int // spaces after a cell
}

// width is the cells a head takes.
func (c cellMode) width() int {
	w := c.glyphs + c.sep
	if c.dec >= 0 {
		w += c.dec + 2 // "3.62" or "3.6"
	}
	if c.dec == 2 {
		w++ // a space between the glyphs and the number
	}
	return w
}

// snapKey is what a view drawn from the snapshots depends on: the size, the snapshots and
// the pane's own toggles.
type snapKey struct {
	w, h    int
	snapGen int
	focused bool
	opt     int // the pane's toggles and scroll position
}

// View renders the grid (cached until the size or the snapshots change).
func (p *attentionPane) View() string {
	return p.cache.get(p.sh, snapKey{w: p.w, h: p.h, snapGen: p.sh.snapGen}, p.draw)
}

// draw renders the grid.
func (p *attentionPane) draw() string {
	st, sh := p.sh.st, p.sh
	w, h := p.w, p.h
	switch {
	case !sh.hasAttention():
		return look.Fit(st.Dim.Render("no attention in this model"), w, h)
	case p.snap == nil:
		return look.Fit(st.Dim.Render("no attention snapshot yet"), w, h)
	}
	ae := p.snap.AttentionEntropy
	heads := 0
	for _, row := range ae {
		heads = max(heads, len(row))
	}
	top := 1.0
	for _, s := range []*sessions.Snapshot{p.snap, p.prev} {
		if s == nil {
			continue
		}
		for _, row := range s.AttentionEntropy {
			for _, v := range row {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					top = math.Max(top, math.Ceil(v))
				}
			}
		}
	}
	labelW := len(fmt.Sprintf("L%d ", len(ae)-1))
	mode, extras := pickCellMode(w, labelW, heads)

	title := fmt.Sprintf("entropy of attention rows, bits · @%d", p.at)
	if p.prev != nil && extras {
		title += fmt.Sprintf(" (Δ vs @%d)", p.prevAt)
	}
	var b strings.Builder
	b.WriteString(title + "\n")
	hdr := strings.Repeat(" ", labelW)
	for hd := 0; hd < heads; hd++ {
		hdr += look.PadLine(fmt.Sprintf("H%d", hd), mode.width())
	}
	if extras {
		hdr += " mean      Δ"
	}
	b.WriteString(st.Dim.Render(hdr) + "\n")

	rows := len(ae)
	room := h - 3 // title, header, legend
	shown := rows
	if shown > room {
		shown = max(room-1, 0)
	}
	rowH := 1 // lines per layer: taller cells when there is room
	if shown > 0 {
		rowH = min(max(room/shown, 1), 3)
	}
	for l := 0; l < shown; l++ {
		for k := 0; k < rowH; k++ {
			mid := k == rowH/2
			line := strings.Repeat(" ", labelW)
			if mid {
				line = fmt.Sprintf("L%-*d", labelW-1, l)
			}
			for hd := 0; hd < heads; hd++ {
				v := math.NaN()
				if hd < len(ae[l]) {
					v = ae[l][hd]
				}
				line += p.cell(v, top, mode, mid)
			}
			if extras && mid {
				m := mean(ae[l])
				line += " " + look.Num(m, 2)
				if p.prev != nil && l < len(p.prev.AttentionEntropy) {
					line += "  " + fsigned(m-mean(p.prev.AttentionEntropy[l]), 2)
				}
			}
			b.WriteString(line + "\n")
		}
	}
	if shown < rows {
		b.WriteString(st.Dim.Render(fmt.Sprintf("… %d more layers", rows-shown)) + "\n")
	}
	legend := fmt.Sprintf("█ focused, 0 bits … ░ diffuse, %g bits", top)
	b.WriteString(st.Dim.Render(legend))
	return look.Fit(b.String(), w, h)
}

// pickCellMode chooses the widest cells that fit w: glyphs and a number plus the mean and Δ
// columns, else narrower cells without the extra columns.
func pickCellMode(w, labelW, heads int) (cellMode, bool) {
	const extraW = 14 // " mean 3.62" and "  Δ -0.05"
	for g := 8; g >= 2; g-- {
		if m := (cellMode{g, 2, 2}); labelW+heads*m.width()+extraW <= w {
			return m, true
		}
	}
	modes := []cellMode{{2, 2, 2}, {1, 1, 1}, {2, -1, 1}}
	for _, m := range modes {
		if labelW+heads*m.width() <= w {
			return m, false
		}
	}
	return cellMode{1, -1, 0}, false
}

// cell renders one head: shade glyphs (darker is more focused) and, on the middle line of
// a layer when room permits, the value.
func (p *attentionPane) cell(v, top float64, m cellMode, number bool) string {
	ramp := []rune(shadeRamp)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strings.Repeat("·", m.glyphs) + strings.Repeat(" ", m.width()-m.glyphs)
	}
	level := 1 - math.Min(math.Max(v/top, 0), 1) // 1: focused
	i := min(int(level*float64(len(ramp))), len(ramp)-1)
	s := p.sh.st.Shades[i+1].Render(strings.Repeat(string(ramp[i]), m.glyphs))
	switch {
	case !number:
	case m.dec == 2:
		s += " " + look.Num(v, 2)
	case m.dec >= 0:
		s += look.Num(v, m.dec)
	}
	return look.PadLine(s, m.width())
}
