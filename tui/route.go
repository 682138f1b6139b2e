package tui

import (
	"errors"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
)

// key dispatches one key through the key table.
func (m Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		// Fast typing arrives as one message ("g200"): take the runes one by one.
		var cmds []tea.Cmd
		for _, r := range msg.Runes {
			nm, cmd := m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
			m, cmds = nm.(Model), append(cmds, cmd)
		}
		return m, tea.Batch(cmds...)
	}
	if m.quit.open {
		return m.quitKey(msg)
	}
	sh, k := m.sh, m.sh.keys
	step, follow, zoom := sh.step, sh.follow, sh.zoom
	m.status = ""
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, k.Quit) && m.runGoesOn():
		m.openQuit() // ask: detach or stop?
	case key.Matches(msg, k.Quit):
		return m, m.leave()
	case m.scrub.input && key.Matches(msg, k.Back):
		m.scrub.cancel()
	case m.scrub.input:
		m.scrub.Update(msg)
	case !sh.canAct() && actsOnRun(msg):
		m.status = sh.actNote()
	case key.Matches(msg, k.Help):
		switch { // open, then the next page, then closed
		case !m.showHelp:
			m.showHelp, m.helpPage = true, 0
		case m.helpPage+1 < m.helpPages():
			m.helpPage++
		default:
			m.showHelp = false
		}
	case key.Matches(msg, k.Back):
		if m.showHelp {
			m.showHelp = false
		} else {
			sh.follow = true
		}
	case key.Matches(msg, k.Next):
		m.setFocus(m.focus + 1)
	case key.Matches(msg, k.Prev):
		m.setFocus(m.focus - 1)
	case key.Matches(msg, k.PageNext):
		m.setPage(m.page + 1)
	case key.Matches(msg, k.PagePrev):
		m.setPage(m.page - 1)
	case key.Matches(msg, k.Jump) && jumpIndex(msg) >= 0 && jumpIndex(msg) < len(m.panes):
		m.setFocus(jumpIndex(msg))
	case key.Matches(msg, k.Pause):
		cmd = m.pause()
	case key.Matches(msg, k.ZoomMark) && sh.any:
		m.status = sh.zoomKey()
	case key.Matches(msg, k.ZoomReset):
		m.status = sh.zoomReset()
	default:
		handled := false
		for i := range m.panes {
			j := (m.focus + i) % len(m.panes) // the focused pane first
			if ok, c := m.panes[j].Update(msg, j == m.focus); ok {
				handled, cmd = true, c
				break
			}
		}
		switch {
		case handled:
		case key.Matches(msg, k.SmoothMore, k.SmoothLess):
			m.status = "+/−: the smoothing of the focused chart's curve (Loss, LR & grad norm)"
		case key.Matches(msg, k.LogY):
			m.status = "y/l: the log-Y scale of the focused chart (Bit error, Loss, LR & grad norm)"
		default:
			m.scrub.Update(msg)
		}
	}
	if sh.step != step || sh.follow != follow || sh.zoom != zoom {
		m.refresh()
	}
	m.render()
	return m, cmd
}

// setFocus moves the focus to pane i (cyclically) and shows the page holding it.
func (m *Model) setFocus(i int) {
	n := len(m.panes)
	m.focus = ((i % n) + n) % n
	m.sh.focus = m.panes[m.focus].Title()
	if p := pageOf(m.focus); p >= 0 {
		m.page = p
	}
	if err := m.refreshScalars(); err != nil { // read now, not at the next refresh
		m.feedErr = err.Error()
	}
}

// setPage shows page i (cyclically) and focuses its first pane.
func (m *Model) setPage(i int) {
	n := len(pages)
	m.page = ((i % n) + n) % n
	m.setFocus(pages[m.page].first)
}

// pause asks the run to pause, or to resume when its newest record says it is paused.
func (m *Model) pause() tea.Cmd {
	latest, ok, err := m.sh.feed.At(-1)
	if err != nil {
		m.status = "pause: " + err.Error()
		return nil
	}
	kind := sessions.EventPause
	if ok && latest.State == sessions.Paused {
		kind = sessions.EventResume
	}
	return sendCmd(m.sh.feed, sessions.Event{Step: latest.Step, Kind: kind})
}

// sentText describes the outcome of a sent event for the status line.
func (m *Model) sentText(msg sentMsg) string {
	switch {
	case errors.Is(msg.err, sessions.ErrReadOnly) && m.sh.replay:
		return "replay: read-only"
	case errors.Is(msg.err, sessions.ErrReadOnly):
		return "run ended: read-only"
	case msg.err != nil:
		m.logger.Printf("tui: send %s: %v", msg.ev.Kind, msg.err)
		return "send failed: " + msg.err.Error()
	}
	switch msg.ev.Kind {
	case sessions.EventHead:
		state := "off"
		if msg.ev.On {
			state = "on"
		}
		return fmt.Sprintf("sent: %s %s", headName(msg.ev.Layer, msg.ev.Head), state)
	case sessions.EventRestore:
		return "sent: restore all heads"
	}
	return "sent: " + string(msg.ev.Kind)
}
