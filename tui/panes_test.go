package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/sessiontest"
	"windtunnel/tui/look"
)

// TestPages checks ] and [ (grid pages, tab groups), tab across pages and the number keys.
func TestPages(t *testing.T) {
	r := openFixture(t)
	m := sized(New(r, Options{}), 160, 48)
	page := func(m Model) int { p, _ := m.Page(); return p }
	if page(m) != 0 || m.Focused() != "Bit error" {
		t.Fatalf("opens on page %d focused %q", page(m), m.Focused())
	}
	mustContain(t, plain(m), "[1 Training]", "Bit error", "Attention focus", "Ablation")
	m2, _ := press(t, m, "]")
	if page(m2) != 1 || m2.Focused() != "Key orthogonality" {
		t.Errorf("] gives page %d focused %q", page(m2), m2.Focused())
	}
	v := plain(m2)
	mustContain(t, v, "[2 Geometry]", "▶ Key orthogonality", "Value manifold", "Frame-precision", "─ Run ")
	if strings.Contains(v, "Attention focus") {
		t.Errorf("the geometry page still shows the attention pane:\n%s", v)
	}
	if m3, _ := press(t, m2, "["); page(m3) != 0 || m3.Focused() != "Bit error" {
		t.Errorf("[ gives page %d focused %q", page(m3), m3.Focused())
	}
	if m3, _ := press(t, m2, "]"); page(m3) != 2 || m3.Focused() != "Loss" {
		t.Errorf("] ] gives page %d focused %q", page(m3), m3.Focused())
	}
	if m3, _ := press(t, m2, "]", "]"); page(m3) != 0 {
		t.Errorf("] wraps to page %d", page(m3))
	}
	// Tab walks into the next page; the run pane keeps the page shown.
	m3, _ := press(t, m, "tab", "tab", "tab")
	if m3.Focused() != "Key orthogonality" || page(m3) != 1 {
		t.Errorf("tab ×3 from bit error: %q on page %d", m3.Focused(), page(m3))
	}
	m3, _ = press(t, m3, "1")
	if m3.Focused() != "Run" || page(m3) != 1 {
		t.Errorf("1: %q on page %d, want Run on page 1", m3.Focused(), page(m3))
	}
	for i, want := range []string{"Run", "Bit error", "Attention focus", "Ablation", "Key orthogonality", "Value manifold", "Frame-precision",
		"Loss", "LR & grad norm", "System"} {
		mm, _ := press(t, m, fmt.Sprint((i+1)%10))
		if mm.Focused() != want {
			t.Errorf("%d focuses %q, want %q", i+1, mm.Focused(), want)
		}
		if !strings.Contains(plain(mm), "▶ "+want) {
			t.Errorf("%d: %s not shown focused", i+1, want)
		}
	}
	// Digits after g are a step, not a pane.
	first, last := feedSpan(t, r)
	target := first + (last-first)/2
	if mm := typeStep(t, m, target); mm.Focused() != m.Focused() {
		t.Errorf("g%d moved the focus to %q", target, mm.Focused())
	}

	// Tabs mode: ] and [ jump between the groups.
	s := sized(New(r, Options{}), 80, 24)
	s2, _ := press(t, s, "]")
	if s2.Focused() != "Key orthogonality" {
		t.Errorf("80×24 ]: %q", s2.Focused())
	}
	mustContain(t, plain(s2), "[Keys]", "▶ Key orthogonality")
	if s3, _ := press(t, s2, "]"); s3.Focused() != "Loss" {
		t.Errorf("80×24 ] ]: %q", s3.Focused())
	}
	if s3, _ := press(t, s2, "]", "]"); s3.Focused() != "Bit error" {
		t.Errorf("80×24 ] ] ]: %q", s3.Focused())
	}
	if s3, _ := press(t, s, "["); s3.Focused() != "Loss" {
		t.Errorf("80×24 [: %q", s3.Focused())
	}
}

// TestPaneToggles checks e, f and a: each works whichever pane has focus.
func TestPaneToggles(t *testing.T) {
	r := openFixture(t)
	m := sized(New(r, Options{}), 80, 24)
	cases := []struct {
		title, key, before, after string
	}{
		{"Key orthogonality", "e", "layer means", "per head"},
		{"Frame-precision", "f", "attention distance to @", "attention distance of each layer"},
		{"Value manifold", "a", "┃PC2 ", "┃PC3 "},
	}
	for _, c := range cases {
		mm := focusOn(t, m, c.title)
		mustContain(t, plain(mm), c.before)
		on, _ := press(t, mm, c.key)
		mustContain(t, plain(on), c.after)
		off, _ := press(t, on, c.key)
		mustContain(t, plain(off), c.before)
		// Pressed while another pane has focus.
		other, _ := press(t, m, c.key)
		mustContain(t, plain(focusOn(t, other, c.title)), c.after)
	}
	mm, _ := press(t, focusOn(t, m, "Key orthogonality"), "e")
	mustContain(t, plain(mm), "L0H0", "L2H3")
}

// TestKeysScroll checks that per-head bars that do not fit scroll with ↑/↓ when the pane
// has focus, and only then.
func TestKeysScroll(t *testing.T) {
	m, _ := press(t, focusOn(t, sized(New(openFixture(t), Options{}), 80, 24), "Key orthogonality"), "e")
	meta := m.sh.meta
	lastBar := headName(meta.Layers-1, meta.Heads-1)
	if strings.Contains(plain(m), lastBar) {
		t.Skip("every head fits at 80×24")
	}
	mustContain(t, plain(m), "↑ 0 above")
	mm := m
	for range meta.Layers * meta.Heads {
		mm, _ = press(t, mm, "down")
	}
	mustContain(t, plain(mm), lastBar, "↓ 0 below")
	if strings.Contains(plain(mm), "L0H0 ") {
		t.Errorf("scrolled to the end but L0H0 still shows:\n%s", plain(mm))
	}
	mm, _ = press(t, mm, "up")
	if strings.Contains(plain(mm), "↓ 0 below") {
		t.Error("up did not scroll back")
	}
	// Unfocused, down is not the pane's.
	nm, _ := press(t, focusOn(t, m, "Bit error"), "down")
	if strings.Contains(plain(focusOn(t, nm, "Key orthogonality")), lastBar) {
		t.Error("down scrolled the unfocused key pane")
	}
}

// TestAblationDeltas checks that every head's Δbits as recorded in the snapshot's head
// table shows in the grid, the recorded costliest head is marked and the layer units are
// listed.
func TestAblationDeltas(t *testing.T) {
	r := openFixture(t)
	first, last := feedSpan(t, r)
	step := first + (last-first)/2
	snap, at, err := r.Snapshot(step)
	if err != nil || snap == nil || len(snap.Ablation) == 0 || len(snap.HeadDelta) == 0 || snap.CostliestHead == nil {
		t.Fatal("no ablation table, head table or costliest head in the fixture", err)
	}
	if c := snap.CostliestHead; c.Layer != 1 || c.Head != 2 {
		t.Fatalf("the fixture's costliest head is %s, want L1H2", headName(c.Layer, c.Head))
	}
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		m := typeStep(t, focusOn(t, sized(New(r, Options{}), sz[0], sz[1]), "Ablation"), step)
		v := plain(m)
		mustContain(t, v, fmt.Sprintf("snapshot @%d", at))
		for _, row := range snap.HeadDelta {
			for _, d := range row {
				mustContain(t, v, fsigned(float64(d), 3))
			}
		}
		for _, e := range snap.Ablation {
			if e.Unit != "head" {
				mustContain(t, v, fsigned(e.DeltaBits, 3))
			}
		}
		c := snap.CostliestHead
		mustContain(t, v, fsigned(c.DeltaBits, 3)+"▲", "costliest head "+headName(c.Layer, c.Head), "attn", "mlp")
	}
}

// preDerived is a feed as a session written before the lab recorded the derived values:
// its snapshots have no head table, costliest units or settle steps.
type preDerived struct{ sessions.Feed }

func (f preDerived) Snapshot(step int) (*sessions.Snapshot, int, error) {
	s, at, err := f.Feed.Snapshot(step)
	if s != nil {
		c := *s
		c.HeadDelta, c.Costliest, c.CostliestHead = nil, nil, nil
		if c.Frame != nil {
			fr := *c.Frame
			fr.Settle = nil
			c.Frame = &fr
		}
		s = &c
	}
	return s, at, err
}

// TestFrameRule checks that the frame pane states the pre-registered dissociation rule on
// the snapshot's history (derived.HistoryDissociation), as the report does.
func TestFrameRule(t *testing.T) {
	r := openFixture(t)
	snap, at, err := r.Snapshot(-1)
	if err != nil || snap == nil || snap.Frame == nil || !snap.JLens.Current() {
		t.Fatal("no frame history with a J-lens in the fixture's last snapshot", err)
	}
	d, ok := derived.HistoryDissociation(snap.Frame.Points, 1/float64(snap.JLens.Null))
	if !ok || d.FormStep < 0 {
		t.Fatalf("the fixture's frame should form: %+v", d)
	}
	outcome := "fails (want"
	if d.Holds {
		outcome = "holds (≥"
	}
	m := focusOn(t, sized(New(r, Options{}), 160, 48), "Frame-precision")
	mustContain(t, plain(m), fmt.Sprintf("rule: θ %.2f", d.Threshold), fmt.Sprintf("formed @%d, plateau @%d", d.FormStep, d.PlateauStep),
		fmt.Sprintf("its @%d value", at), outcome)
}

// TestPreDerived checks that a session without the derived values shows the ablation and
// frame panes without them.
func TestPreDerived(t *testing.T) {
	f := preDerived{openFixture(t)}
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		m := sized(New(f, Options{}), sz[0], sz[1])
		v := plain(focusOn(t, m, "Ablation"))
		mustContain(t, v, "per-head Δ not recorded", "attn", "mlp", "off: L1H2@")
		if strings.Contains(v, "costliest") || strings.Contains(v, "▲") {
			t.Errorf("%dx%d: a costliest head without one recorded:\n%s", sz[0], sz[1], v)
		}
		v = plain(focusOn(t, m, "Frame-precision"))
		mustContain(t, v, "rule: θ", "frame vs precision") // the rule is the reader's: it needs nothing derived by the lab
		if strings.Contains(v, "settled at") {
			t.Errorf("%dx%d: settle steps without any recorded:\n%s", sz[0], sz[1], v)
		}
	}
}

// countingFeed counts the queries that read evaluations and snapshots.
type countingFeed struct {
	sessions.Feed
	evals, evalsAll, snaps int
}

func (c *countingFeed) Evals(upTo, max int) ([]sessions.Record, error) {
	c.evals++
	if max <= 0 {
		c.evalsAll++
	}
	return c.Feed.Evals(upTo, max)
}

func (c *countingFeed) Snapshot(step int) (*sessions.Snapshot, int, error) {
	c.snaps++
	return c.Feed.Snapshot(step)
}

// same reports whether two strings share their bytes (a cached view handed out again).
func same(a, b string) bool { return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b) }

// TestReplayQueries checks that scrubbing a replay within what the caches cover reads no
// evaluations or snapshots again.
func TestReplayQueries(t *testing.T) {
	c := &countingFeed{Feed: openFixture(t)}
	m := sized(New(c, Options{}), 160, 48)
	m, _ = press(t, m, "left")
	evals, snaps := c.evalsAll, c.snaps
	m, _ = press(t, m, "left")
	if c.evalsAll != evals || c.snaps != snaps {
		t.Errorf("a second step back read evaluations %d times and snapshots %d times", c.evalsAll-evals, c.snaps-snaps)
	}
	// Back and forth between two snapshots: the cache holds both.
	m, _ = press(t, m, "shift+left", "shift+left", "shift+left")
	m, _ = press(t, m, "end", "shift+left", "shift+left", "shift+left")
	evals, snaps = c.evalsAll, c.snaps
	m, _ = press(t, m, "end", "shift+left", "shift+left", "shift+left")
	if c.evalsAll != evals || c.snaps != snaps {
		t.Errorf("revisiting steps read evaluations %d times and snapshots %d times", c.evalsAll-evals, c.snaps-snaps)
	}
	_ = m
}

// TestRenderCache checks that a new record redraws only what shows it: a record without an
// evaluation or snapshot redraws the run pane (and the run summary and the scrubber) but no chart; a new
// evaluation redraws the bit error charts; a new snapshot the geometry panes. A live feed
// is read incrementally: no full re-read of the evaluations without a new one.
func TestRenderCache(t *testing.T) {
	t.Parallel() // it waits out the frame interval (minFrame) between records
	r := openFixture(t)
	cut := liveCut(t)
	l, _ := liveFixture(t, cut)
	c := &countingFeed{Feed: l}
	m := sized(New(c, Options{}), 160, 48)
	views := func(m Model) []string {
		out := make([]string, len(m.panes))
		for i, p := range m.panes {
			out[i] = p.View()
		}
		return out
	}
	_, last := feedSpan(t, r)
	recs, err := r.Records(cut+1, last)
	if err != nil {
		t.Fatal(err)
	}
	next := func(m Model, want func(sessions.Record) bool) (Model, sessions.Record) {
		t.Helper()
		for len(recs) > 0 {
			rec := recs[0]
			recs = recs[1:]
			l.Record(rec)
			if want(rec) {
				time.Sleep(minFrame)
				nm, _ := m.Update(feedMsg{changed: true})
				return nm.(Model), rec
			}
		}
		t.Fatal("the fixture ran out of records")
		return m, sessions.Record{}
	}
	before := views(m)
	renders, all := m.Stats().Renders, c.evalsAll
	m, rec := next(m, func(r sessions.Record) bool { return r.Eval == nil && r.Snapshot == nil })
	after := views(m)
	if s, _ := m.Step(); s != rec.Step {
		t.Fatalf("step %d, want %d", s, rec.Step)
	}
	if same(before[0], after[0]) {
		t.Error("the run pane was not redrawn for a new record")
	}
	for i := 1; i < len(m.panes); i++ {
		if !same(before[i], after[i]) && !isScalarPane(i) {
			t.Errorf("%s was redrawn for a record without an evaluation or snapshot", m.panes[i].Title())
		}
	}
	// The System pane, drawn here for the test though not on screen, shows every record too.
	if n := m.Stats().Renders - renders; n > 5 {
		t.Errorf("a plain record cost %d redraws, want at most 5 (run pane, its box, run summary, scrubber; System)", n)
	}
	if c.evalsAll != all {
		t.Errorf("a plain record re-read all the evaluations (%d times)", c.evalsAll-all)
	}

	// A frame with nothing new draws nothing.
	renders, frame := m.Stats().Renders, m.View()
	m.render()
	if m.Stats().Renders != renders || m.View() != frame {
		t.Error("a frame without changes redrew something")
	}

	// An evaluation without a snapshot: the bit error pane only.
	before = views(m)
	newest, _, _ := l.At(-1)
	lastEval, _ := l.Evals(-1, 1)
	ev := *lastEval[0].Eval
	ev.BitErrorPosition *= 0.9
	l.Record(sessions.Record{Step: newest.Step + 1, State: sessions.Training, Eval: &ev})
	time.Sleep(minFrame)
	nm, _ := m.Update(feedMsg{changed: true})
	m = nm.(Model)
	after = views(m)
	for i := range m.panes {
		if redrawn := !same(before[i], after[i]); redrawn != (i <= 1 || i == 3) && !isScalarPane(i) { // run, bit error, ablation (its footer compares with the newest evaluation)
			t.Errorf("an evaluation without a snapshot: %s redrawn %v", m.panes[i].Title(), redrawn)
		}
	}
	mustContain(t, plain(m), look.Num(ev.BitErrorPosition, 3))

	// A snapshot without geometry (with its evaluation): all but the geometry panes.
	before = views(m)
	m, _ = next(m, func(r sessions.Record) bool { return r.Snapshot != nil && !hasGeometry(r.Snapshot) })
	after = views(m)
	for i := range m.panes {
		if redrawn := !same(before[i], after[i]); redrawn != (i <= 3) && !isScalarPane(i) {
			t.Errorf("a snapshot without geometry: %s redrawn %v", m.panes[i].Title(), redrawn)
		}
	}
	// A geometry snapshot: everything.
	before = views(m)
	m, rec = next(m, func(r sessions.Record) bool { return hasGeometry(r.Snapshot) })
	after = views(m)
	for i := range m.panes {
		if same(before[i], after[i]) && !isScalarPane(i) {
			t.Errorf("%s was not redrawn for a new geometry snapshot", m.panes[i].Title())
		}
	}
	m, _ = press(t, m, "]")
	mustContain(t, plain(m), fmt.Sprintf("value manifold @%d", rec.Step))
}

// TestGeometryLookup checks that the geometry panes show the newest snapshot that carries
// geometry when the newest snapshot has attention entropy only, and that following a live
// run looks back only through the snapshots that arrived since.
func TestGeometryLookup(t *testing.T) {
	t.Parallel() // it waits out the frame interval (minFrame) between records
	r := openFixture(t)
	step := sessiontest.DashGeoEvery*3 + sessiontest.DashEvery // an evaluation snapshot without geometry
	snap, at, _ := r.Snapshot(step)
	if at != step || snap == nil || hasGeometry(snap) {
		t.Fatalf("the fixture's snapshot at %d: @%d geometry %v", step, at, hasGeometry(snap))
	}
	m := typeStep(t, sized(New(r, Options{}), 160, 48), step)
	mustContain(t, plain(m), fmt.Sprintf("bits · @%d", step), fmt.Sprintf("snapshot @%d", sessiontest.DashGeoEvery*3))
	m, _ = press(t, m, "]")
	mustContain(t, plain(m), fmt.Sprintf("value manifold @%d", sessiontest.DashGeoEvery*3), fmt.Sprintf("layer means · @%d", sessiontest.DashGeoEvery*3),
		fmt.Sprintf("frame vs precision @%d", sessiontest.DashGeoEvery*3), fmt.Sprintf("(@%d: ", sessiontest.DashGeoEvery*2))
	// Before the first geometry snapshot.
	m = typeStep(t, m, sessiontest.DashGeoEvery-1)
	mustContain(t, plain(m), noGeometry)

	cut := liveCut(t)
	l, _ := liveFixture(t, cut)
	c := &countingFeed{Feed: l}
	m = sized(New(c, Options{}), 160, 48)
	_, last := feedSpan(t, r)
	recs, err := r.Records(cut+1, last)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		l.Record(rec)
		if rec.Snapshot == nil {
			continue
		}
		snaps := c.snaps
		time.Sleep(minFrame)
		nm, _ := m.Update(feedMsg{changed: true})
		m = nm.(Model)
		// The newest snapshot, and at most the one before it.
		if n := c.snaps - snaps; n > 3 {
			t.Errorf("a new snapshot at %d cost %d snapshot reads", rec.Step, n)
		}
		want := rec.Step / sessiontest.DashGeoEvery * sessiontest.DashGeoEvery
		if m.sh.geoAt != want || m.sh.snapAt != rec.Step {
			t.Errorf("at %d: geometry @%d snapshot @%d, want @%d and @%d", rec.Step, m.sh.geoAt, m.sh.snapAt, want, rec.Step)
		}
	}
}

// isScalarPane reports whether pane i shows the scalars (Loss, LR & grad norm, System):
// they read them only while on screen and show every record (TestScalarPanes,
// TestScalarsOnScreen).
func isScalarPane(i int) bool {
	for _, j := range scalarPanes {
		if i == j {
			return true
		}
	}
	return false
}
