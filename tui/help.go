package tui

import (
	"math"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tui/look"
)

// shortHelp renders the one-line help: help and quit, the focused pane's keys, then the rest.
func shortHelp(h help.Model, k KeyMap, pane []key.Binding, w int) string {
	bs := []key.Binding{k.Help, k.Quit, k.Next}
	bs = append(bs, pane...)
	bs = append(bs, k.StepBack, k.StepFwd, k.Goto, k.Pause)
	return look.FitHelp(h, bs, w)
}

// quitHelp renders the one-line help of the quit dialog d (which takes every key while open).
func quitHelp(h help.Model, k KeyMap, d quitDialog, w int) string {
	return look.FitHelp(h, d.keys(k), w)
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
