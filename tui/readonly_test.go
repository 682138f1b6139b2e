package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// actionTexts are what the screen shows of the keys that act on a run: pause, head
// toggles, restore and stop (key hints, help, ablation legend, quit dialog).
var actionTexts = []string{"pause/resume", "toggle head", "restore all heads", "space toggles", "stop the run", "[s] stop run", "stop run"}

// TestReadOnlyScreens: a viewer who may only watch (Options.ReadOnly) sees none of the
// actions it cannot do, on the dashboard's key hints (every pane focused in turn), the
// help page, the ablation pane and the quit dialog, whose question and options are detach
// and cancel; an operator sees them all. Checked at 80×24 and 160×48, ANSI stripped, every
// screen exactly the terminal's size.
func TestReadOnlyScreens(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		w, h := sz[0], sz[1]
		for _, readOnly := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%d_readonly=%v", w, h, readOnly), func(t *testing.T) {
				l, _ := liveFixture(t, liveCut(t))
				m := sized(New(l, Options{ReadOnly: readOnly}), w, h)
				var screens []string
				for i := 1; i <= 7; i++ {
					mm, _ := press(t, m, fmt.Sprint(i))
					screens = append(screens, checkedView(t, mm, w, h))
				}
				help, _ := press(t, m, "?")
				quit, _ := press(t, m, "q")
				quitHelp, _ := press(t, m, "q", "?") // the dialog takes every key
				screens = append(screens, checkedView(t, help, w, h), checkedView(t, quit, w, h), checkedView(t, quitHelp, w, h))
				all := strings.Join(screens, "\n")
				mustContain(t, checkedView(t, quit, w, h), "[d] detach", "[c] cancel", quitDialogText)
				mustContain(t, checkedView(t, help, w, h), "quit/detach", "help")
				if readOnly {
					for _, s := range actionTexts {
						if strings.Contains(all, s) {
							t.Errorf("a read-only viewer is shown %q", s)
						}
					}
					mustContain(t, checkedView(t, quit, w, h), "quit: detach from the run?")
					return
				}
				for _, s := range []string{"pause/resume", "toggle head", "restore all heads", "space toggles", "[s] stop run", "quit: detach or stop the run?"} {
					if !strings.Contains(all, s) {
						t.Errorf("an operator is not shown %q", s)
					}
				}
				if !strings.Contains(strings.Join(helpScreens(t, m, w, h), "\n"), "stop the run") {
					t.Error("the operator's help page does not list the quit dialog's stop")
				}
			})
		}
	}
}

// TestReadOnlyKeys: a read-only viewer's p, space (on the ablation pane) and r send
// nothing and say why on the status line; in the quit dialog s does nothing (the dialog
// stays), enter on the second option cancels and d detaches.
func TestReadOnlyKeys(t *testing.T) {
	l, got := liveFixture(t, liveCut(t))
	m := focusOn(t, sized(New(l, Options{ReadOnly: true}), 160, 48), "Ablation")
	for _, k := range []string{"p", " ", "r"} {
		mm, msgs := press(t, m, k)
		if ev := sent(msgs); len(ev) != 0 {
			t.Errorf("%q sent %v", k, ev)
		}
		mustContain(t, plain(mm), readOnlyNote)
	}
	q, msgs := press(t, m, "q", "s")
	if len(sent(msgs)) != 0 || quits(msgs) || !strings.Contains(plain(q), quitDialogText) {
		t.Errorf("s in a read-only quit dialog: sent %v, quit %v, dialog open %v", sent(msgs), quits(msgs), strings.Contains(plain(q), quitDialogText))
	}
	c, msgs := press(t, m, "q", "down", "enter")
	if quits(msgs) || strings.Contains(plain(c), quitDialogText) {
		t.Errorf("down enter in a read-only quit dialog: quit %v, dialog open %v; want cancelled", quits(msgs), strings.Contains(plain(c), quitDialogText))
	}
	d, msgs := press(t, m, "q", "d")
	if !quits(msgs) || !d.Stats().Detached {
		t.Errorf("d in a read-only quit dialog: quit %v, stats %+v", quits(msgs), d.Stats())
	}
	if len(*got) != 0 {
		t.Errorf("the run received %v from a read-only viewer", *got)
	}
}

// TestEmbeddedLeave: an Embedded dashboard never quits the program: q on a replay, d, and s
// once its event went, on a live run send LeftMsg saying how the user left.
func TestEmbeddedLeave(t *testing.T) {
	left := func(msgs []tea.Msg) (LeftMsg, bool) {
		for _, m := range msgs {
			if lm, ok := m.(LeftMsg); ok {
				return lm, true
			}
		}
		return LeftMsg{}, false
	}
	opts := Options{Embedded: true}
	_, msgs := press(t, sized(New(openFixture(t), opts), 80, 24), "q")
	if lm, ok := left(msgs); !ok || quits(msgs) || lm.Stats.Detached || lm.Stats.Stopped {
		t.Errorf("q on an embedded replay: left %v (%+v), quit %v", ok, lm, quits(msgs))
	}
	l, got := liveFixture(t, liveCut(t))
	_, msgs = press(t, sized(New(l, opts), 80, 24), "q", "d")
	if lm, ok := left(msgs); !ok || quits(msgs) || !lm.Stats.Detached {
		t.Errorf("q d on an embedded live run: left %v (%+v), quit %v", ok, lm, quits(msgs))
	}
	m, msgs := pressOnly(t, sized(New(l, opts), 80, 24), "q", "s")
	if len(msgs) != 1 {
		t.Fatalf("q s: messages %v, want the stop's outcome", msgs)
	}
	_, cmd := m.Update(msgs[0]) // the stop went
	msgs = runCmd(cmd)
	if lm, ok := left(msgs); !ok || quits(msgs) || !lm.Stats.Stopped || len(*got) != 1 {
		t.Errorf("q s on an embedded live run: left %v (%+v), quit %v, the run received %v", ok, lm, quits(msgs), *got)
	}
}
