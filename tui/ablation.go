package tui

import (
	"fmt"
	"maps"
	"math"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// ablationPane is the layer × head grid: arrows move the cursor, space switches the head
// under it off or on, r restores every head. Which heads are off comes from the feed's
// events up to the current step, so a replay shows them as they were. Each cell also shows
// the change of bit error when that head alone is zeroed and the costliest head is marked,
// both as the lab recorded them in the snapshot (HeadDelta, CostliestHead); the layers'
// attention, MLP (or recurrent layer) effects from its ablation table are listed beside or
// below the grid.
type ablationPane struct {
	paneBase
	row, col int
	off      map[sessions.Head]int // head → step it went off
	offGen   int                   // bumped when off changes
}

// newAblationPane returns the pane reading sh.
func newAblationPane(sh *shared) *ablationPane {
	return &ablationPane{paneBase: newPaneBase(sh, "Ablation", "Ablation"), off: map[sessions.Head]int{}}
}

// clone copies the pane onto sh.
func (p *ablationPane) clone(sh *shared) pane { return cloneOn(p, sh) }

// Refresh replays the head events up to the current step.
func (p *ablationPane) Refresh() error {
	off := map[sessions.Head]int{}
	var err error
	if p.sh.hasAttention() && p.sh.any {
		var evs []sessions.Event
		if evs, err = p.sh.feed.Events(p.sh.step); err == nil {
			off = offHeads(evs)
		}
	}
	if !maps.Equal(off, p.off) {
		p.off = off
		p.offGen++
	}
	return err
}

// offHeads folds head and restore events into the set of heads switched off.
func offHeads(evs []sessions.Event) map[sessions.Head]int {
	off := map[sessions.Head]int{}
	for _, e := range evs {
		switch e.Kind {
		case sessions.EventHead:
			h := sessions.Head{Layer: e.Layer, Head: e.Head}
			if e.On {
				delete(off, h)
			} else if _, ok := off[h]; !ok {
				off[h] = e.Step
			}
		case sessions.EventRestore:
			off = map[sessions.Head]int{}
		}
	}
	return off
}

// Update moves the cursor and toggles heads when focused; r restores all heads anywhere.
func (p *ablationPane) Update(msg tea.KeyMsg, focused bool) (bool, tea.Cmd) {
	k, sh := p.sh.keys, p.sh
	if !sh.hasAttention() {
		return false, nil
	}
	if key.Matches(msg, k.Restore) {
		return true, sendCmd(sh.feed, sessions.Event{Step: sh.last, Kind: sessions.EventRestore})
	}
	if !focused {
		return false, nil
	}
	switch {
	case key.Matches(msg, k.Up):
		p.row = max(p.row-1, 0)
	case key.Matches(msg, k.Down):
		p.row = min(p.row+1, sh.meta.Layers-1)
	case key.Matches(msg, k.Left):
		p.col = max(p.col-1, 0)
	case key.Matches(msg, k.Right):
		p.col = min(p.col+1, sh.meta.Heads-1)
	case key.Matches(msg, k.Toggle):
		_, isOff := p.off[sessions.Head{Layer: p.row, Head: p.col}]
		return true, sendCmd(sh.feed, sessions.Event{Step: sh.last, Kind: sessions.EventHead, Layer: p.row, Head: p.col, On: isOff})
	default:
		return false, nil
	}
	return true, nil
}

// Help lists the pane's keys.
func (p *ablationPane) Help() []key.Binding {
	k := p.sh.keys
	return []key.Binding{k.Toggle, k.Restore, k.Up, k.Down, k.Left, k.Right}
}

// ablationKey is what the view depends on.
type ablationKey struct {
	w, h, row, col int
	focused        bool
	offGen, geoGen int
	evals          evalKey
}

// View renders the grid, the heads that are off, the ablated bit error and the ablation
// table (cached until one of them, the cursor, the focus or the size changes).
func (p *ablationPane) View() string {
	sh := p.sh
	k := ablationKey{p.w, p.h, p.row, p.col, p.focused(), p.offGen, sh.geoGen, sh.evalKey}
	return p.cache.get(sh, k, p.draw)
}

// abCell is how a head's cell is drawn: the on/off glyph (3 cells, bracketed under the
// cursor), then the Δbits in numW cells and a marker cell; numW 0 draws the glyph only.
type abCell struct{ numW, dec int }

// width is the cells a head takes.
func (c abCell) width() int {
	if c.numW == 0 {
		return 5
	}
	return 3 + c.numW + 2
}

// pickAbCell chooses the widest cell that fits heads cells in w.
func pickAbCell(w, labelW, heads int, numbers bool) abCell {
	if numbers {
		for _, c := range []abCell{{6, 3}, {5, 2}, {4, -1}} {
			if labelW+heads*c.width() <= w {
				return c
			}
		}
	}
	return abCell{}
}

// fdelta formats a Δbits value in n cells: "+0.123", "+0.12" or, for n = 4, "+.12"/"+1.2".
func fdelta(v float64, c abCell) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return look.PadLine("  –", c.numW)
	}
	if c.dec >= 0 {
		return fsigned(v, c.dec)
	}
	a, sign := math.Abs(v), "+"
	if v < 0 {
		sign = "-"
	}
	if a >= 9.95 {
		return sign + fmt.Sprintf("%.0f", math.Min(a, 99))
	}
	if a >= 0.995 {
		return sign + fmt.Sprintf("%.1f", a)
	}
	return sign + strings.TrimPrefix(fmt.Sprintf("%.2f", a), "0")
}

// draw renders the view.
func (p *ablationPane) draw() string {
	st, sh := p.sh.st, p.sh
	w, h := p.w, p.h
	eff := p.readEffects()
	if !sh.hasAttention() {
		lines := []string{st.Dim.Render("no attention heads in this model to ablate")}
		if eff != nil {
			lines = append(lines, "", fmt.Sprintf("Δ bits when zeroed · snapshot @%d%s", eff.at, probeNote(eff.probeN)))
			lines = append(lines, p.unitsTable(eff, h-3)...)
		}
		return look.Fit(strings.Join(lines, "\n"), w, h)
	}
	labelW := len(fmt.Sprintf("L%d ", sh.meta.Layers-1)) + 1
	cell := pickAbCell(w, labelW, sh.meta.Heads, eff != nil && eff.measured)
	if cell.numW == 0 && labelW+sh.meta.Heads*cell.width() > w {
		cell = abCell{numW: -1} // 3 cells: the glyph alone
	}
	cw := cell.width()
	if cell.numW < 0 {
		cw = 3
	}
	gridW := labelW + sh.meta.Heads*cw

	var units []string
	side := false // the units table beside the grid
	if eff != nil && len(eff.units) > 0 {
		units = p.unitsTable(eff, sh.meta.Layers+1)
		uw := 0
		for _, l := range units {
			uw = max(uw, ansi.StringWidth(l))
		}
		side = gridW+3+uw <= w
	}

	footer := p.footer(eff)
	fixed := 3 + len(footer) // legend, table title, header
	rows := min(sh.meta.Layers, max(h-fixed, 1))
	start := min(max(p.row-rows/2, 0), sh.meta.Layers-rows)

	var lines []string
	legend := "● on  ○ off  · space toggles, r restores all"
	if !sh.canAct() {
		legend = "● on  ○ off"
	}
	lines = append(lines, legend)
	switch {
	case eff == nil:
		lines = append(lines, st.Dim.Render("no ablation table in this snapshot"))
	case eff.unrecorded(): // the footer says so
		lines = append(lines, fmt.Sprintf("Δ bits when zeroed · snapshot @%d%s", eff.at, probeNote(eff.probeN)))
	case !eff.measured:
		lines = append(lines, fmt.Sprintf("Δ bits when zeroed · snapshot @%d%s (no per-head table)", eff.at, probeNote(eff.probeN)))
	default:
		mark := ""
		if eff.costliest != nil {
			mark = " · ▲ costliest"
		}
		lines = append(lines, look.FirstFit(w,
			fmt.Sprintf("Δ bits (a) when zeroed · snapshot @%d%s%s", eff.at, probeNote(eff.probeN), mark),
			fmt.Sprintf("Δ (a) when zeroed · @%d%s%s", eff.at, probeNote(eff.probeN), mark),
			fmt.Sprintf("Δ (a) zeroed · @%d%s", eff.at, mark)))
	}
	hdr := strings.Repeat(" ", labelW)
	for hd := 0; hd < sh.meta.Heads; hd++ {
		hdr += look.PadLine(center(fmt.Sprintf("H%d", hd), min(cw, 5)), cw)
	}
	grid := []string{st.Dim.Render(hdr)}
	focused := p.focused()
	for l := start; l < start+rows; l++ {
		line := look.PadLine(fmt.Sprintf("L%d", l), labelW)
		for hd := 0; hd < sh.meta.Heads; hd++ {
			head := sessions.Head{Layer: l, Head: hd}
			g := "●"
			if _, off := p.off[head]; off {
				g = st.Warn.Render("○")
			}
			if focused && l == p.row && hd == p.col {
				g = st.Cursor.Render("[" + g + "]")
			} else {
				g = " " + g + " "
			}
			switch {
			case cell.numW < 0:
				line += look.PadLine(g, cw)
			case cell.numW == 0:
				line += look.PadLine(center(g, cw), cw)
			default:
				num, mark := look.PadLine("  ·", cell.numW), " "
				if v, ok := eff.headDelta(l, hd); ok {
					num = fdelta(v, cell)
					if eff.isCostliest(l, hd) {
						num, mark = st.Warn.Render(num), st.Warn.Render("▲")
					}
				}
				line += g + look.PadLine(num, cell.numW) + mark + " "
			}
		}
		grid = append(grid, line)
	}
	if side {
		for i := range max(len(grid), len(units)) {
			l := look.PadLine("", gridW)
			if i < len(grid) {
				l = look.PadLine(grid[i], gridW)
			}
			if i < len(units) {
				l += "   " + units[i]
			}
			lines = append(lines, l)
		}
	} else {
		lines = append(lines, grid...)
	}
	lines = append(lines, footer...)
	if !side && len(units) > 0 {
		if room := h - len(lines) - 1; room >= 2 {
			lines = append(lines, "")
			if len(units) > room {
				units = append(units[:room-1], st.Dim.Render(fmt.Sprintf("… %d more layers", len(units)-room+1)))
			}
			lines = append(lines, units...)
		}
	}
	return look.Fit(strings.Join(lines, "\n"), w, h)
}

// footer names the costliest head, lists the heads that are off and the bit error of the
// ablated model.
func (p *ablationPane) footer(eff *effects) []string {
	sh := p.sh
	var out []string
	if eff != nil && eff.unrecorded() {
		out = append(out, sh.st.Dim.Render("per-head Δ not recorded in this session"))
	}
	if eff != nil && eff.costliest != nil {
		ef := eff.costliest
		name, da, dkl := headName(ef.Layer, ef.Head), fsigned(ef.DeltaBits, 3), fsigned(ef.DeltaKL, 3)
		out = append(out, look.FirstFit(p.w,
			fmt.Sprintf("costliest head %s: Δ (a) %s bits, Δ KL %s", name, da, dkl),
			fmt.Sprintf("costliest %s: Δ (a) %s, Δ KL %s", name, da, dkl),
			fmt.Sprintf("▲ %s: Δ (a) %s, Δ KL %s", name, da, dkl)))
	}
	if eff != nil && eff.noneCosts {
		out = append(out, look.FirstFit(p.w, "no head costs bits when zeroed (every Δ (a) ≤ 0)", "no head costs bits (every Δ ≤ 0)", "none costs bits"))
	}
	heads := make([]sessions.Head, 0, len(p.off))
	for hd := range p.off {
		heads = append(heads, hd)
	}
	sort.Slice(heads, func(i, j int) bool {
		if heads[i].Layer != heads[j].Layer {
			return heads[i].Layer < heads[j].Layer
		}
		return heads[i].Head < heads[j].Head
	})
	if len(heads) == 0 {
		out = append(out, "off: none (all heads on)")
	} else {
		names := make([]string, len(heads))
		for i, hd := range heads {
			names[i] = fmt.Sprintf("%s@%d", headName(hd.Layer, hd.Head), p.off[hd])
		}
		out = append(out, "off: "+strings.Join(names, " "))
	}
	ab := sh.ablated
	if ab == nil {
		return append(out, sh.st.Dim.Render("no ablated evaluation yet"))
	}
	names := make([]string, len(ab.Eval.Ablated))
	for i, hd := range ab.Eval.Ablated {
		names[i] = headName(hd.Layer, hd.Head)
	}
	out = append(out, fmt.Sprintf("ablated eval @%d without %s:", ab.Step, strings.Join(names, " ")))
	// Δ compares the two evaluations of one step: the lab evaluates the ablated model beside
	// the whole one at every evaluation while heads are off, and alone right after a switch.
	full := wholeEvalAt(sh, ab.Step)
	if full == nil {
		return append(out,
			fmt.Sprintf("  (a) %s · KL %s bits · Δ —", look.Num(ab.Eval.BitErrorPosition, 3), look.Num(ab.Eval.KLBits, 3)),
			sh.st.Dim.Render(fmt.Sprintf("  (no whole-model eval @%d: a head switch between evaluations)", ab.Step)))
	}
	row := func(name string, a, f float64) string {
		return fmt.Sprintf("  %-4s %s vs %s  Δ %s bits", name, look.Num(a, 3), look.Num(f, 3), fsigned(a-f, 3))
	}
	return append(out,
		row("(a)", ab.Eval.BitErrorPosition, full.Eval.BitErrorPosition),
		row("KL", ab.Eval.KLBits, full.Eval.KLBits),
		sh.st.Dim.Render(fmt.Sprintf("  (whole model @%d, the same step)", full.Step)))
}

// wholeEvalAt is the evaluation of the whole model at step, nil when there is none.
func wholeEvalAt(sh *shared, step int) *sessions.Record {
	for i := len(sh.evals) - 1; i >= 0 && sh.evals[i].Step >= step; i-- {
		if sh.evals[i].Step == step {
			return &sh.evals[i]
		}
	}
	return nil
}

// center pads s on the left so it sits in the middle of w cells.
func center(s string, w int) string {
	n := ansi.StringWidth(s)
	if n >= w {
		return s
	}
	return strings.Repeat(" ", (w-n)/2) + s
}
