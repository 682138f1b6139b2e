package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap is the one key table of the dashboard: Update dispatches on these bindings and the
// help views are generated from them, so the two cannot disagree.
type keyMap struct {
	Quit  key.Binding
	Help  key.Binding
	Next  key.Binding
	Prev  key.Binding
	Pause key.Binding
	Back  key.Binding

	StepBack key.Binding
	StepFwd  key.Binding
	BigBack  key.Binding
	BigFwd   key.Binding
	First    key.Binding
	Last     key.Binding
	Goto     key.Binding
	Enter    key.Binding
	Erase    key.Binding

	LogScale key.Binding

	Up      key.Binding
	Down    key.Binding
	Left    key.Binding
	Right   key.Binding
	Toggle  key.Binding
	Restore key.Binding
}

// defaultKeys returns the dashboard's key table.
func defaultKeys() keyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Quit:  b([]string{"q", "ctrl+c"}, "q", "quit"),
		Help:  b([]string{"?"}, "?", "help"),
		Next:  b([]string{"tab"}, "tab", "next pane"),
		Prev:  b([]string{"shift+tab"}, "⇧tab", "previous pane"),
		Pause: b([]string{"p"}, "p", "pause/resume"),
		Back:  b([]string{"esc"}, "esc", "back / follow"),

		StepBack: b([]string{"left", ","}, "←/,", "step back"),
		StepFwd:  b([]string{"right", "."}, "→/.", "step forward"),
		BigBack:  b([]string{"shift+left", "<"}, "⇧←", "big step back"),
		BigFwd:   b([]string{"shift+right", ">"}, "⇧→", "big step forward"),
		First:    b([]string{"home"}, "home", "first step"),
		Last:     b([]string{"end"}, "end", "newest step, follow"),
		Goto:     b([]string{"g"}, "g", "go to step"),
		Enter:    b([]string{"enter"}, "enter", "confirm step"),
		Erase:    b([]string{"backspace"}, "bksp", "erase digit"),

		LogScale: b([]string{"l"}, "l", "log scale"),

		Up:      b([]string{"up", "k"}, "↑/k", "cursor up"),
		Down:    b([]string{"down", "j"}, "↓/j", "cursor down"),
		Left:    b([]string{"left"}, "←", "cursor left"),
		Right:   b([]string{"right"}, "→", "cursor right"),
		Toggle:  b([]string{" "}, "space", "toggle head"),
		Restore: b([]string{"r"}, "r", "restore all heads"),
	}
}

// global lists the keys that work everywhere, for the help screen.
func (k keyMap) global() []key.Binding {
	return []key.Binding{k.Help, k.Quit, k.Next, k.Prev, k.Pause, k.Back}
}
