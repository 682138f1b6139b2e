package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
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

// newStyles returns the default palette, rendered by r (nil: lipgloss's default renderer).
func newStyles(r *lipgloss.Renderer) styles {
	c := func(light, dark string) lipgloss.AdaptiveColor {
		return lipgloss.AdaptiveColor{Light: light, Dark: dark}
	}
	ns := lipgloss.NewStyle
	if r != nil {
		ns = r.NewStyle
	}
	s := styles{
		title:     ns().Bold(true),
		dim:       ns().Foreground(c("245", "243")),
		border:    ns().Foreground(c("250", "240")),
		focus:     ns().Foreground(c("27", "39")).Bold(true),
		tab:       ns().Foreground(c("245", "246")),
		tabActive: ns().Bold(true).Reverse(true),
		warn:      ns().Foreground(c("160", "203")).Bold(true),
		good:      ns().Foreground(c("28", "78")),
		seriesA:   ns().Foreground(c("27", "39")),
		seriesB:   ns().Foreground(c("130", "214")),
		seriesKL:  ns().Foreground(c("90", "170")),
		model:     ns().Foreground(c("27", "39")),
		bayes:     ns().Foreground(c("240", "250")),
		cursor:    ns().Reverse(true),
	}
	for i, col := range []string{"238", "24", "31", "38", "51"} {
		s.shades[i] = ns().Foreground(lipgloss.Color(col))
	}
	for i, col := range []string{"27", "37", "178", "203"} {
		s.bins[i] = ns().Foreground(lipgloss.Color(col))
	}
	for _, col := range []string{"39", "214", "170", "78", "203", "141", "45", "220"} {
		s.lines = append(s.lines, ns().Foreground(lipgloss.Color(col)))
	}
	return s
}

// newHelp returns the key help with its styles rendered by r (nil: the default renderer).
func newHelp(r *lipgloss.Renderer) help.Model {
	h := help.New()
	if r == nil {
		return h
	}
	st := &h.Styles
	for _, s := range []*lipgloss.Style{&st.Ellipsis, &st.ShortKey, &st.ShortDesc, &st.ShortSeparator,
		&st.FullKey, &st.FullDesc, &st.FullSeparator} {
		*s = s.Renderer(r)
	}
	return h
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
