package llmview

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"windtunnel/sessions/llmrun"
)

// deep is a 24-layer model whose next tokens include CJK and emoji strings wider than the
// token column, so they must be cut by display width.
type deep struct{}

func (deep) Describe() string     { return "deep: llama 24×64" }
func (deep) Example(i int) string { return "river: dax. lemon:" }
func (deep) Analyze(_ context.Context, p string) (llmrun.Analysis, error) {
	focus := make([]float64, 24)
	for i := range focus {
		focus[i] = 3 - float64(i)/10
	}
	return llmrun.Analysis{Prompt: p, Entropy: 2.5,
		Top:   []llmrun.Candidate{{Token: " dax", P: 0.6}, {Token: "東京都庁舎の展望室", P: 0.2}, {Token: "日本", P: 0.1}, {Token: "🙂🙂🙂🙂🙂🙂", P: 0.05}, {Token: " wug", P: 0.05}},
		SULA:  &llmrun.SULAView{Labels: [2]string{"dax", "wug"}, N: [2]int{1, 0}, Exact: [2]float64{0.9, 0.1}, Model: [2]float64{0.7, 0.3}},
		Axis:  &llmrun.AxisView{Coord: 0.5, Min: -1, Max: 1, LowH: 0.1, HighH: 0.9},
		Focus: focus, Uniform: 4}, nil
}

// TestLayout compares the analysed view of a 24-layer model at 50×12, 80×24, 120×40 and
// 200×60 with testdata/TestLayout/*.golden (ANSI stripped; `go test ./tui/llmview -update`),
// and checks each frame: exactly the terminal's width and height (at 50×12 the header was
// scrolled away), valid UTF-8 with the tokens' % column in one place (tokens were cut by
// bytes, splitting 東 and shifting the column), both SULA labels' rows (the second was lost
// below 200×60), and the layers not shown named (80×24 showed L0–L9 with no sign of more).
func TestLayout(t *testing.T) {
	for _, sz := range [][2]int{{50, 12}, {80, 24}, {120, 40}, {200, 60}} {
		w, h := sz[0], sz[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			var m tea.Model = New(context.Background(), deep{}, nil)
			m = step(t, m, tea.WindowSizeMsg{Width: w, Height: h})
			m = step(t, m, tea.KeyMsg{Type: tea.KeyTab})
			m = step(t, m, tea.KeyMsg{Type: tea.KeyEnter})
			raw := m.View()
			if !utf8.ValidString(raw) {
				t.Errorf("invalid UTF-8 reaches the terminal: %q", raw)
			}
			v := ansi.Strip(raw)
			lines := strings.Split(v, "\n")
			if len(lines) != h {
				t.Errorf("%d lines, want %d", len(lines), h)
			}
			for i, l := range lines {
				if n := ansi.StringWidth(l); n != w {
					t.Errorf("line %d is %d cells, want %d: %q", i, n, w, l)
				}
			}
			if !strings.HasPrefix(lines[0], "windtunnel llm view") {
				t.Errorf("the header is not the first line: %q", lines[0])
			}
			pct := -1
			for _, l := range lines {
				if i := strings.Index(l, "%"); i >= 0 && strings.Contains(l, `"`) {
					col := ansi.StringWidth(l[:i])
					if pct >= 0 && col != pct {
						t.Errorf("the %% column moves: %d then %d in %q", pct, col, l)
					}
					pct = col
				}
			}
			for _, want := range []string{"dax", "wug", "exact", "model"} {
				n := 0
				for _, l := range lines {
					if strings.Contains(l, want) && (want == "exact" || want == "model" || strings.Contains(l, "%")) {
						n++
					}
				}
				if n < 2 {
					t.Errorf("the SULA pane shows %q on %d rows, want both labels' (≥ 2)", want, n)
				}
			}
			if shown := strings.Count(v, " bits "); h < 40 && !strings.Contains(v, "not shown") {
				t.Errorf("%d layers drawn of 24, and no sign of the others", shown-1)
			}
			golden.RequireEqual(t, []byte(v))
		})
	}
}
