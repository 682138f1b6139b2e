package tui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
	"windtunnel/diagnostics"

	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// liveCut is the step a live test copies the fixture up to: three quarters of its span.
func liveCut(t testing.TB) int {
	first, last := feedSpan(t, openFixture(t))
	return first + 3*(last-first)/4
}

func TestFocusCycle(t *testing.T) {
	m := New(openFixture(t), Options{})
	titles := []string{}
	for range len(m.panes) {
		titles = append(titles, m.Focused())
		m, _ = press(t, m, "tab")
	}
	if m.Focused() != titles[0] {
		t.Errorf("tab ×%d ends on %q, want %q", len(titles), m.Focused(), titles[0])
	}
	want := []string{"Bit error", "Attention focus", "Ablation", "Key orthogonality", "Value manifold", "Frame-precision",
		"Loss", "LR & grad norm", "System", "Run"}
	if fmt.Sprint(titles) != fmt.Sprint(want) {
		t.Errorf("focus order %q, want %q", titles, want)
	}
	m, _ = press(t, m, "shift+tab")
	if m.Focused() != titles[len(titles)-1] {
		t.Errorf("shift+tab gives %q, want %q", m.Focused(), titles[len(titles)-1])
	}
	if v := plain(m); !strings.Contains(v, "▶ "+m.Focused()) || !strings.Contains(v, "["+m.Focused()+"]") {
		t.Errorf("focused pane not marked:\n%s", v)
	}
}

// offFromFeed folds the feed's head events, independently of the pane's code.
func offFromFeed(t *testing.T, f sessions.Feed) map[sessions.Head]bool {
	evs, err := f.Events(-1)
	if err != nil {
		t.Fatal(err)
	}
	off := map[sessions.Head]bool{}
	for _, e := range evs {
		switch e.Kind {
		case sessions.EventHead:
			off[sessions.Head{Layer: e.Layer, Head: e.Head}] = !e.On
		case sessions.EventRestore:
			off = map[sessions.Head]bool{}
		}
	}
	return off
}

func TestAblationToggle(t *testing.T) {
	l, got := liveFixture(t, liveCut(t))
	m := focusOn(t, New(l, Options{}), "Ablation")
	off := offFromFeed(t, l)

	_, msgs := press(t, m, " ")
	want := sessions.Event{Kind: sessions.EventHead, Layer: 0, Head: 0, On: off[sessions.Head{}]}
	if ev := sent(msgs); len(ev) != 1 || ev[0].Kind != want.Kind || ev[0].Layer != 0 || ev[0].Head != 0 || ev[0].On != want.On {
		t.Fatalf("space at L0H0 sent %+v, want %+v", ev, want)
	}
	if len(*got) != 1 {
		t.Fatalf("the feed received %d events, want 1", len(*got))
	}

	// Walk to every head that the feed says is off: space must switch it back on.
	meta := l.Meta()
	for hd, isOff := range off {
		if !isOff || hd.Layer >= meta.Layers || hd.Head >= meta.Heads {
			continue
		}
		mm := m
		for range hd.Layer {
			mm, _ = press(t, mm, "down")
		}
		for range hd.Head {
			mm, _ = press(t, mm, "right")
		}
		_, msgs := press(t, mm, " ")
		if ev := sent(msgs); len(ev) != 1 || ev[0].Layer != hd.Layer || ev[0].Head != hd.Head || !ev[0].On {
			t.Errorf("space on off head %+v sent %+v, want it switched on", hd, ev)
		}
	}

	// The cursor stays inside the grid.
	mm := m
	for range meta.Layers + 3 {
		mm, _ = press(t, mm, "down", "right")
	}
	_, msgs = press(t, mm, " ")
	if ev := sent(msgs); len(ev) != 1 || ev[0].Layer != meta.Layers-1 || ev[0].Head != meta.Heads-1 {
		t.Errorf("cursor past the corner sent %+v", ev)
	}

	_, msgs = press(t, m, "r")
	if ev := sent(msgs); len(ev) != 1 || ev[0].Kind != sessions.EventRestore {
		t.Errorf("r sent %+v, want restore", ev)
	}
}

func TestAblationShownFromEvents(t *testing.T) {
	r := openFixture(t)
	evs, err := r.Events(-1)
	if err != nil {
		t.Fatal(err)
	}
	var head *sessions.Event
	for i := range evs {
		if evs[i].Kind == sessions.EventHead && !evs[i].On {
			head = &evs[i]
			break
		}
	}
	if head == nil {
		t.Skip("the fixture switches no head off")
	}
	name := headName(head.Layer, head.Head)
	m := focusOn(t, sized(New(r, Options{}), 80, 24), "Ablation")
	if head.Step > 0 {
		before := typeStep(t, m, head.Step-1)
		if v := plain(before); strings.Contains(v, name+"@") {
			t.Errorf("at step %d, before the event, %s shows as off:\n%s", head.Step-1, name, v)
		}
	}
	at := typeStep(t, m, head.Step)
	mustContain(t, plain(at), "off: "+name+fmt.Sprintf("@%d", head.Step))
}

func TestPauseResume(t *testing.T) {
	l, got := liveFixture(t, liveCut(t))
	m := New(l, Options{})
	_, msgs := press(t, m, "p")
	if ev := sent(msgs); len(ev) != 1 || ev[0].Kind != sessions.EventPause {
		t.Fatalf("p sent %+v, want pause", ev)
	}
	latest, _, _ := l.At(-1)
	latest.State = sessions.Paused
	l.Record(latest)
	_, msgs = press(t, m, "p")
	if ev := sent(msgs); len(ev) != 1 || ev[0].Kind != sessions.EventResume {
		t.Fatalf("p on a paused run sent %+v, want resume", ev)
	}
	if len(*got) != 2 {
		t.Errorf("the feed received %d events, want 2", len(*got))
	}
}

// TestReplayReadOnly: on a replay the keys that would act on a run (space, p, r) send
// nothing and say on the status line that a replay is read-only.
func TestReplayReadOnly(t *testing.T) {
	m := focusOn(t, New(openFixture(t), Options{}), "Ablation")
	for _, k := range []string{" ", "p", "r"} {
		mm, msgs := press(t, m, k)
		if len(msgs) != 0 {
			t.Errorf("%q in replay sent %+v", k, msgs)
		}
		mustContain(t, plain(mm), "replay: read-only")
	}
}

func TestScrub(t *testing.T) {
	r := openFixture(t)
	first, last := feedSpan(t, r)
	small, big := max(1, (last-first)/100), max(1, (last-first)/20)
	m := New(r, Options{})
	step := func(m Model) int { s, _ := m.Step(); return s }
	if s, follow := m.Step(); s != last || !follow {
		t.Fatalf("opens at %d (follow %v), want the last step %d", s, follow, last)
	}
	cases := []struct {
		keys []string
		want int
	}{
		{[]string{"left"}, last - small},
		{[]string{"left", "right"}, last},
		{[]string{"shift+left"}, last - big},
		{[]string{"shift+left", "shift+left", "shift+right"}, last - big},
		{[]string{"home"}, first},
		{[]string{"home", "left"}, first},
		{[]string{"home", "right"}, first + small},
		{[]string{"home", "end"}, last},
		{[]string{"g", "1", "2", "3", "4", "enter"}, min(max(1234, first), last)},
		{[]string{"home", "g", "4", "esc"}, first},
		{[]string{"g", "9", "backspace", "3", "enter"}, min(max(3, first), last)},
	}
	// Fast typing arrives as one message of several runes.
	target := first + (last-first)/3
	nm, _ := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(fmt.Sprintf("g%d", target))})
	nm, _ = nm.Update(keyMsg(t, "enter"))
	if got := step(nm.(Model)); got != target {
		t.Errorf("g%d typed at once: step %d", target, got)
	}
	for _, c := range cases {
		mm, _ := press(t, m, c.keys...)
		if got := step(mm); got != c.want {
			t.Errorf("%q: step %d, want %d", c.keys, got, c.want)
		}
	}
	if _, follow := func() (int, bool) { mm, _ := press(t, m, "home", "end"); return mm.Step() }(); !follow {
		t.Error("end does not go back to following")
	}
	if _, follow := func() (int, bool) { mm, _ := press(t, m, "left", "esc"); return mm.Step() }(); !follow {
		t.Error("esc does not leave scrub mode")
	}
}

// TestScrubMovesPanes checks that after g N enter every pane shows step N's data, read
// back from the feed.
func TestScrubMovesPanes(t *testing.T) {
	r := openFixture(t)
	first, last := feedSpan(t, r)
	target := first + (last-first)/3
	rec, ok, err := r.At(target)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	m := typeStep(t, sized(New(r, Options{}), 160, 48), target)
	if s, follow := m.Step(); s != target || follow {
		t.Fatalf("step %d follow %v, want %d scrubbing", s, follow, target)
	}
	v := plain(m)
	mustContain(t, v, fmt.Sprintf("step %d ", target), fmt.Sprintf("%d/%d", rec.Step, r.Meta().Steps), look.Num(rec.Loss, 4))
	evals, _ := r.Evals(target, 0)
	for i := len(evals) - 1; i >= 0; i-- {
		if e := evals[i]; len(e.Eval.Ablated) == 0 {
			mustContain(t, v, "(a) "+look.Num(e.Eval.BitErrorPosition, 3), fmt.Sprintf("entropy by position @%d", e.Step))
			break
		}
	}
	if snap, at, _ := r.Snapshot(target); snap != nil && len(snap.AttentionEntropy) > 0 {
		mustContain(t, v, fmt.Sprintf("bits · @%d", at), look.Num(snap.AttentionEntropy[0][0], 2))
	}
}

func TestQuit(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		_, msgs := press(t, New(openFixture(t), Options{}), k)
		if len(msgs) != 1 {
			t.Fatalf("%s: %v", k, msgs)
		}
		if _, ok := msgs[0].(tea.QuitMsg); !ok {
			t.Errorf("%s gives %T, want tea.QuitMsg", k, msgs[0])
		}
	}
}

// TestFeedFollow drives the feed messages by hand: the view follows new records until the
// user scrubs, and keeps the last state once the run ends.
func TestFeedFollow(t *testing.T) {
	t.Parallel() // it waits out the frame interval (minFrame) between records
	r := openFixture(t)
	first, last := feedSpan(t, r)
	cut := first + (last-first)/2
	l, _ := liveFixture(t, cut)
	m := New(l, Options{})
	frames := m.Stats().Frames
	recs, err := r.Records(cut+1, cut+10)
	if err != nil || len(recs) == 0 {
		t.Fatal(err, len(recs))
	}
	for _, rec := range recs {
		l.Record(rec)
	}
	time.Sleep(minFrame)
	nm, cmd := m.Update(feedMsg{changed: true})
	m = nm.(Model)
	if s, _ := m.Step(); s != recs[len(recs)-1].Step {
		t.Errorf("following: step %d, want %d", s, recs[len(recs)-1].Step)
	}
	if cmd == nil || m.Stats().Frames <= frames || m.Stats().Refreshes < 2 {
		t.Errorf("no redraw or no next wait: %+v", m.Stats())
	}
	m, _ = press(t, m, "left")
	scrubbed, _ := m.Step()
	l.Record(sessions.Record{Step: recs[len(recs)-1].Step + 1, State: sessions.Training})
	time.Sleep(minFrame)
	nm, _ = m.Update(feedMsg{changed: true})
	m = nm.(Model)
	if s, _ := m.Step(); s != scrubbed {
		t.Errorf("scrubbing: step moved to %d, want it kept at %d", s, scrubbed)
	}
	l.End()
	nm, cmd = m.Update(feedMsg{changed: true, closed: true})
	m = nm.(Model)
	if cmd == nil {
		t.Fatal("no wait after the end")
	}
	// Let a pending redraw happen; after it the wait must be a plain tick, not a busy loop
	// on the closed channel.
	for m.dirty {
		nm, cmd = m.Update(cmd())
		m = nm.(Model)
	}
	start := time.Now()
	if msg := cmd(); msg != (feedMsg{}) || time.Since(start) < TickInterval/2 {
		t.Errorf("after the end the wait returned %+v after %s", msg, time.Since(start))
	}
	mm, _ := press(t, m, "end")
	mustContain(t, plain(mm), "LIVE (ended)", "at the end")
}

// TestFeedCoalesce checks that a burst of notifications within one frame interval costs
// one refresh.
func TestFeedCoalesce(t *testing.T) {
	l, _ := liveFixture(t, liveCut(t))
	m := New(l, Options{})
	base := m.Stats().Refreshes
	for range 10 {
		nm, _ := m.Update(feedMsg{changed: true})
		m = nm.(Model)
	}
	if n := m.Stats().Refreshes - base; n > 1 {
		t.Errorf("10 notifications in one frame caused %d refreshes", n)
	}
	if !m.dirty {
		t.Error("the pending change was dropped")
	}
}

func TestNoAttention(t *testing.T) {
	meta := sessions.Meta{Task: "bijection", Model: "lstm", Params: 1000, Layers: 2, Heads: 0, Steps: 10, Device: "cpu"}
	l := sessions.NewLive(meta, nil, nil)
	for s := 1; s <= 10; s++ {
		r := sessions.Record{Step: s, Loss: 1, StepsPerS: 5, State: sessions.Training,
			Eval: &sessions.Eval{BitErrorPosition: 0.5, ModelEntropy: []float64{1, 2}, BayesEntropy: []float64{1, 1.5}}}
		if s%5 == 0 {
			// A recurrent model's snapshot: no attention, keys or frame; a manifold and
			// whole-layer ablations.
			r.Snapshot = &sessions.Snapshot{ProbeN: 64,
				Manifold: &sessions.Manifold{Share: []float64{0.5, 0.2, 0.1}, Pearson: -0.8, Spearman: -0.7,
					Points: [][]float64{{-1, 0, 0}, {0, 1, 0}, {1, 0, 1}, {2, -1, 0}}, Entropy: []float64{3, 2, 1.5, 1}},
				Ablation: []diagnostics.Effect{{Unit: "layer", Layer: 0, Head: -1, DeltaBits: 0.4}, {Unit: "layer", Layer: 1, Head: -1, DeltaBits: 0.7}}}
		}
		l.Record(r)
	}
	m := focusOn(t, New(l, Options{}), "Attention focus")
	mustContain(t, plain(m), "no attention in this model")
	m = focusOn(t, m, "Ablation")
	mustContain(t, plain(m), "no attention heads", "Δ bits when zeroed · snapshot @10 (n=64)", "layer", "+0.700")
	if _, msgs := press(t, m, " "); len(sent(msgs)) != 0 {
		t.Errorf("space on a model without heads sent %v", msgs)
	}
	for _, title := range []string{"Key orthogonality", "Frame-precision"} {
		mm, _ := press(t, focusOn(t, m, title), "e", "f")
		mustContain(t, plain(mm), "no attention in this model")
	}
	m = focusOn(t, m, "Value manifold")
	mustContain(t, plain(m), "value manifold @10", "Spearman -0.70", "●", "·")
}

func TestEmptyFeed(t *testing.T) {
	l := sessions.NewLive(sessions.Meta{Task: "hmm", Model: "transformer", Layers: 2, Heads: 2}, nil, nil)
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		m := sized(New(l, Options{}), sz[0], sz[1])
		for _, k := range []string{"left", "home", "g", "5", "enter", "tab", "tab", " ", "l"} {
			m, _ = press(t, m, k)
		}
		mustContain(t, plain(m), "waiting")
	}
}

func TestRun(t *testing.T) {
	var out bytes.Buffer
	done := make(chan error, 1)
	var st Stats
	go func() {
		var err error
		st, err = Run(context.Background(), openFixture(t), Options{Input: strings.NewReader("q"), Output: &out, Width: 160, Height: 48})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("q did not end Run")
	}
	if !strings.Contains(out.String(), "Bit error") {
		t.Errorf("nothing drawn: %q", out.String())
	}
	// Width and Height stand in for the size a terminal would report: at 160×48 the grid
	// has two pages, which the 80×24 tabs do not.
	if !strings.Contains(out.String(), "2 Geometry") {
		t.Errorf("Width/Height 160×48 did not give the grid: %q", out.String())
	}
	if st.Keys != 1 || st.Frames < 1 {
		t.Errorf("stats after one key: %+v", st)
	}

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() {
		_, err := Run(ctx, openFixture(t), Options{Input: pr, Output: io.Discard})
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("cancelled Run returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling the context did not end Run")
	}
}
