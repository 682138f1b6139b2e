package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tui/look"
)

// bitErrorPane plots bit error (a), (b) and KL over the steps shown (the whole run or the
// zoom, with the cursor while scrubbing; its legend gives the values at the cursor), and the
// model's per-position entropy against the Bayes curve at the current step.
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

// Update toggles the log-Y scale of the steps chart while focused (each chart has its own).
func (p *bitErrorPane) Update(msg tea.KeyMsg, focused bool) (bool, tea.Cmd) {
	if focused && key.Matches(msg, p.sh.keys.LogY) {
		p.log = !p.log
		return true, nil
	}
	return false, nil
}

// bitErrorKey is what the charts depend on: the size, the scale, the evaluations and the
// steps shown with the cursor.
type bitErrorKey struct {
	w, h  int
	log   bool
	evals evalKey
	curve cursorKey
	wait  int // the first evaluation's step, while there is none yet
}

// View returns the charts, redrawn only when an input changed.
func (p *bitErrorPane) View() string {
	wait := 0
	if len(p.sh.evals) == 0 {
		wait = firstEvalStep(p.sh)
	}
	return p.cache.get(p.sh, bitErrorKey{p.w, p.h, p.log, p.sh.evalKey, p.sh.curveKey(), wait}, p.draw)
}

// Help lists the pane's keys.
func (p *bitErrorPane) Help() []key.Binding { return []key.Binding{p.sh.keys.LogY} }

// draw renders both charts side by side when wide enough, else stacked, over the
// length-generalisation line of an hmm run when there is room for both.
func (p *bitErrorPane) draw() string {
	w, h := p.w, p.h
	if w <= 0 || h <= 0 {
		return ""
	}
	if len(p.sh.evals) == 0 {
		return look.Fit(p.sh.st.Dim.Render(strings.Join(look.Wrap(waitingForEval(p.sh), w), "\n")), w, h)
	}
	if ls := p.lengthLines(w); len(ls) > 0 && h-len(ls) >= minChartsH {
		n := len(ls)
		return look.VCat(p.charts(w, h-n), look.Fit(strings.Join(ls, "\n"), w, n))
	}
	return p.charts(w, h)
}

// minChartsH is the least height the charts keep when the length line takes rows.
const minChartsH = 6

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
	parts := []string{st.Dim.Render(title + ":")}
	for _, l := range r.Eval.Lengths {
		parts = append(parts, st.Title.Render(fmt.Sprintf("K=%d", l.K))+
			" (a) "+look.Num(float64(l.BitErrorPosition), 3)+
			" (b) "+look.Num(float64(l.BitErrorSample), 3)+
			" KL "+look.Num(float64(l.KLBits), 3))
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

// mean is the average of the finite values (NaN when there are none).
func mean(xs []float64) float64 { return derived.MeanFinite(xs) }
