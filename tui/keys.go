package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// KeyMap is the one key table of the dashboard: Update dispatches on these bindings and the
// help views are generated from them, so the two cannot disagree.
type KeyMap struct {
	Quit  key.Binding
	Help  key.Binding
	Next  key.Binding
	Prev  key.Binding
	Pause key.Binding
	Back  key.Binding

	PageNext key.Binding
	PagePrev key.Binding
	Jump     key.Binding

	StepBack key.Binding
	StepFwd  key.Binding
	BigBack  key.Binding
	BigFwd   key.Binding
	First    key.Binding
	Last     key.Binding
	Goto     key.Binding
	Enter    key.Binding
	Erase    key.Binding

	// ZoomMark marks an end of the step range the charts over steps zoom to (twice: both
	// ends); ZoomReset shows the whole run again.
	ZoomMark  key.Binding
	ZoomReset key.Binding

	// LogY toggles the log-Y scale of the dashboard's charts that have one; LogScale is the
	// comparison view's log-scale key (overlay.go).
	LogY     key.Binding
	LogScale key.Binding

	PerHead  key.Binding
	Scroll   key.Binding
	Axis     key.Binding
	PerLayer key.Binding
	// Simplex switches the value-manifold pane to the belief simplex on hmm runs and back.
	Simplex key.Binding

	Up      key.Binding
	Down    key.Binding
	Left    key.Binding
	Right   key.Binding
	Toggle  key.Binding
	Restore key.Binding

	// SmoothMore and SmoothLess step the moving average of the focused pane's chart (the
	// loss, the gradient norm) through look.Smoothings.
	SmoothMore key.Binding
	SmoothLess key.Binding

	// The quit dialog of a live run (q, ctrl+c): detach, stop the run, cancel; on a paused
	// run, resume and detach.
	Detach       key.Binding
	StopRun      key.Binding
	Cancel       key.Binding
	ResumeDetach key.Binding
}

// DefaultKeys returns the dashboard's key table. It follows the conventions of LEET-style
// training dashboards: h and ? open the help, y toggles the log-Y scale. (Before, h toggled
// the per-head key bars, now e, and y the manifold's PC2/PC3 axis, now a; l still toggles
// the log scale.)
func DefaultKeys() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Quit:  b([]string{"q", "ctrl+c"}, "q", "quit"),
		Help:  b([]string{"?", "h"}, "?/h", "help"),
		Next:  b([]string{"tab"}, "tab", "next pane"),
		Prev:  b([]string{"shift+tab"}, "⇧tab", "previous pane"),
		Pause: b([]string{"p"}, "p", "pause/resume"),
		Back:  b([]string{"esc"}, "esc", "back / follow"),

		PageNext: b([]string{"]"}, "]", "next page"),
		PagePrev: b([]string{"["}, "[", "previous page"),
		Jump:     b([]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "0"}, "1–9,0", "pane N (0: 10th)"),

		StepBack: b([]string{"left", ","}, "←/,", "step back"),
		StepFwd:  b([]string{"right", "."}, "→/.", "step forward"),
		BigBack:  b([]string{"shift+left", "<"}, "⇧←/<", "big step back"),
		BigFwd:   b([]string{"shift+right", ">"}, "⇧→/>", "big step forward"),
		First:    b([]string{"home"}, "home", "first step"),
		Last:     b([]string{"end"}, "end", "newest step, follow"),
		Goto:     b([]string{"g"}, "g", "go to step"),
		Enter:    b([]string{"enter"}, "enter", "confirm step"),
		Erase:    b([]string{"backspace"}, "bksp", "erase digit"),

		ZoomMark:  b([]string{"z"}, "z", "zoom: mark range end"),
		ZoomReset: b([]string{"Z"}, "Z", "zoom out: whole run"),

		LogY:     b([]string{"y", "l"}, "y/l", "log Y"),
		LogScale: b([]string{"l"}, "l", "log scale"),

		PerHead:  b([]string{"e"}, "e", "per-head keys"),
		Scroll:   b([]string{"up", "down", "k", "j"}, "↑/↓/k/j", "scroll bars"),
		Axis:     b([]string{"a"}, "a", "PC2/PC3 axis"),
		PerLayer: b([]string{"f"}, "f", "per-layer frame"),
		Simplex:  b([]string{"b"}, "b", "belief simplex"),

		Up:      b([]string{"up", "k"}, "↑/k", "cursor up"),
		Down:    b([]string{"down", "j"}, "↓/j", "cursor down"),
		Left:    b([]string{"left"}, "←", "cursor left"),
		Right:   b([]string{"right"}, "→", "cursor right"),
		Toggle:  b([]string{" "}, "space", "toggle head"),
		Restore: b([]string{"r"}, "r", "restore all heads"),

		Detach:  b([]string{"d"}, "d", "detach (run goes on)"),
		StopRun: b([]string{"s"}, "s", "stop the run"),
		Cancel:  b([]string{"c"}, "c/esc", "cancel"),

		ResumeDetach: b([]string{"r"}, "r", "resume, detach"),

		SmoothMore: b([]string{"+", "="}, "+", "smooth more (EMA)"),
		SmoothLess: b([]string{"-"}, "−", "smooth less"),
	}
}

// watchOnly returns the table for a viewer who may only watch: the keys that act on the run
// (pause, head toggle, restore, stop) disabled, so that they neither match nor show in help.
func (k KeyMap) watchOnly() KeyMap {
	for _, b := range []*key.Binding{&k.Pause, &k.Toggle, &k.Restore, &k.StopRun, &k.ResumeDetach} {
		b.SetEnabled(false)
	}
	return k
}

// actsOnRun reports whether msg is one of the keys that act on the run in the full table
// (those watchOnly disables).
func actsOnRun(msg tea.KeyMsg) bool {
	k := DefaultKeys()
	return key.Matches(msg, k.Pause, k.Toggle, k.Restore)
}

// enabled returns the bindings of bs that are enabled.
func enabled(bs []key.Binding) []key.Binding {
	var out []key.Binding
	for _, b := range bs {
		if b.Enabled() {
			out = append(out, b)
		}
	}
	return out
}

// global lists the keys that work everywhere, for the help screen.
func (k KeyMap) global() []key.Binding {
	quit := k.Quit // the full help says more than the footer: on a live run q asks first
	quit.SetHelp("q/^c", "quit/detach")
	return []key.Binding{k.Help, quit, k.Next, k.Prev, k.PageNext, k.PagePrev, k.Jump, k.Pause, k.Back}
}

// quitDialog lists the keys of the quit dialog, for its footer and the full help.
func (k KeyMap) quitDialog() []key.Binding { return []key.Binding{k.Detach, k.StopRun, k.Cancel} }

// jumpIndex returns the pane index (0-based) a digit key names, or -1.
func jumpIndex(msg tea.KeyMsg) int {
	if msg.Type != tea.KeyRunes || len(msg.Runes) != 1 {
		return -1
	}
	r := msg.Runes[0]
	switch {
	case r == '0':
		return 9
	case r < '1' || r > '9':
		return -1
	}
	return int(r - '1')
}
