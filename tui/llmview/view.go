package llmview

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

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

// View implements tea.Model.
func (m Model) View() string {
	w := max(40, m.w)
	var b strings.Builder
	// Every string from the model's folder (its name, its tokenizer's tokens) or typed
	// (pasted) by the user is made safe to print (sessions.SafeText): an escape sequence in
	// one would set the terminal's title or write its clipboard on every redraw.
	b.WriteString(look.PadLine(m.st.Title.Render("windtunnel llm view")+"  "+m.st.Dim.Render(sessions.SafeText(m.a.Describe())), w) + "\n")
	bodyH := max(6, m.h-4)
	switch {
	case m.err != nil:
		b.WriteString(look.Fit(m.st.Warn.Render("error: ")+sessions.SafeLines(m.err.Error()), w, bodyH) + "\n")
	case m.res == nil:
		b.WriteString(look.Fit("Type a prompt and press enter. A SULA prompt (\"river: L1, candle: L2. lemon:\", tab for one)\n"+
			"shows the model's posterior over the two labels against the exact one.", w, bodyH) + "\n")
	default:
		b.WriteString(m.panes(w, bodyH) + "\n")
	}
	status := "enter: analyse · tab: a SULA prompt · ctrl+u: clear · esc: quit"
	if m.busy {
		status = "analysing… " + status
	}
	b.WriteString(look.CutLeft("› "+sessions.SafeText(string(m.in))+"▏", w) + "\n")
	b.WriteString(m.st.Dim.Render(look.PadLine(status, w)))
	return b.String()
}

// panes lays the analysis out in boxes: next token and SULA beside each other, the entropy
// axis and the focusing under them.
func (m Model) panes(w, h int) string {
	r := m.res
	left := w / 2
	right := w - left
	top := min(12, max(5, h-3-(len(r.Focus)+3)))
	next := look.Box(fmt.Sprintf("next token · H = %s bits", look.Num(r.Entropy, 2)), m.topText(left-2), left, top, false, m.st)
	sulaBox := look.Box("SULA posterior", m.sulaText(right-2), right, top, false, m.st)
	axisTitle := "entropy axis"
	if r.Axis != nil && r.Axis.Reference != "" {
		axisTitle += " (PC1 of " + r.Axis.Reference + ", by posterior entropy)"
	}
	axis := look.Box(axisTitle, m.axisText(w-2), w, 3, false, m.st)
	focus := look.Box("focusing: attention entropy at the last position by layer", m.focusText(w-2), w, max(3, h-top-3), false, m.st)
	return look.VCat(look.HCat(next, sulaBox), axis, focus)
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
		tok := fmt.Sprintf("%-14q", sessions.SafeText(c.Token))
		if r := []rune(tok); len(r) > 14 {
			tok = string(r[:14])
		}
		lines = append(lines, fmt.Sprintf("%s %5.1f%% %s", tok, 100*c.P, bar(c.P, max(0, w-23))))
	}
	return strings.Join(lines, "\n")
}

func (m Model) sulaText(w int) string {
	s := m.res.SULA
	if s == nil {
		return "not a SULA prompt: end it with \"word:\" after examples \"word: " + "label\"."
	}
	bw := max(0, w-24)
	l0, l1 := sessions.SafeText(s.Labels[0]), sessions.SafeText(s.Labels[1])
	return strings.Join([]string{
		fmt.Sprintf("examples: %d × %s, %d × %s", s.N[0], l0, s.N[1], l1),
		fmt.Sprintf("exact  %-6s %5.1f%% %s", l0, 100*s.Exact[0], bar(s.Exact[0], bw)),
		fmt.Sprintf("model  %-6s %5.1f%% %s", l0, 100*s.Model[0], bar(s.Model[0], bw)),
		fmt.Sprintf("exact  %-6s %5.1f%% %s", l1, 100*s.Exact[1], bar(s.Exact[1], bw)),
		fmt.Sprintf("model  %-6s %5.1f%% %s", l1, 100*s.Model[1], bar(s.Model[1], bw)),
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

func (m Model) focusText(w int) string {
	r := m.res
	if len(r.Focus) == 0 {
		return ""
	}
	var lines []string
	bw := max(0, w-22)
	for l, h := range r.Focus {
		frac := 0.0
		if r.Uniform > 0 {
			frac = h / r.Uniform
		}
		lines = append(lines, fmt.Sprintf("L%-3d %5s bits %s", l, look.Num(h, 2), bar(frac, bw)))
	}
	lines = append(lines, fmt.Sprintf("uniform over the prompt: %s bits (a full bar)", look.Num(r.Uniform, 2)))
	return strings.Join(lines, "\n")
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
