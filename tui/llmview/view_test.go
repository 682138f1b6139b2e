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

// hostile is an analyzer whose folder name, tokens and labels carry escape sequences, as a
// planted model folder's name or tokenizer.json may.
type hostile struct{ fake }

func (h *hostile) Describe() string { return "evil\x1b]0;pwned\x07dir: gpt_neox" }
func (h *hostile) Analyze(ctx context.Context, p string) (llmrun.Analysis, error) {
	a, err := h.fake.Analyze(ctx, p)
	a.Top[0].Token = " dax\x1b[2J\x1b]52;c;ZXZpbA==\x07"
	a.SULA.Labels[0] = "d\x1b]0;t\x07ax"
	return a, err
}

// TestViewSanitizes (issue 50 item 5): the view wrote a pasted prompt's escape sequences,
// the folder's name and the tokenizer's strings raw to the terminal on every redraw (a
// title set, an OSC 52 clipboard write, a cleared screen). Now every one is made safe to
// print (sessions.SafeText) and what is readable of it is kept.
func TestViewSanitizes(t *testing.T) {
	h := &hostile{}
	var m tea.Model = New(context.Background(), h, nil)
	m = step(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
	m = step(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("river: dax\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;title\x07 lemon:")})
	before := m.View()
	m = step(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	after := m.View()
	for name, v := range map[string]string{"typing": before, "result": after} {
		for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J"} {
			if strings.Contains(v, bad) {
				t.Errorf("%s: the view writes %q to the terminal:\n%q", name, bad, v)
			}
		}
	}
	plain := ansi.Strip(after)
	for _, want := range []string{"evildir: gpt_neox", "river: dax lemon:", "dax", "2 × dax"} {
		if !strings.Contains(plain, want) {
			t.Errorf("view lacks %q:\n%s", want, plain)
		}
	}
	if len(h.got) != 1 || !strings.Contains(h.got[0], "\x1b]52") {
		t.Errorf("the prompt analysed is %q: only its display is cleaned", h.got)
	}
}
