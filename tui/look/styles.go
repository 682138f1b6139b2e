package look

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
)

// Styles are the palette of the dashboard and the overlay. Colour only decorates: every
// distinction also shows in the glyphs, so both read the same under NO_COLOR.
type Styles struct {
	Title     lipgloss.Style
	Dim       lipgloss.Style
	Border    lipgloss.Style
	Focus     lipgloss.Style
	Tab       lipgloss.Style
	TabActive lipgloss.Style
	Warn      lipgloss.Style
	Good      lipgloss.Style
	SeriesA   lipgloss.Style // bit error (a)
	SeriesB   lipgloss.Style // bit error (b)
	SeriesKL  lipgloss.Style // KL(p*‖q)
	Model     lipgloss.Style // the model's entropy
	Bayes     lipgloss.Style // the Bayes posterior's entropy
	Cursor    lipgloss.Style
	Shades    [5]lipgloss.Style
	Bins      [4]lipgloss.Style // entropy bins, lowest first
	Lines     []lipgloss.Style  // one per line of multi-line charts (layers, sessions)
}

// NewStyles returns the default palette, rendered by r (nil: lipgloss's default renderer).
func NewStyles(r *lipgloss.Renderer) Styles {
	c := func(light, dark string) lipgloss.AdaptiveColor {
		return lipgloss.AdaptiveColor{Light: light, Dark: dark}
	}
	ns := lipgloss.NewStyle
	if r != nil {
		ns = r.NewStyle
	}
	s := Styles{
		Title:     ns().Bold(true),
		Dim:       ns().Foreground(c("245", "243")),
		Border:    ns().Foreground(c("250", "240")),
		Focus:     ns().Foreground(c("27", "39")).Bold(true),
		Tab:       ns().Foreground(c("245", "246")),
		TabActive: ns().Bold(true).Reverse(true),
		Warn:      ns().Foreground(c("160", "203")).Bold(true),
		Good:      ns().Foreground(c("28", "78")),
		SeriesA:   ns().Foreground(c("27", "39")),
		SeriesB:   ns().Foreground(c("130", "214")),
		SeriesKL:  ns().Foreground(c("90", "170")),
		Model:     ns().Foreground(c("27", "39")),
		Bayes:     ns().Foreground(c("240", "250")),
		Cursor:    ns().Reverse(true),
	}
	for i, col := range []string{"238", "24", "31", "38", "51"} {
		s.Shades[i] = ns().Foreground(lipgloss.Color(col))
	}
	for i, col := range []string{"27", "37", "178", "203"} {
		s.Bins[i] = ns().Foreground(lipgloss.Color(col))
	}
	for _, col := range []string{"39", "214", "170", "78", "203", "141", "45", "220"} {
		s.Lines = append(s.Lines, ns().Foreground(lipgloss.Color(col)))
	}
	return s
}

// NewHelp returns the key help with its styles rendered by r (nil: the default renderer).
func NewHelp(r *lipgloss.Renderer) help.Model {
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

// Paint is a style's escape sequences before and after a text, for wrapping long single
// lines cheaply (Style.Render works per cell).
type Paint struct{ pre, post string }

// PaintOf returns the sequences st puts around a single-line text without padding, margins
// or width (plain colours and attributes), as rendered now.
func PaintOf(st lipgloss.Style) Paint {
	r := st.Render("x")
	i := strings.Index(r, "x")
	if i < 0 {
		return Paint{}
	}
	return Paint{r[:i], r[i+1:]}
}

// Wrap returns s in the style.
func (p Paint) Wrap(s string) string {
	if s == "" {
		return ""
	}
	return p.pre + s + p.post
}
