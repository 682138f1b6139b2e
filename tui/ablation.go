package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
)

// ablationPane is the layer × head grid: arrows move the cursor, space switches the head
// under it off or on, r restores every head. Which heads are off comes from the feed's
// events up to the current step, so a replay shows them as they were.
type ablationPane struct {
	sh       *shared
	w, h     int
	row, col int
	off      map[sessions.Head]int // head → step it went off
}

// newAblationPane returns the pane reading sh.
func newAblationPane(sh *shared) *ablationPane {
	return &ablationPane{sh: sh, off: map[sessions.Head]int{}}
}

// clone copies the pane onto sh.
func (p *ablationPane) clone(sh *shared) pane {
	c := *p
	c.sh = sh
	return &c
}

// Title names the pane.
func (p *ablationPane) Title() string { return "Ablation" }

// SetSize sets the inner size.
func (p *ablationPane) SetSize(w, h int) { p.w, p.h = w, h }

// Refresh replays the head events up to the current step.
func (p *ablationPane) Refresh() error {
	p.off = map[sessions.Head]int{}
	if !p.sh.hasAttention() || !p.sh.any {
		return nil
	}
	evs, err := p.sh.feed.Events(p.sh.step)
	if err != nil {
		return err
	}
	p.off = offHeads(evs)
	return nil
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

// View renders the grid, the heads that are off and the ablated bit error.
func (p *ablationPane) View() string {
	st, sh := p.sh.st, p.sh
	w, h := p.w, p.h
	if !sh.hasAttention() {
		return fit(st.dim.Render("no attention heads in this model to ablate"), w, h)
	}
	cellW := 5
	labelW := len(fmt.Sprintf("L%d ", sh.meta.Layers-1)) + 1
	if labelW+sh.meta.Heads*cellW > w {
		cellW = 3
	}
	footer := p.footer()
	rows := min(sh.meta.Layers, max(h-2-len(footer), 1))
	start := min(max(p.row-rows/2, 0), sh.meta.Layers-rows)

	var lines []string
	lines = append(lines, "● on  ○ off  · space toggles, r restores all")
	hdr := strings.Repeat(" ", labelW)
	for hd := 0; hd < sh.meta.Heads; hd++ {
		hdr += padLine(center(fmt.Sprintf("H%d", hd), cellW), cellW)
	}
	lines = append(lines, st.dim.Render(hdr))
	focused := p.focused()
	for l := start; l < start+rows; l++ {
		line := padLine(fmt.Sprintf("L%d", l), labelW)
		for hd := 0; hd < sh.meta.Heads; hd++ {
			g := "●"
			if _, off := p.off[sessions.Head{Layer: l, Head: hd}]; off {
				g = st.warn.Render("○")
			}
			if focused && l == p.row && hd == p.col {
				g = st.cursor.Render("[" + g + "]")
			} else {
				g = " " + g + " "
			}
			line += padLine(center(g, cellW), cellW)
		}
		lines = append(lines, line)
	}
	lines = append(lines, footer...)
	return fit(strings.Join(lines, "\n"), w, h)
}

// focused reports whether the root gave this pane focus (it records that in the shared context).
func (p *ablationPane) focused() bool { return p.sh.focus == p.Title() }

// footer lists the heads that are off and the bit error of the ablated model.
func (p *ablationPane) footer() []string {
	sh := p.sh
	var heads []sessions.Head
	for hd := range p.off {
		heads = append(heads, hd)
	}
	sort.Slice(heads, func(i, j int) bool {
		if heads[i].Layer != heads[j].Layer {
			return heads[i].Layer < heads[j].Layer
		}
		return heads[i].Head < heads[j].Head
	})
	var out []string
	if len(heads) == 0 {
		out = append(out, "off: none (all heads on)")
	} else {
		names := make([]string, len(heads))
		for i, hd := range heads {
			names[i] = fmt.Sprintf("%s@%d", headName(hd.Layer, hd.Head), p.off[hd])
		}
		out = append(out, "off: "+strings.Join(names, " "))
	}
	ab, full := sh.ablated, sh.lastEval()
	if ab == nil {
		return append(out, sh.st.dim.Render("no ablated evaluation yet"))
	}
	names := make([]string, len(ab.Eval.Ablated))
	for i, hd := range ab.Eval.Ablated {
		names[i] = headName(hd.Layer, hd.Head)
	}
	out = append(out, fmt.Sprintf("ablated eval @%d without %s:", ab.Step, strings.Join(names, " ")))
	if full == nil {
		return append(out, "  (a) "+fnum(ab.Eval.BitErrorPosition, 3)+" bits")
	}
	row := func(name string, a, f float64) string {
		return fmt.Sprintf("  %-4s %s vs %s  Δ %s bits", name, fnum(a, 3), fnum(f, 3), fsigned(a-f, 3))
	}
	out = append(out,
		row("(a)", ab.Eval.BitErrorPosition, full.Eval.BitErrorPosition),
		row("KL", ab.Eval.KLBits, full.Eval.KLBits),
		sh.st.dim.Render(fmt.Sprintf("  (whole model @%d)", full.Step)))
	return out
}

// center pads s on the left so it sits in the middle of w cells.
func center(s string, w int) string {
	n := ansi.StringWidth(s)
	if n >= w {
		return s
	}
	return strings.Repeat(" ", (w-n)/2) + s
}
