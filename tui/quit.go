package tui

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// quitAction is what the quit dialog's user chose.
type quitAction int

const (
	quitNone   quitAction = iota // nothing yet: the dialog stays open
	quitDetach                   // leave the dashboard; the run goes on (or stays paused)
	quitResume                   // resume a paused run, then leave it going
	quitStop                     // stop the run, then leave
	quitCancel                   // back to the dashboard
)

// defaultDetachNote says what detaching does when Options.DetachNote does not.
const defaultDetachNote = "close the dashboard; the run goes on and keeps recording its session"

// quitDialog is what q (or ctrl+c) opens on a live run instead of quitting: detach (the
// dashboard closes, the run goes on), stop the run, or cancel; on a paused run it says so
// and offers first to resume and detach, since a run left paused trains no more until
// someone resumes it. It is drawn over the middle of the screen; while it is open it takes
// every key.
type quitDialog struct {
	open   bool
	sel    int    // the highlighted option, an index into options
	note   string // what detaching does here, said of a training run
	noStop bool   // the viewer may not act on the run (Options.ReadOnly): no stop or resume
	// The run's state as its newest record gives it, read when the dialog opens and on
	// every refresh while it is open.
	paused      bool
	step, steps int
}

// setState takes the run's state from its newest record (ok false: none yet).
func (d *quitDialog) setState(latest sessions.Record, ok bool, steps int) {
	d.paused = ok && latest.State == sessions.Paused
	d.step, d.steps = latest.Step, steps
	d.sel = min(d.sel, len(d.options())-1)
}

// stateLine is the dialog's first line: the run's real state.
func (d quitDialog) stateLine() string {
	if d.paused {
		return fmt.Sprintf("The run is paused at step %d of %d.", d.step, d.steps)
	}
	return "The run is still training."
}

// quitOption is one line of the dialog.
type quitOption struct {
	key, name, text string
	act             quitAction
}

// options are the dialog's choices, detach first (the default: it loses nothing); on a
// paused run resume and detach comes first, and detach says the run stays paused.
func (d quitDialog) options() []quitOption {
	stop := quitOption{"s", "stop run", "final evaluation and checkpoint, then quit", quitStop}
	cancel := quitOption{"c", "cancel", "back to the dashboard (esc)", quitCancel}
	detach := quitOption{"d", "detach", d.note, quitDetach}
	var opts []quitOption
	if d.paused {
		detach.name = "detach, still paused"
		detach.text = fmt.Sprintf("close the dashboard; the run stays paused at step %d and trains again only when someone resumes it (p on its dashboard: windtunnel attach)", d.step)
		if !d.noStop {
			opts = append(opts, quitOption{"r", "resume and detach", "resume training, then " + d.note, quitResume})
		}
	}
	opts = append(opts, detach)
	if !d.noStop {
		opts = append(opts, stop)
	}
	return append(opts, cancel)
}

// has reports whether the dialog offers act.
func (d quitDialog) has(act quitAction) bool {
	for _, o := range d.options() {
		if o.act == act {
			return true
		}
	}
	return false
}

// title is the dialog's question.
func (d quitDialog) title() string {
	switch {
	case d.noStop:
		return "quit: detach from the run?"
	case d.paused:
		return "quit: resume, detach or stop the run?"
	}
	return "quit: detach or stop the run?"
}

// keys are the dialog's bindings, for its footer and the full help: resume and detach only
// where it is offered.
func (d quitDialog) keys(k KeyMap) []key.Binding {
	if !d.paused {
		return k.quitDialog()
	}
	detach := k.Detach
	detach.SetHelp(detach.Help().Key, "detach (stays paused)")
	if d.has(quitResume) {
		resume := k.ResumeDetach
		resume.SetHelp(resume.Help().Key, "resume and detach")
		return []key.Binding{resume, detach, k.StopRun, k.Cancel}
	}
	return []key.Binding{detach, k.StopRun, k.Cancel}
}

// update takes one key and returns the choice it makes, if any: d, s and c choose directly,
// the arrows and tab move the highlight and enter chooses it; esc, q and ctrl+c cancel.
func (d *quitDialog) update(msg tea.KeyMsg, k KeyMap) quitAction {
	opts := d.options()
	switch {
	case key.Matches(msg, k.Detach):
		return quitDetach
	case key.Matches(msg, k.ResumeDetach) && d.has(quitResume):
		return quitResume
	case key.Matches(msg, k.StopRun):
		return quitStop
	case key.Matches(msg, k.Cancel, k.Back, k.Quit):
		return quitCancel
	case key.Matches(msg, k.Enter):
		return opts[d.sel].act
	case key.Matches(msg, k.Up, k.Left, k.Prev):
		d.sel = (d.sel + len(opts) - 1) % len(opts)
	case key.Matches(msg, k.Down, k.Right, k.Next):
		d.sel = (d.sel + 1) % len(opts)
	}
	return quitNone
}

// view draws the dialog in a box at most w×h: the question, then each option with its key,
// the highlighted one marked ▶ and reversed (so it shows without colour).
func (d quitDialog) view(w, h int, st look.Styles) string {
	bw := min(w, 66)
	iw := bw - borderW
	if iw < 8 || h < borderH+1 {
		return ""
	}
	lines := []string{d.stateLine(), ""}
	for i, o := range d.options() {
		mark, label := "  ", "["+o.key+"] "+o.name
		if i == d.sel {
			mark, label = "▶ ", st.Cursor.Render(label)
		}
		text := ansi.Wrap(o.text, max(iw-5, 4), " ")
		rest := strings.Split(text, "\n")
		lines = append(lines, mark+label)
		for _, l := range rest {
			lines = append(lines, "    "+st.Dim.Render(l))
		}
	}
	bh := min(len(lines)+borderH, h)
	return look.Box(d.title(), strings.Join(lines, "\n"), bw, bh, true, st)
}

// place draws block (lines of equal width) over the middle of frame, exactly w×h.
func place(frame, block string, w, h int) string {
	if block == "" {
		return frame
	}
	rows := strings.Split(frame, "\n")
	bl := strings.Split(block, "\n")
	bw := ansi.StringWidth(bl[0])
	x, y := max((w-bw)/2, 0), max((h-len(bl))/2, 0)
	for i, l := range bl {
		if y+i >= len(rows) {
			break
		}
		r := rows[y+i]
		// Reset after the left part so its colours do not run into the box.
		rows[y+i] = look.PadLine(ansi.Cut(r, 0, x)+"\x1b[m"+l+ansi.Cut(r, x+bw, w), w)
	}
	return strings.Join(rows, "\n")
}

// runGoesOn reports whether quitting would leave a run going: the feed is live and the
// run has not ended.
func (m *Model) runGoesOn() bool {
	return !m.sh.replay && !m.sh.ended && m.sh.feed.Live()
}

// openQuit opens the quit dialog on the run's newest state.
func (m *Model) openQuit() {
	m.quit.open, m.quit.sel = true, 0
	m.quitState()
}

// quitState reads the run's newest state into the quit dialog.
func (m *Model) quitState() {
	latest, ok, err := m.sh.feed.At(-1)
	if err != nil {
		ok = false
	}
	m.quit.setState(latest, ok, m.sh.meta.Steps)
}

// quitKey handles a key while the quit dialog is open: detach quits at once (the run left
// paused when it was), resume and detach and stop send their event and quit once it has
// gone (eventSent), cancel closes the dialog.
func (m Model) quitKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch m.quit.update(msg, m.sh.keys) {
	case quitDetach:
		m.quit.open, m.detached = false, true
		m.leftPaused, m.leftAt = m.quit.paused, m.quit.step
		cmd = m.leave()
	case quitResume:
		m.quit.open, m.resuming = false, true
		m.status = "resuming the run…"
		cmd = sendCmd(m.sh.feed, sessions.Event{Step: m.quit.step, Kind: sessions.EventResume})
	case quitStop:
		m.quit.open, m.stopping = false, true
		m.status = "stopping the run…"
		step := 0
		if latest, ok, _ := m.sh.feed.At(-1); ok {
			step = latest.Step
		}
		cmd = sendCmd(m.sh.feed, sessions.Event{Step: step, Kind: sessions.EventStop})
	case quitCancel:
		m.quit.open = false
	}
	m.render()
	return m, cmd
}

// eventSent quits once the event chosen in the quit dialog has gone: resume (then the run
// goes on, detached) or stop (stopSent).
func (m *Model) eventSent(msg sentMsg) tea.Cmd {
	if m.resuming && msg.ev.Kind == sessions.EventResume {
		m.resuming = false
		if msg.err != nil { // refused: the dashboard stays, the reason on the status line
			return nil
		}
		m.detached, m.resumed = true, true
		return m.leave()
	}
	return m.stopSent(msg)
}

// stopSent quits once the stop event chosen in the dialog has been sent (or the run had
// ended meanwhile); a refused send (a viewer without the right to stop, a full queue)
// stays, with the reason on the status line.
func (m *Model) stopSent(msg sentMsg) tea.Cmd {
	if !m.stopping || msg.ev.Kind != sessions.EventStop {
		return nil
	}
	m.stopping = false
	if msg.err != nil && !(errors.Is(msg.err, sessions.ErrReadOnly) && !m.sh.feed.Live()) {
		return nil
	}
	m.stopped = true
	return m.leave()
}

// readOnlyNote is the status line's answer to a key that acts on the run pressed by a
// viewer who may only watch.
const readOnlyNote = "read-only: this viewer may watch, not pause, stop or switch heads"

// leave ends the dashboard: it quits the program, or, Embedded, sends LeftMsg with how the
// user left.
func (m Model) leave() tea.Cmd {
	if !m.embedded {
		return tea.Quit
	}
	st := m.Stats()
	return func() tea.Msg { return LeftMsg{Stats: st} }
}
