package llmview

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions/llmrun"
)

type fake struct{ got []string }

func (f *fake) Describe() string { return "tiny: gpt_neox 2×32" }
func (f *fake) Example(i int) string {
	return []string{"river: dax, candle: dax. lemon:", "lemon:"}[i%2]
}
func (f *fake) Analyze(_ context.Context, p string) (llmrun.Analysis, error) {
	f.got = append(f.got, p)
	if p == "boom" {
		return llmrun.Analysis{}, errors.New("the prompt is 9999 tokens")
	}
	return llmrun.Analysis{Prompt: p, Entropy: 3.25, Top: []llmrun.Candidate{{Token: " dax", P: 0.7}, {Token: " wug", P: 0.2}},
		SULA:  &llmrun.SULAView{Labels: [2]string{"dax", "wug"}, N: [2]int{2, 0}, Exact: [2]float64{0.988, 0.012}, Model: [2]float64{0.78, 0.22}},
		Axis:  &llmrun.AxisView{Coord: 0, Min: -1, Max: 1, LowH: 0.1, HighH: 0.9},
		Focus: []float64{2.5, 1.25}, Uniform: 3}, nil
}

// step feeds msg to m and runs the command it returns, feeding its message back (one level).
func step(t *testing.T, m tea.Model, msg tea.Msg) tea.Model {
	t.Helper()
	m, cmd := m.Update(msg)
	if cmd != nil {
		if out := cmd(); out != nil {
			if _, quit := out.(tea.QuitMsg); !quit {
				m, _ = m.Update(out)
			}
		}
	}
	return m
}

func TestViewTypesAnalysesAndShows(t *testing.T) {
	f := &fake{}
	var m tea.Model = New(context.Background(), f, nil)
	m = step(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "Type a prompt") || !strings.Contains(v, "tiny: gpt_neox 2×32") {
		t.Fatalf("first view:\n%s", v)
	}
	m = step(t, m, tea.KeyMsg{Type: tea.KeyTab})
	m = step(t, m, tea.KeyMsg{Type: tea.KeyBackspace})
	m = step(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(":")})
	m = step(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	if len(f.got) != 1 || f.got[0] != "river: dax, candle: dax. lemon:" {
		t.Fatalf("analysed %q", f.got)
	}
	v := ansi.Strip(m.View())
	for _, want := range []string{"H = 3.25 bits", `" dax"`, "70.0%", "exact  dax     98.8%", "model  dax     78.0%", "2 × dax, 0 × wug",
		"H 0.10 [", "] H 0.90", "L0", "2.50 bits", "uniform over the prompt: 3.00 bits"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	// The axis marker sits mid-way for a coordinate mid-way.
	line := ""
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, "●") {
			line = l
		}
	}
	lo, dot, hi := strings.Index(line, "["), strings.Index(line, "●"), strings.Index(line, "]")
	if lo < 0 || hi < 0 || dot < 0 || abs(2*dot-lo-hi) > 6 {
		t.Errorf("axis marker not centred: %q", line)
	}
	// An error is shown, not fatal; ctrl+u clears; esc quits.
	m = step(t, m, tea.KeyMsg{Type: tea.KeyCtrlU})
	for _, r := range "boom" {
		m = step(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	m = step(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "error: the prompt is 9999 tokens") {
		t.Errorf("error not shown:\n%s", v)
	}
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if cmd == nil {
		t.Fatal("esc: no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("esc does not quit")
	}
	// A small terminal still draws.
	m = step(t, m, tea.WindowSizeMsg{Width: 20, Height: 5})
	if m.View() == "" {
		t.Error("empty view at 20×5")
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
