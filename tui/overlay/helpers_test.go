package overlay

import (
	"os"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"windtunnel/sessions"
)

// TestMain draws without colour, so the views compare as text.
func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}

const fxSteps = 600

// openFixture opens the dashboard's recorded fixture session read-only.
func openFixture(t testing.TB) *sessions.Reader {
	t.Helper()
	r, err := sessions.Open("../testdata/fixture.wtlab")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// keyMsg builds the tea.KeyMsg for a key name as bubbletea spells it.
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

// mustContain fails unless the view contains every string.
func mustContain(t testing.TB, view string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(view, w) {
			t.Errorf("view lacks %q:\n%s", w, view)
		}
	}
}
