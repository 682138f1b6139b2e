package tui

import (
	"math"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tui/look"
)

// shortHelp renders the one-line help: help and quit, the focused pane's keys, then the rest.
func shortHelp(h help.Model, k KeyMap, pane []key.Binding, w int) string {
	bs := []key.Binding{k.Help, k.Quit, k.Next}
	bs = append(bs, pane...)
	bs = append(bs, k.StepBack, k.StepFwd, k.Goto, k.Pause)
	return fitHelp(h, bs, w)
}

// quitHelp renders the one-line help of the quit dialog d (which takes every key while open).
func quitHelp(h help.Model, k KeyMap, d quitDialog, w int) string { return fitHelp(h, d.keys(k), w) }

// fitHelp renders in one line of at most w cells the bindings that fit, in order, leaving
// out whole ones that do not (no ellipsis, nothing cut).
func fitHelp(h help.Model, bs []key.Binding, w int) string {
	sep := ansi.StringWidth(h.ShortSeparator)
	var keep []key.Binding
	n := 0
	for _, b := range bs {
		if !b.Enabled() {
			continue
		}
		add := ansi.StringWidth(b.Help().Key) + 1 + ansi.StringWidth(b.Help().Desc)
		if len(keep) > 0 {
			add += sep
		}
		if n+add <= w {
			keep, n = append(keep, b), n+add
		}
	}
	h.Width = 0
	return h.ShortHelpView(keep)
}

// Legend is the full help's legend for runs of m's task, shared with the comparison view:
// what the numbers on screen are, which bit error is the paper's headline and which the
// authors' code reports, the pass line the verdicts use and, for a bijection, the
// context-free level (derived.ContextFreeOf m, or a Bayes curve of bayesLen positions).
func Legend(m sessions.Meta, bayesLen int) look.HelpGroup {
	text := []string{ // the most needed first: a small help shows what fits, in order
		"(a) bit error per position: |mean H(q) − mean H(p*)| at each position, averaged; the paper's headline",
		"(b) bit error per sample: mean |H(q) − H(p*)|; what the authors' retrain code reports",
		"pass " + derived.CriterionOf(m.Task).Rule(),
		"H entropy; q the model, p* the exact posterior",
		"KL mean KL(p*‖q)",
	}
	if cf := derived.ContextFreeOf(m, bayesLen); !math.IsNaN(cf) {
		text = append(text, "no context "+look.Num(cf, 3)+", the best guess without the context")
	}
	return look.HelpGroup{Title: "Legend, in bits", Text: text}
}
