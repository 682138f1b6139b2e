package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// styles are the lipgloss styles shared by every pane. Colour only decorates: every
// distinction also shows in the glyphs, so the dashboard reads the same under NO_COLOR.
type styles struct {
	title     lipgloss.Style
	dim       lipgloss.Style
	border    lipgloss.Style
	focus     lipgloss.Style
	tab       lipgloss.Style
	tabActive lipgloss.Style
	warn      lipgloss.Style
	good      lipgloss.Style
	seriesA   lipgloss.Style
	seriesB   lipgloss.Style
	seriesKL  lipgloss.Style
	model     lipgloss.Style
	bayes     lipgloss.Style
	cursor    lipgloss.Style
	shades    [5]lipgloss.Style
	bins      [4]lipgloss.Style // entropy bins, lowest first
	lines     []lipgloss.Style  // one per line of multi-line charts (layers, sessions)
}

// newStyles returns the default palette.
func newStyles() styles {
	c := func(light, dark string) lipgloss.AdaptiveColor {
		return lipgloss.AdaptiveColor{Light: light, Dark: dark}
	}
	s := styles{
		title:     lipgloss.NewStyle().Bold(true),
		dim:       lipgloss.NewStyle().Foreground(c("245", "243")),
		border:    lipgloss.NewStyle().Foreground(c("250", "240")),
		focus:     lipgloss.NewStyle().Foreground(c("27", "39")).Bold(true),
		tab:       lipgloss.NewStyle().Foreground(c("245", "246")),
		tabActive: lipgloss.NewStyle().Bold(true).Reverse(true),
		warn:      lipgloss.NewStyle().Foreground(c("160", "203")).Bold(true),
		good:      lipgloss.NewStyle().Foreground(c("28", "78")),
		seriesA:   lipgloss.NewStyle().Foreground(c("27", "39")),
		seriesB:   lipgloss.NewStyle().Foreground(c("130", "214")),
		seriesKL:  lipgloss.NewStyle().Foreground(c("90", "170")),
		model:     lipgloss.NewStyle().Foreground(c("27", "39")),
		bayes:     lipgloss.NewStyle().Foreground(c("240", "250")),
		cursor:    lipgloss.NewStyle().Reverse(true),
	}
	for i, col := range []string{"238", "24", "31", "38", "51"} {
		s.shades[i] = lipgloss.NewStyle().Foreground(lipgloss.Color(col))
	}
	for i, col := range []string{"27", "37", "178", "203"} {
		s.bins[i] = lipgloss.NewStyle().Foreground(lipgloss.Color(col))
	}
	for _, col := range []string{"39", "214", "170", "78", "203", "141", "45", "220"} {
		s.lines = append(s.lines, lipgloss.NewStyle().Foreground(lipgloss.Color(col)))
	}
	return s
}

// paint is a style's escape sequences before and after a text, for wrapping long single
// lines cheaply (Style.Render works per cell).
type paint struct{ pre, post string }

// paintOf returns the sequences st puts around a single-line text without padding, margins
// or width (plain colours and attributes), as rendered now.
func paintOf(st lipgloss.Style) paint {
	r := st.Render("x")
	i := strings.Index(r, "x")
	if i < 0 {
		return paint{}
	}
	return paint{r[:i], r[i+1:]}
}

// wrap returns s in the style.
func (p paint) wrap(s string) string {
	if s == "" {
		return ""
	}
	return p.pre + s + p.post
}
