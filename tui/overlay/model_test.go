package overlay

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"windtunnel/sessions"
	"windtunnel/tui"
	"windtunnel/tui/look"
)

// mlpFeed is a second synthetic run to compare with the fixture: an MLP on the same task
// that converges more slowly and stalls at 0.3 bits, recorded up to step upTo.
func mlpFeed(upTo int) *sessions.Live {
	meta := sessions.Meta{Task: "bijection", Model: "mlp", Params: 150000, Layers: 4, Steps: fxSteps, Device: "cpu"}
	l := sessions.NewLive(meta, nil, nil)
	for s := 10; s <= upTo; s += 10 {
		r := sessions.Record{Step: s, Loss: 1.5, StepsPerS: 40, State: sessions.Training}
		if s%50 == 0 {
			a := 0.3 + 1.8*math.Exp(-float64(s-50)/250)
			r.Eval = &sessions.Eval{BitErrorPosition: a, BitErrorSample: 1.2 * a, KLBits: 0.7 * a}
		}
		l.Record(r)
	}
	return l
}

// overlayFeeds are the fixture and the MLP run, as the overlay tests compare them.
func overlayFeeds(t *testing.T) ([]sessions.Feed, []string) {
	return []sessions.Feed{openFixture(t), mlpFeed(fxSteps)}, []string{"fixture", "mlp-baseline"}
}

// overlayView is the stripped view after checking it is exactly w×h.
func overlayView(t *testing.T, o Model, w, h int) string {
	t.Helper()
	v := ansi.Strip(o.View())
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Errorf("%d×%d: overlay has %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("%d×%d: line %d is %d cells wide", w, h, i, n)
		}
	}
	return v
}

func sizedOverlay(o Model, w, h int) Model {
	nm, _ := o.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return nm.(Model)
}

// pressOverlay sends keys one by one; "typed:<<" sends the runes "<<" as one message, as
// fast typing arrives.
func pressOverlay(t testing.TB, o Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		msg := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(strings.TrimPrefix(k, "typed:"))}
		if !strings.HasPrefix(k, "typed:") {
			msg = keyMsg(t, k)
		}
		nm, _ := o.Update(msg)
		o = nm.(Model)
	}
	return o
}

// TestOverlayView compares the overlay of two sessions (no seed groups) with
// testdata/TestOverlayView/*.golden at 80×24 (linear and log) and 160×48.
func TestOverlayView(t *testing.T) {
	feeds, names := overlayFeeds(t)
	for _, c := range []struct {
		name string
		w, h int
		keys []string
	}{
		{"80x24", 80, 24, nil},
		{"80x24_log", 80, 24, []string{"l"}},
		{"160x48", 160, 48, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := sizedOverlay(New(feeds, names, tui.Options{}), c.w, c.h)
			for _, k := range c.keys {
				nm, _ := o.Update(keyMsg(t, k))
				o = nm.(Model)
			}
			v := overlayView(t, o, c.w, c.h)
			// Labelled by what differs (the model and the device), not by the names.
			mustContain(t, v, "• transformer cuda", "∘ mlp cpu")
			// Both lines show, each with its own glyph (no colour in tests).
			body := strings.SplitN(v, "\n", 5)[4]
			if !strings.Contains(body, "•") || !strings.Contains(body, "∘") {
				t.Errorf("a session's line is missing:\n%s", v)
			}
			golden.RequireEqual(t, v)
		})
	}
	for _, sz := range [][2]int{{60, 20}, {40, 12}, {20, 5}, {1, 1}, {200, 60}} {
		overlayView(t, sizedOverlay(New(feeds, names, tui.Options{}), sz[0], sz[1]), sz[0], sz[1])
	}
}

// TestOverlayUpdate checks the keys and that a changed feed is read again.
func TestOverlayUpdate(t *testing.T) {
	r := openFixture(t)
	l := mlpFeed(300)
	o := New([]sessions.Feed{r, l}, []string{"fixture"}, tui.Options{})
	v := overlayView(t, o, 80, 24)
	mustContain(t, v, "linear (l)", "∘ mlp cpu", "@300")
	nm, _ := o.Update(keyMsg(t, "l"))
	mustContain(t, ansi.Strip(nm.(Model).View()), "log (l)")
	for _, k := range []string{"q", "ctrl+c"} {
		_, cmd := o.Update(keyMsg(t, k))
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s does not quit", k)
		}
	}
	a := 0.2
	l.Record(sessions.Record{Step: 350, State: sessions.Training, Eval: &sessions.Eval{BitErrorPosition: a}})
	nm, cmd := o.Update(overlayMsg{changed: []bool{false, true}, closed: []bool{false, false}})
	if cmd == nil {
		t.Error("no next poll")
	}
	mustContain(t, ansi.Strip(nm.(Model).View()), fmt.Sprintf("(a) %s  @350", look.Num(a, 3)))
	// The poll reports the live feed's signal.
	msg := o.wait()().(overlayMsg)
	if !msg.changed[1] || msg.changed[0] {
		t.Errorf("poll after a record: %+v", msg)
	}
}

func TestRunOverlay(t *testing.T) {
	feeds, names := overlayFeeds(t)
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), feeds, names, tui.Options{Input: strings.NewReader("q"), Output: &out})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("q did not end Run")
	}
	if !strings.Contains(out.String(), "mlp cpu") {
		t.Errorf("nothing drawn: %q", out.String())
	}
	if err := Run(context.Background(), nil, nil, tui.Options{}); err == nil {
		t.Error("no sessions: no error")
	}
}
