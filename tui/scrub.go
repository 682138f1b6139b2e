package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/tui/look"
)

// scrubber is the step scrubber under the panes: it moves the current step that every pane
// queries up to, and reads a step number after g.
type scrubber struct {
	sh    *shared
	input bool   // reading a step number after g
	buf   string // the digits typed so far
}

// newScrubber returns the scrubber driving sh.
func newScrubber(sh *shared) *scrubber { return &scrubber{sh: sh} }

// smallStep and bigStep are the scrub increments: 1/100 and 1/20 of the span the charts
// show (the recorded one, or the zoom).
func (s *scrubber) smallStep() int { lo, hi := s.sh.viewSpan(); return max(1, (hi-lo)/100) }
func (s *scrubber) bigStep() int   { lo, hi := s.sh.viewSpan(); return max(1, (hi-lo)/20) }

// moveTo leaves follow mode and sets the current step, kept inside the recorded span.
func (s *scrubber) moveTo(step int) {
	sh := s.sh
	if !sh.any {
		return
	}
	sh.follow = false
	sh.step = min(max(step, sh.first), sh.last)
}

// cancel ends number entry without moving.
func (s *scrubber) cancel() { s.input, s.buf = false, "" }

// Update handles the scrubbing keys and, after g, the digits of a step number. It reports
// whether the key was the scrubber's.
func (s *scrubber) Update(msg tea.KeyMsg) bool {
	k, sh := s.sh.keys, s.sh
	if s.input {
		switch {
		case key.Matches(msg, k.Enter):
			if n, err := strconv.Atoi(s.buf); err == nil {
				s.moveTo(n)
			}
			s.cancel()
		case key.Matches(msg, k.Erase):
			if s.buf != "" {
				s.buf = s.buf[:len(s.buf)-1]
			}
		case msg.Type == tea.KeyRunes && len(msg.Runes) > 0:
			for _, r := range msg.Runes {
				if r >= '0' && r <= '9' && len(s.buf) < 12 {
					s.buf += string(r)
				}
			}
		}
		return true // while typing a number, other keys do nothing
	}
	switch {
	case key.Matches(msg, k.StepBack):
		s.moveTo(sh.step - s.smallStep())
	case key.Matches(msg, k.StepFwd):
		s.moveTo(sh.step + s.smallStep())
	case key.Matches(msg, k.BigBack):
		s.moveTo(sh.step - s.bigStep())
	case key.Matches(msg, k.BigFwd):
		s.moveTo(sh.step + s.bigStep())
	case key.Matches(msg, k.First):
		s.moveTo(sh.first)
	case key.Matches(msg, k.Last):
		sh.follow = true
	case key.Matches(msg, k.Goto):
		s.input, s.buf = true, ""
	default:
		return false
	}
	return true
}

// Help lists the scrubber's keys.
func (s *scrubber) Help() []key.Binding {
	k := s.sh.keys
	return []key.Binding{k.StepBack, k.StepFwd, k.BigBack, k.BigFwd, k.First, k.Last, k.Goto, k.ZoomMark, k.ZoomReset}
}

// modeScrubbing is the scrubber's mode while the view does not follow, its longest.
const modeScrubbing = "scrubbing · end: follow"

// scrubRightW is the width of the text right of the bar: the span, first–last with last
// padded to dw digits, and the longest mode.
func scrubRightW(first, dw int) int {
	return ansi.StringWidth(fmt.Sprintf(" %d–", first)) + dw + ansi.StringWidth(" · "+modeScrubbing)
}

// layout is the scrubber line's text left and right of the bar, w cells wide, and the
// bar's width between them (under 5: no bar). The bar keeps its width whatever the mode
// and the current step: the step is padded to the digits of the span's end (or the
// planned steps) and the mode to the longest.
func (s *scrubber) layout(w int) (left, right string, bw int) {
	sh := s.sh
	mode := modeScrubbing
	if sh.follow {
		mode = "following"
		if sh.replay || sh.ended {
			mode = "at the end"
		}
	}
	dw := len(strconv.Itoa(max(sh.last, sh.meta.Steps)))
	left = fmt.Sprintf("step %*d ", dw, sh.step)
	zoom := "" // the zoom, where one is set: the bar still spans the whole run
	if z := sh.zoomText(); z != "" {
		zoom = " · " + z
	}
	right = look.PadLine(fmt.Sprintf(" %d–%d%s · %s", sh.first, sh.last, zoom, mode), scrubRightW(sh.first, dw)+ansi.StringWidth(zoom))
	return left, right, w - ansi.StringWidth(left) - ansi.StringWidth(right) - 2
}

// stepAt is the step the bar shows at column x of the scrubber line w cells wide (the
// mouse on it), kept inside the span; false off the bar.
func (s *scrubber) stepAt(x, w int) (int, bool) {
	sh := s.sh
	left, _, bw := s.layout(w)
	x0 := ansi.StringWidth(left) + 1 // after "["
	if s.input || !sh.any || bw < 5 || x < x0-1 || x > x0+bw {
		return 0, false
	}
	col := min(max(x-x0, 0), bw-1)
	return sh.first + int(math.Round(float64(col)*float64(sh.last-sh.first)/float64(bw-1))), true
}

// View renders the scrubber line, w cells wide.
func (s *scrubber) View(w int) string {
	sh := s.sh
	if s.input {
		return look.PadLine(fmt.Sprintf("go to step: %s▏ (%d–%d · enter: go · esc: cancel)", s.buf, sh.first, sh.last), w)
	}
	if !sh.any {
		return look.PadLine("step – (no records yet)", w)
	}
	left, right, bw := s.layout(w)
	if bw < 5 {
		return look.PadLine(strings.TrimRight(left+right, " "), w)
	}
	pos := 0
	if sh.last > sh.first {
		pos = (sh.step - sh.first) * (bw - 1) / (sh.last - sh.first)
	}
	// Exactly w cells by construction; the styles wrap the long runs without Render's
	// per-cell work (this line changes with every record while following).
	bar := look.PaintOf(sh.st.Focus).Wrap(strings.Repeat("━", pos)+"●") + look.PaintOf(sh.st.Dim).Wrap(strings.Repeat("─", bw-1-pos))
	return left + "[" + bar + "]" + right
}
