package runpicker

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions/index"
	"windtunnel/tui"
)

// TestBrowserOpensAndComesBack: enter on a run opens its replay in the embedded dashboard;
// leaving the dashboard (tui.LeftMsg) comes back to the list and lists the runs again;
// a run that cannot be opened is named on the list's screen.
func TestBrowserOpensAndComesBack(t *testing.T) {
	fixture, err := filepath.Abs("../testdata/fixture.wtlab")
	if err != nil {
		t.Fatal(err)
	}
	runs := []index.Run{{State: "done", Task: "bijection", Model: "transformer", Path: fixture},
		{State: "done", Task: "bijection", Model: "transformer", Path: filepath.Join(t.TempDir(), "gone.wtlab")}}
	listed := 0
	list := func(context.Context) ([]index.Run, error) { listed++; return runs, nil }
	b := NewBrowser(context.Background(), list, Options{Title: "picker"}, tui.Options{Width: 80, Height: 24}, nil)
	var m tea.Model = b
	m, _ = m.Update(RunsMsg{Runs: runs})
	step := func(msg tea.Msg) {
		var cmd tea.Cmd
		m, cmd = m.Update(msg)
		for i := 0; cmd != nil && i < 3; i++ { // follow the command's message (open, list)
			out := cmd()
			if _, ok := out.(tea.BatchMsg); ok || out == nil {
				return
			}
			m, cmd = m.Update(out)
		}
	}
	step(tea.KeyMsg{Type: tea.KeyEnter})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "REPLAY") {
		t.Fatalf("enter did not open the dashboard:\n%s", v)
	}
	br := m.(Browser)
	step(dashMsg{gen: br.gen, msg: tui.LeftMsg{}})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "picker") || strings.Contains(v, "REPLAY") || listed == 0 {
		t.Fatalf("leaving the dashboard did not come back to the list (listed %d):\n%s", listed, v)
	}
	step(tea.KeyMsg{Type: tea.KeyDown})
	step(tea.KeyMsg{Type: tea.KeyEnter})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "gone.wtlab") || strings.Contains(v, "REPLAY") {
		t.Fatalf("a run that cannot be opened is not named:\n%s", v)
	}
	m.(Browser).Close()
}
