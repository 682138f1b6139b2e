package llmview

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
	"windtunnel/sessions/llmrun"
	"windtunnel/tui/look"
)

// Analyzer computes a prompt's Analysis.
type Analyzer interface {
	Analyze(ctx context.Context, prompt string) (llmrun.Analysis, error)
	// Example returns the i-th SULA prompt to start from.
	Example(i int) string
	// Describe names the model in one line.
	Describe() string
}

// Model is the view's bubbletea model.
type Model struct {
	a       Analyzer
	ctx     context.Context
	in      []rune
	st      look.Styles
	w, h    int
	busy    bool
	res     *llmrun.Analysis
	err     error
	example int
}

// New returns the view over a; ctx bounds every analysis.
func New(ctx context.Context, a Analyzer, r *lipgloss.Renderer) Model {
	return Model{a: a, ctx: ctx, st: look.NewStyles(r), w: 100, h: 30}
}

// resultMsg carries a finished analysis.
type resultMsg struct {
	res llmrun.Analysis
	err error
}

// Init implements tea.Model.
func (m Model) Init() tea.Cmd { return nil }

// maxInput is the longest prompt typed.
const maxInput = 4000

// Update implements tea.Model.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		return m, nil
	case resultMsg:
		m.busy = false
		m.err = msg.err
		if msg.err == nil {
			r := msg.res
			m.res = &r
		}
		return m, nil
	case tea.KeyMsg:
		switch msg.Type {
		case tea.KeyCtrlC, tea.KeyEsc:
			return m, tea.Quit
		case tea.KeyTab:
			m.in = []rune(m.a.Example(m.example))
			m.example++
			return m, nil
		case tea.KeyBackspace:
			if len(m.in) > 0 {
				m.in = m.in[:len(m.in)-1]
			}
			return m, nil
		case tea.KeyCtrlU:
			m.in = nil
			return m, nil
		case tea.KeySpace:
			if len(m.in) < maxInput {
				m.in = append(m.in, ' ')
			}
			return m, nil
		case tea.KeyRunes:
			if len(m.in)+len(msg.Runes) <= maxInput {
				m.in = append(m.in, msg.Runes...)
			}
			return m, nil
		case tea.KeyEnter:
			p := string(m.in)
			if m.busy || strings.TrimSpace(p) == "" {
				return m, nil
			}
			m.busy = true
			a, ctx := m.a, m.ctx
			return m, func() tea.Msg {
				res, err := a.Analyze(ctx, p)
				return resultMsg{res: res, err: err}
			}
		}
	}
	return m, nil
}

// View implements tea.Model: exactly the terminal's size (the header, the panes, the prompt
// line and the key line), so nothing scrolls the header away; below 4 lines only the prompt
// and key lines.
func (m Model) View() string {
	w, h := m.w, m.h
	if w <= 0 || h <= 0 {
		return ""
	}
	status := "enter: analyse · tab: a SULA prompt · ctrl+u: clear · esc: quit"
	if m.busy {
		status = "analysing… " + status
	}
	// Every string from the model's folder (its name, its tokenizer's tokens) or typed
	// (pasted) by the user is made safe to print (sessions.SafeText): an escape sequence in
	// one would set the terminal's title or write its clipboard on every redraw.
	input := look.PadLine(look.CutLeft("› "+sessions.SafeText(string(m.in))+"▏", w), w)
	foot := input + "\n" + m.st.Dim.Render(look.PadLine(status, w))
	bodyH := h - 3
	if bodyH < 1 {
		return look.Fit(foot, w, h)
	}
	head := look.PadLine(m.st.Title.Render("windtunnel llm view")+"  "+m.st.Dim.Render(sessions.SafeText(m.a.Describe())), w)
	var body string
	switch {
	case m.err != nil:
		body = look.Fit(m.st.Warn.Render("error: ")+sessions.SafeLines(m.err.Error()), w, bodyH)
	case m.res == nil:
		body = look.Fit("Type a prompt and press enter. A SULA prompt (\"river: L1, candle: L2. lemon:\", tab for one)\n"+
			"shows the model's posterior over the two labels against the exact one.", w, bodyH)
	default:
		body = m.panes(w, bodyH)
	}
	return head + "\n" + body + "\n" + foot
}

// panes lays the analysis out in boxes, exactly w×h: next token and SULA beside each other
// (at least 7 rows, so SULA's five lines show), then the entropy axis and the focusing under
// them while 3 rows are left for each.
func (m Model) panes(w, h int) string {
	r := m.res
	left := w / 2
	right := w - left
	top := min(12, max(7, h-3-(len(r.Focus)+3)), h)
	next := look.Box(fmt.Sprintf("next token · H = %s bits", look.Num(r.Entropy, 2)), m.topText(left-2), left, top, false, m.st)
	sulaBox := look.Box("SULA posterior", m.sulaText(right-2, top-2), right, top, false, m.st)
	blocks := []string{look.HCat(next, sulaBox)}
	rest := h - top
	if rest >= 3 {
		axisTitle := "entropy axis"
		if r.Axis != nil && r.Axis.Reference != "" {
			axisTitle += " (PC1 of " + r.Axis.Reference + ", by posterior entropy)"
		}
		blocks = append(blocks, look.Box(axisTitle, m.axisText(w-2), w, 3, false, m.st))
		rest -= 3
	}
	switch {
	case rest >= 3:
		blocks = append(blocks, look.Box("focusing: attention entropy at the last position by layer", m.focusText(w-2, rest-2), w, rest, false, m.st))
	case rest > 0: // no room for the panes below: say what a taller terminal shows
		blocks = append(blocks, m.st.Dim.Render(look.PadLine(fmt.Sprintf("⋯ not shown: the entropy axis and %d layers' focusing (a taller terminal shows them)", len(r.Focus)), w)))
	}
	return look.Fit(look.VCat(blocks...), w, h)
}

// cells is s cut to at most n cells (by display width, never within a character, "…" where
// cut) and padded to n: a wide or multi-byte token keeps the columns after it in place.
func cells(s string, n int) string {
	s = ansi.Truncate(sessions.SafeText(s), n, "…")
	return s + strings.Repeat(" ", max(0, n-ansi.StringWidth(s)))
}

// bar is a bar of width w·p (p in [0, 1]) in eighths.
func bar(p float64, w int) string {
	if math.IsNaN(p) || w <= 0 {
		return ""
	}
	p = math.Max(0, math.Min(1, p))
	eighths := int(math.Round(p * float64(w) * 8))
	s := strings.Repeat("█", eighths/8)
	if r := eighths % 8; r > 0 {
		s += string([]rune("▏▎▍▌▋▊▉")[r-1])
	}
	return s
}

func (m Model) topText(w int) string {
	var lines []string
	for _, c := range m.res.Top {
		tok := cells(fmt.Sprintf("%q", c.Token), 14)
		lines = append(lines, fmt.Sprintf("%s %5.1f%% %s", tok, 100*c.P, bar(c.P, max(0, w-23))))
	}
	return strings.Join(lines, "\n")
}

// sulaText is the SULA pane's text in w×rows cells: the examples, then exact and model per
// label (five lines), or with fewer rows exact and model of a label on one line, so that
// both labels always show.
func (m Model) sulaText(w, rows int) string {
	s := m.res.SULA
	if s == nil {
		return "not a SULA prompt: end it with \"word:\" after examples \"word: " + "label\"."
	}
	ex := fmt.Sprintf("examples: %d × %s, %d × %s", s.N[0], sessions.SafeText(s.Labels[0]), s.N[1], sessions.SafeText(s.Labels[1]))
	if rows < 5 {
		row := func(i int) string {
			return fmt.Sprintf("%s exact %5.1f%% · model %5.1f%%", cells(s.Labels[i], 6), 100*s.Exact[i], 100*s.Model[i])
		}
		return strings.Join([]string{row(0), row(1), ex}[:max(min(rows, 3), 2)], "\n")
	}
	bw := max(0, w-24)
	line := func(kind string, i int, p float64) string {
		return fmt.Sprintf("%s  %s %5.1f%% %s", kind, cells(s.Labels[i], 6), 100*p, bar(p, bw))
	}
	return strings.Join([]string{ex,
		line("exact", 0, s.Exact[0]), line("model", 0, s.Model[0]),
		line("exact", 1, s.Exact[1]), line("model", 1, s.Model[1]),
	}, "\n")
}

func (m Model) axisText(w int) string {
	a := m.res.Axis
	if a == nil || !(a.Max > a.Min) {
		return "no reference axis"
	}
	left := fmt.Sprintf("H %s ", look.Num(a.LowH, 2))
	right := fmt.Sprintf(" H %s", look.Num(a.HighH, 2))
	span := max(3, w-len(left)-len(right)-2)
	pos := int(math.Round((a.Coord - a.Min) / (a.Max - a.Min) * float64(span-1)))
	line := []rune(strings.Repeat("─", span))
	out := ""
	switch {
	case pos < 0:
		out = "◀" + string(line[1:])
	case pos >= span:
		out = string(line[:span-1]) + "▶"
	default:
		line[pos] = '●'
		out = string(line)
	}
	return left + "[" + out + "]" + right
}

// focusText is the focusing pane's text in w×rows cells: a line per layer and the uniform
// level, or, when the layers do not all fit, as many as do and a line saying which are not
// shown.
func (m Model) focusText(w, rows int) string {
	r := m.res
	if len(r.Focus) == 0 || rows <= 0 {
		return ""
	}
	n := len(r.Focus)
	shown := n
	if n+1 > rows {
		shown = max(0, rows-1)
	}
	var lines []string
	bw := max(0, w-22)
	for l, h := range r.Focus[:shown] {
		frac := 0.0
		if r.Uniform > 0 {
			frac = h / r.Uniform
		}
		lines = append(lines, fmt.Sprintf("L%-3d %5s bits %s", l, look.Num(h, 2), bar(frac, bw)))
	}
	uniform := fmt.Sprintf("uniform over the prompt: %s bits (a full bar)", look.Num(r.Uniform, 2))
	if shown < n {
		uniform = fmt.Sprintf("⋯ L%d–L%d not shown (%d layers; a taller terminal shows all) · %s", shown, n-1, n, uniform)
	}
	return strings.Join(append(lines, uniform), "\n")
}

// Options configure Run.
type Options struct {
	Input     io.Reader
	Output    io.Writer
	AltScreen bool
}

// Run shows the view until the user quits or ctx is done.
func Run(ctx context.Context, a Analyzer, opt Options) error {
	var popts []tea.ProgramOption
	if opt.Input != nil {
		popts = append(popts, tea.WithInput(opt.Input))
	}
	if opt.Output != nil {
		popts = append(popts, tea.WithOutput(opt.Output))
	}
	if opt.AltScreen {
		popts = append(popts, tea.WithAltScreen())
	}
	popts = append(popts, tea.WithContext(ctx))
	_, err := tea.NewProgram(New(ctx, a, nil), popts...).Run()
	if err == tea.ErrProgramKilled && ctx.Err() != nil {
		return nil
	}
	return err
}
