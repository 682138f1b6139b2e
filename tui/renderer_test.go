package tui

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"windtunnel/tui/look"
)

// TestRendererOption checks that Options.Renderer styles the dashboard for its own terminal:
// a 256-colour renderer paints with 256-colour sequences while the process's default
// renderer (Ascii in these tests) does not, and the text is the same either way.
func TestRendererOption(t *testing.T) {
	r := openFixture(t)
	plainView := New(r, Options{}).View()
	if strings.Contains(plainView, "\x1b[38;5;") {
		t.Fatalf("the default renderer (Ascii) painted colours")
	}
	colour := lipgloss.NewRenderer(io.Discard)
	colour.SetColorProfile(termenv.ANSI256)
	m := New(r, Options{Renderer: colour})
	if !strings.Contains(m.View(), "\x1b[38;5;") {
		t.Errorf("a 256-colour renderer painted no 256-colour sequences")
	}
	if got, want := plain(m), plainView; got != want {
		t.Errorf("the text differs with a renderer:\n%s\nwant\n%s", got, want)
	}
	help := look.NewHelp(colour).ShortHelpView(DefaultKeys().global())
	if !strings.Contains(help, "\x1b[") {
		t.Errorf("the help is not styled by the renderer: %q", help)
	}
}
