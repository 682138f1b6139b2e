package tui

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
)

// keyMsg builds the tea.KeyMsg for a key name as bubbletea spells it ("tab", "shift+left",
// " ", "q", ...).
func keyMsg(t testing.TB, name string) tea.KeyMsg {
	t.Helper()
	types := map[string]tea.KeyType{
		"tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab, "left": tea.KeyLeft, "right": tea.KeyRight,
		"up": tea.KeyUp, "down": tea.KeyDown, "shift+left": tea.KeyShiftLeft, "shift+right": tea.KeyShiftRight,
		"home": tea.KeyHome, "end": tea.KeyEnd, "enter": tea.KeyEnter, "esc": tea.KeyEsc, " ": tea.KeySpace,
		"ctrl+c": tea.KeyCtrlC, "backspace": tea.KeyBackspace,
	}
	if k, ok := types[name]; ok {
		return tea.KeyMsg{Type: k}
	}
	if len([]rune(name)) != 1 {
		t.Fatalf("unknown key %q", name)
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}

// press sends keys one by one, running each returned command and feeding back the
// messages other than Quit (sent events, mostly). It returns the model and the messages.
func press(t testing.TB, m Model, keys ...string) (Model, []tea.Msg) {
	t.Helper()
	var msgs []tea.Msg
	for _, k := range keys {
		nm, cmd := m.Update(keyMsg(t, k))
		m = nm.(Model)
		for _, msg := range runCmd(cmd) {
			msgs = append(msgs, msg)
			if _, quit := msg.(tea.QuitMsg); quit {
				continue
			}
			nm, _ = m.Update(msg)
			m = nm.(Model)
		}
	}
	return m, msgs
}

// typeStep presses g, the digits of step and enter.
func typeStep(t testing.TB, m Model, step int) Model {
	t.Helper()
	keys := []string{"g"}
	for _, r := range strconv.Itoa(step) {
		keys = append(keys, string(r))
	}
	m, _ = press(t, m, append(keys, "enter")...)
	return m
}

// runCmd runs a command (and the commands of a batch) and returns their messages.
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, runCmd(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// sized returns m after a WindowSizeMsg.
func sized(m Model, w, h int) Model {
	nm, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return nm.(Model)
}

// plain is the view without ANSI sequences.
func plain(m Model) string { return ansi.Strip(m.View()) }

// focusOn presses tab until the pane titled title has focus.
func focusOn(t testing.TB, m Model, title string) Model {
	t.Helper()
	for range len(m.panes) + 1 {
		if m.Focused() == title {
			return m
		}
		m, _ = press(t, m, "tab")
	}
	t.Fatalf("no pane %q", title)
	return m
}

// sent collects the events among messages.
func sent(msgs []tea.Msg) []sessions.Event {
	var out []sessions.Event
	for _, m := range msgs {
		if s, ok := m.(sentMsg); ok {
			out = append(out, s.ev)
		}
	}
	return out
}

// span returns the recorded span of a feed or fails.
func feedSpan(t testing.TB, f sessions.Feed) (int, int) {
	t.Helper()
	first, last, ok := f.Span()
	if !ok {
		t.Fatal("empty feed")
	}
	return first, last
}

// mustContain fails unless the view contains every string.
func mustContain(t testing.TB, view string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(view, w) {
			t.Errorf("view lacks %q:\n%s", w, view)
		}
	}
}

// sweep returns sizes in a full run and, under -short, the sample of them that short names
// (the edges: the smallest and largest, each layout's first size and the odd size below it);
// every size of short must be one of sizes.
func sweep(t testing.TB, sizes, short [][2]int) [][2]int {
	t.Helper()
	for _, s := range short {
		if !slices.Contains(sizes, s) {
			t.Fatalf("the -short sample's %d×%d is not among the sizes swept", s[0], s[1])
		}
	}
	if testing.Short() {
		return short
	}
	return sizes
}
