package tui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"windtunnel/sessions"
)

// quitDialogText is a line only the quit dialog shows.
const quitDialogText = "The run is still training."

// quits reports whether the messages hold tea.QuitMsg.
func quits(msgs []tea.Msg) bool {
	for _, m := range msgs {
		if _, ok := m.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

// pressOnly sends keys one by one and returns the messages their commands give, without
// feeding them back (so the outcome of a sent event can be fed by hand).
func pressOnly(t *testing.T, m Model, keys ...string) (Model, []tea.Msg) {
	t.Helper()
	var msgs []tea.Msg
	for _, k := range keys {
		nm, cmd := m.Update(keyMsg(t, k))
		m = nm.(Model)
		msgs = append(msgs, runCmd(cmd)...)
	}
	return m, msgs
}

// TestQuitDialog drives the quit dialog of a live run with keys: q or ctrl+c opens it and
// quits nothing; d detaches (quit, no event sent, Detached set); s sends the stop event and
// quits once it has gone (Stopped set); esc, c and q close it and the run goes on; the
// arrows and enter choose too.
func TestQuitDialog(t *testing.T) {
	cases := []struct {
		keys     []string
		quit     bool // the keys end the program at once
		stop     bool // a stop event is sent (the program ends once it has gone)
		detached bool
		open     bool // the dialog is still open
	}{
		{keys: []string{"q"}, open: true},
		{keys: []string{"ctrl+c"}, open: true},
		{keys: []string{"q", "d"}, quit: true, detached: true},
		{keys: []string{"ctrl+c", "d"}, quit: true, detached: true},
		{keys: []string{"q", "s"}, stop: true},
		{keys: []string{"q", "esc"}},
		{keys: []string{"q", "c"}},
		{keys: []string{"q", "q"}},
		{keys: []string{"q", "ctrl+c"}},
		{keys: []string{"q", "tab", "l", "p"}, open: true}, // other keys do nothing meanwhile
		{keys: []string{"q", "enter"}, quit: true, detached: true},
		{keys: []string{"q", "down", "enter"}, stop: true},
		{keys: []string{"q", "right", "right", "enter"}},
		{keys: []string{"q", "up", "up", "enter"}, stop: true},
		{keys: []string{"q", "esc", "q"}, open: true},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.keys, "_"), func(t *testing.T) {
			l, got := liveFixture(t, liveCut(t))
			m0 := sized(New(l, Options{}), 80, 24)
			m, msgs := pressOnly(t, m0, c.keys...)
			if quits(msgs) != c.quit {
				t.Errorf("quit %v, want %v (messages %v)", quits(msgs), c.quit, msgs)
			}
			if m.Focused() != m0.Focused() || m.showHelp {
				t.Errorf("keys reached the dashboard behind the dialog: focus %q, help %v", m.Focused(), m.showHelp)
			}
			if open := strings.Contains(plain(m), quitDialogText); open != c.open {
				t.Errorf("dialog shown %v, want %v:\n%s", open, c.open, plain(m))
			}
			if st := m.Stats(); st.Detached != c.detached || m.Detached() != c.detached {
				t.Errorf("Detached %v, want %v", st.Detached, c.detached)
			}
			ev := sent(msgs)
			if !c.stop {
				if len(ev) != 0 || len(*got) != 0 {
					t.Fatalf("sent %v (the run received %v), want nothing: the run goes on", ev, *got)
				}
				return
			}
			if len(ev) != 1 || ev[0].Kind != sessions.EventStop || len(*got) != 1 || (*got)[0].Kind != sessions.EventStop {
				t.Fatalf("sent %v (the run received %v), want one stop", ev, *got)
			}
			if m.Stats().Stopped {
				t.Error("Stopped before the stop event went")
			}
			// The event's outcome ends the program.
			nm, cmd := m.Update(sentMsg{ev: ev[0]})
			if !quits(runCmd(cmd)) || !nm.(Model).Stats().Stopped || nm.(Model).Stats().Detached {
				t.Errorf("after the stop went: quit %v, stats %+v", quits(runCmd(cmd)), nm.(Model).Stats())
			}
		})
	}
}

// TestQuitAtOnce checks that q quits at once where no run goes on: a replay, and a live
// run that has ended.
func TestQuitAtOnce(t *testing.T) {
	l, got := liveFixture(t, liveCut(t))
	ended := New(l, Options{})
	l.End()
	nm, _ := ended.Update(feedMsg{changed: true, closed: true})
	feeds := map[string]Model{"replay": New(openFixture(t), Options{}), "ended": nm.(Model)}
	for name, m := range feeds {
		for _, k := range []string{"q", "ctrl+c"} {
			mm, msgs := press(t, m, k)
			if !quits(msgs) || strings.Contains(plain(mm), quitDialogText) || mm.Stats().Detached {
				t.Errorf("%s, %s: quit %v, dialog %v", name, k, quits(msgs), strings.Contains(plain(mm), quitDialogText))
			}
		}
	}
	if len(*got) != 0 {
		t.Errorf("the ended run received %v", *got)
	}
}

// TestQuitStopRefused keeps the dialog's stop from quitting when the event was refused (a
// full queue, a viewer that may not stop the run): the status line says why and the
// dashboard stays. A run that ended meanwhile (its feed refuses, read-only) quits.
func TestQuitStopRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		err   error
		end   bool // the run ends while the dialog is open
		quit  bool
		shown string
	}{
		{"queue full", fmt.Errorf("queue full"), false, false, "send failed: queue full"},
		{"read-only viewer", sessions.ErrReadOnly, false, false, "read-only"},
		{"run ended", nil, true, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := sessions.NewLive(openFixture(t).Meta(), sessions.ControlFunc(func(sessions.Event) error { return c.err }), nil)
			l.Record(sessions.Record{Step: 1, State: sessions.Training})
			m, msgs := press(t, New(l, Options{}), "q")
			if c.end {
				l.End()
			}
			m, msgs = pressOnly(t, m, "s")
			nm, cmd := m.Update(msgs[0])
			m = nm.(Model)
			if quits(runCmd(cmd)) != c.quit || m.Stats().Stopped != c.quit {
				t.Errorf("quit %v, stopped %v; want %v", quits(runCmd(cmd)), m.Stats().Stopped, c.quit)
			}
			if !c.quit {
				mustContain(t, plain(m), c.shown)
			}
		})
	}
}

// TestQuitView compares the dialog over a live run with testdata/TestQuitView/*.golden, at
// 80×24 and 160×48, with the default and a caller's detach note, and checks it keeps the
// screen's size down to tiny terminals.
func TestQuitView(t *testing.T) {
	note := "the dashboard closes; the run goes on in this process (pid 4242), printing its progress here"
	for _, c := range []struct {
		w, h int
		note string
		keys []string
	}{
		{80, 24, "", []string{"q"}},
		{160, 48, note, []string{"q", "down"}},
	} {
		t.Run(fmt.Sprintf("live_%dx%d", c.w, c.h), func(t *testing.T) {
			l, _ := liveFixture(t, liveCut(t))
			m, _ := press(t, sized(New(l, Options{DetachNote: c.note}), c.w, c.h), c.keys...)
			v := checkedView(t, m, c.w, c.h)
			mustContain(t, v, quitDialogText, "▶ [", "[d] detach", "[s] stop run", "[c] cancel")
			golden.RequireEqual(t, v)
		})
	}
	t.Run("paused_80x24", func(t *testing.T) {
		l, _, _ := pausedFixture(t)
		m, _ := press(t, sized(New(l, Options{}), 80, 24), "q")
		golden.RequireEqual(t, checkedView(t, m, 80, 24))
	})
	l, _ := liveFixture(t, liveCut(t))
	for _, sz := range [][2]int{{100, 30}, {60, 20}, {40, 12}, {20, 5}, {1, 1}} {
		m, _ := press(t, sized(New(l, Options{}), sz[0], sz[1]), "q", "?", "down")
		checkedView(t, m, sz[0], sz[1])
	}
}

// TestRunQuitDialog runs the program on a live feed with typed keys: "qd" returns with
// Detached and nothing sent, "qs" with Stopped and the stop event received by the run.
func TestRunQuitDialog(t *testing.T) {
	for _, c := range []struct {
		input    string
		detached bool
	}{{"qd", true}, {"qs", false}} {
		t.Run(c.input, func(t *testing.T) {
			l, got := liveFixture(t, liveCut(t))
			done := make(chan Stats, 1)
			go func() {
				st, err := Run(context.Background(), l, Options{Input: strings.NewReader(c.input), Output: io.Discard})
				if err != nil {
					t.Error(err)
				}
				done <- st
			}()
			var st Stats
			select {
			case st = <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("%q did not end Run", c.input)
			}
			if st.Detached != c.detached || st.Stopped == c.detached {
				t.Errorf("stats %+v", st)
			}
			if stops := len(*got); (stops == 1) == c.detached || (!c.detached && (*got)[0].Kind != sessions.EventStop) {
				t.Errorf("the run received %v", *got)
			}
		})
	}
}

// pausedFixture is the live fixture with a last record that says the run is paused, and
// that record's step.
func pausedFixture(t *testing.T) (*sessions.Live, *[]sessions.Event, int) {
	t.Helper()
	l, got := liveFixture(t, liveCut(t))
	step := liveCut(t) + 1
	l.Record(sessions.Record{Step: step, State: sessions.Paused})
	return l, got, step
}

// TestQuitPaused drives the quit dialog of a paused run: it says the run is paused at its
// step (not "still training") and offers resume and detach first; r (or enter) sends the
// resume event and leaves once it has gone (Detached, Resumed, Fate "goes on"); d leaves
// with nothing sent and the run still paused (Stats.Paused, a Fate that says how to resume
// it); a refused resume keeps the dashboard with the reason. A read-only viewer is offered
// no resume, and a training run's dialog no r.
func TestQuitPaused(t *testing.T) {
	cases := []struct {
		name     string
		ro       bool
		keys     []string
		resume   bool // a resume event is sent (the program leaves once it has gone)
		detached bool // left at once, the run still paused
		refuse   error
	}{
		{name: "r", keys: []string{"q", "r"}, resume: true},
		{name: "enter", keys: []string{"q", "enter"}, resume: true},
		{name: "d", keys: []string{"q", "d"}, detached: true},
		{name: "refused", keys: []string{"q", "r"}, resume: true, refuse: fmt.Errorf("queue full")},
		{name: "read-only r", ro: true, keys: []string{"q", "r"}},
		{name: "read-only enter", ro: true, keys: []string{"q", "enter"}, detached: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, got, step := pausedFixture(t)
			m := sized(New(l, Options{ReadOnly: c.ro}), 80, 24)
			open, _ := pressOnly(t, m, c.keys[0])
			v := checkedView(t, open, 80, 24)
			mustContain(t, v, fmt.Sprintf("The run is paused at step %d of 600.", step), "[d] detach, still paused", "stays paused")
			if strings.Contains(v, "still training") || strings.Contains(v, "goes on") == c.ro {
				t.Errorf("the dialog of a paused run says it trains (read-only %v):\n%s", c.ro, v)
			}
			if strings.Contains(v, "[r] resume and detach") == c.ro {
				t.Errorf("resume and detach offered %v, want %v:\n%s", !c.ro, !c.ro, v)
			}
			m, msgs := pressOnly(t, open, c.keys[1:]...)
			ev := sent(msgs)
			if c.detached {
				if !quits(msgs) || len(ev) != 0 || len(*got) != 0 {
					t.Fatalf("detach: quit %v, sent %v", quits(msgs), ev)
				}
				st := m.Stats()
				if !st.Detached || !st.Paused || st.Resumed || st.PausedAt != step || !strings.Contains(st.Fate(), fmt.Sprintf("stays paused at step %d", step)) {
					t.Errorf("detach: stats %+v, fate %q", st, st.Fate())
				}
				return
			}
			if !c.resume {
				if quits(msgs) || len(ev) != 0 {
					t.Errorf("quit %v, sent %v: want the dialog to ignore the key", quits(msgs), ev)
				}
				return
			}
			if quits(msgs) || len(ev) != 1 || ev[0].Kind != sessions.EventResume || ev[0].Step != step {
				t.Fatalf("quit %v before the resume went, sent %v", quits(msgs), ev)
			}
			nm, cmd := m.Update(sentMsg{ev: ev[0], err: c.refuse})
			m = nm.(Model)
			st := m.Stats()
			if c.refuse != nil {
				if quits(runCmd(cmd)) || st.Detached {
					t.Errorf("refused resume left the dashboard: %+v", st)
				}
				mustContain(t, plain(m), "queue full")
				return
			}
			if !quits(runCmd(cmd)) || !st.Detached || !st.Resumed || st.Paused || st.Fate() != "goes on" {
				t.Errorf("after the resume went: quit %v, stats %+v", quits(runCmd(cmd)), st)
			}
		})
	}
	// A training run's dialog: no resume, r does nothing.
	l, _ := liveFixture(t, liveCut(t))
	m, msgs := pressOnly(t, sized(New(l, Options{}), 80, 24), "q", "r")
	if v := plain(m); quits(msgs) || len(sent(msgs)) != 0 || strings.Contains(v, "resume") || !strings.Contains(v, quitDialogText) {
		t.Errorf("training run: q r quit %v, sent %v:\n%s", quits(msgs), sent(msgs), v)
	}
}

// TestQuitPausedFollows updates the dialog while it is open: a run resumed by another
// viewer meanwhile shows as training, with no resume offered.
func TestQuitPausedFollows(t *testing.T) {
	l, _, step := pausedFixture(t)
	m, _ := pressOnly(t, sized(New(l, Options{}), 80, 24), "q")
	mustContain(t, plain(m), "[r] resume and detach")
	l.Record(sessions.Record{Step: step + 1, State: sessions.Training})
	nm, _ := m.Update(feedMsg{changed: true})
	m = nm.(Model)
	v := plain(m)
	if strings.Contains(v, "resume") || !strings.Contains(v, quitDialogText) {
		t.Errorf("resumed meanwhile, the dialog still says:\n%s", v)
	}
}
