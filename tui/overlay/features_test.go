package overlay

import (
	"fmt"
	"strings"
	"testing"

	"windtunnel/sessions"
	"windtunnel/tui"
)

// chartRows are the view's lines from the axis-title line ("bits …") to the footer.
func chartRows(t *testing.T, v string) []string {
	t.Helper()
	lines := strings.Split(v, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "bits") || strings.HasPrefix(l, "loss") {
			return lines[i+1 : len(lines)-1]
		}
	}
	t.Fatalf("no chart:\n%s", v)
	return nil
}

// curveFeed is a finished (done) or running bijection run of seed seed, model, evaluated
// every 25 steps up to 600 with bit error (a) a(step), (b) 1.2·a and KL 0.6·a, with the
// operator events evs.
func curveFeed(model string, seed int, a func(s int) float64, done bool, evs ...sessions.Event) *sessions.Live {
	m := seedMeta(seedRun{model: model, seed: seed, every: 25})
	l := sessions.NewLive(m, nil, nil)
	for s := 25; s <= 600; s += 25 {
		st := sessions.Training
		if done && s == 600 {
			st = sessions.Done
		}
		l.Record(sessions.Record{Step: s, State: st, Eval: &sessions.Eval{BitErrorPosition: a(s), BitErrorSample: 1.2 * a(s), KLBits: 0.6 * a(s)}})
	}
	for _, e := range evs {
		l.Event(e)
	}
	l.End()
	return l
}

// TestOverlayReferenceLines checks the pass line (on bit error (a) alone) and the
// context-free level (a bijection of V=20: 1.107 bits, on (a) and (b)), and Bayes at 0 on
// the axis from 0 (z).
func TestOverlayReferenceLines(t *testing.T) {
	feeds, names := overlayFeeds(t)
	o := sizedOverlay(New(feeds, names, tui.Options{}), 120, 40)
	for _, c := range []struct {
		keys      []string
		want, not []string
	}{
		{nil, []string{"0.15┤", " pass", "1.11┤", " no context"}, []string{" Bayes"}},
		{[]string{"z"}, []string{"0.15┤", " pass", "1.11┤", " no context", "   0┤", " Bayes"}, nil},
		{[]string{"m"}, []string{"1.11┤", " no context"}, []string{" pass"}},
		{[]string{"m", "m"}, nil, []string{" pass", " no context"}},
	} {
		v := strings.Join(chartRows(t, overlayView(t, pressOverlay(t, o, c.keys...), 120, 40)), "\n")
		mustContain(t, v, c.want...)
		for _, n := range c.not {
			if strings.Contains(v, n) {
				t.Errorf("%v: the chart has %q:\n%s", c.keys, n, v)
			}
		}
	}
}

// TestOverlayFitsTheBand checks the y axis fitted to the data: three MLP seeds that stall
// between 0.95 and 1.2 bits fill most of the chart's rows with their band, where the axis
// from 0 (z) squeezes it into the top quarter; the fitted chart names the pass line it
// leaves out below.
func TestOverlayFitsTheBand(t *testing.T) {
	var fs []sessions.Feed
	for seed := 1; seed <= 3; seed++ {
		fs = append(fs, curveFeed("mlp", seed, func(s int) float64 { return 1.2 - 0.25*float64(s)/600 + 0.02*float64(seed-2) }, true))
	}
	o := sizedOverlay(New(fs, nil, tui.Options{}), 120, 30)
	bandRows := func(v string) (int, int) {
		rows := chartRows(t, v)
		n := 0
		for _, r := range rows[:len(rows)-2] { // less the x axis and its labels
			if strings.ContainsAny(r, "░•") {
				n++
			}
		}
		return n, len(rows) - 2
	}
	v := overlayView(t, o, 120, 30)
	if n, of := bandRows(v); n < of/2 {
		t.Errorf("fitted: the band covers %d of %d rows:\n%s", n, of, v)
	}
	mustContain(t, v, "┄ pass 0.15 below", "y fitted (z)")
	v = overlayView(t, pressOverlay(t, o, "z"), 120, 30)
	if n, of := bandRows(v); n > of/4 {
		t.Errorf("from 0: the band covers %d of %d rows:\n%s", n, of, v)
	}
	mustContain(t, v, "y from 0 (z)")
}

// TestOverlayAllMetrics checks the fourth state of m: (a), (b) and KL a chart each (side by
// side on a wide screen, stacked on a tall one), the legend giving the three values.
func TestOverlayAllMetrics(t *testing.T) {
	for _, sz := range [][2]int{{160, 48}, {100, 40}} {
		o := pressOverlay(t, sizedOverlay(New(seedFeeds(), nil, tui.Options{}), sz[0], sz[1]), "m", "m", "m", "m")
		v := overlayView(t, o, sz[0], sz[1])
		mustContain(t, v, "bit error (a), (b) and KL over steps", "bit error (a) ", "bit error (b) ", "KL(p*‖q) ")
		line := legendLine(t, v, "transformer (3 seeds)")
		for _, m := range []string{"(a) ", "(b) ", "KL "} {
			if !strings.Contains(line, m) {
				t.Errorf("%d×%d: the legend lacks %q: %s", sz[0], sz[1], m, line)
			}
		}
	}
}

// TestOverlaySeedsInBands checks s: each seed's own curve drawn inside its band with the
// seed's own glyph (¹ ² ³) and a legend line per seed naming its glyph, with its value at
// the cursor.
func TestOverlaySeedsInBands(t *testing.T) {
	o := sizedOverlay(New(seedFeeds(), nil, tui.Options{}), 120, 40)
	v := overlayView(t, o, 120, 40)
	if strings.ContainsAny(strings.Join(chartRows(t, v), ""), string(seedGlyphs)) {
		t.Errorf("seed glyphs with the seeds hidden:\n%s", v)
	}
	o = pressOverlay(t, o, "s")
	v = overlayView(t, o, 120, 40)
	body := strings.Join(chartRows(t, v), "")
	for seed := 1; seed <= 3; seed++ {
		g := seedGlyphs[seed-1]
		if n := strings.Count(body, string(g)); n < 10 && seed != 2 { // seed 2 runs under the mean
			t.Errorf("seed %d's curve: %d %c:\n%s", seed, n, g, v)
		}
		key := fmt.Sprintf("%c seed %d  ", g, seed)
		if l := legendLine(t, v, key); !strings.Contains(l, fmt.Sprintf("(a) %.3f  @600", seedCurve("transformer", seed, 600))) {
			t.Errorf("seed %d: %s", seed, l)
		}
	}
}

// TestOverlayHeadsOff checks the mark on runs that had a head switched off: the heads and
// their steps in the legend (a seed group's with the seed), ⊘ on the curve.
func TestOverlayHeadsOff(t *testing.T) {
	feeds, names := overlayFeeds(t) // the fixture switches L1H2 off at step 400
	v := overlayView(t, sizedOverlay(New(feeds, names, tui.Options{}), 120, 40), 120, 40)
	if l := legendLine(t, v, "transformer cuda"); !strings.Contains(l, "⊘ L1H2@400") {
		t.Errorf("legend: %s", l)
	}
	if l := legendLine(t, v, "mlp cpu"); strings.Contains(l, "⊘") {
		t.Errorf("a run without events is marked: %s", l)
	}
	if !strings.Contains(strings.Join(chartRows(t, v), "\n"), "⊘") {
		t.Errorf("no ⊘ on the curve:\n%s", v)
	}
	fs := seedFeeds()
	fs[1] = curveFeed("transformer", 2, func(s int) float64 { return seedCurve("transformer", 2, s) }, false,
		sessions.Event{Step: 300, Kind: sessions.EventHead, Layer: 0, Head: 1},
		sessions.Event{Step: 350, Kind: sessions.EventHead, Layer: 0, Head: 1, On: true})
	v = overlayView(t, sizedOverlay(New(fs, nil, tui.Options{}), 120, 40), 120, 40)
	if l := legendLine(t, v, "transformer (3 seeds)"); !strings.Contains(l, "⊘ seed 2 L0H1@300") {
		t.Errorf("band legend: %s", l)
	}
}

// TestOverlayVerdict checks each series' verdict against the pass line at the cursor:
// final for finished runs (pass, FAIL), so far for running ones (passing, not yet), a seed
// group's on the mean with the seeds passing.
func TestOverlayVerdict(t *testing.T) {
	good := func(s int) float64 { return 0.05 + 2*float64(600-s)/600 }
	bad := func(s int) float64 { return 0.3 + 2*float64(600-s)/600 }
	fs := []sessions.Feed{
		curveFeed("transformer", 1, good, true), curveFeed("transformer", 2, good, true), curveFeed("transformer", 3, bad, true),
		curveFeed("mlp", 1, bad, false),
	}
	o := sizedOverlay(New(fs, nil, tui.Options{}), 120, 40)
	v := overlayView(t, o, 120, 40)
	// The mean of 0.05, 0.05, 0.3 is 0.133 ≤ 0.15: the group passes, 2 of its 3 seeds.
	if l := legendLine(t, v, "transformer (3 seeds)"); !strings.Contains(l, "  pass 2/3  ") {
		t.Errorf("group: %s", l)
	}
	if l := legendLine(t, v, "mlp"); !strings.Contains(l, "  not yet  ") {
		t.Errorf("running run: %s", l)
	}
	v = overlayView(t, pressOverlay(t, o, "s"), 120, 40)
	if l := legendLine(t, v, "³ seed 3  "); !strings.Contains(l, "  FAIL  ") {
		t.Errorf("seed 3: %s", l)
	}
	// Scrubbed back, the finished runs had not ended yet.
	v = overlayView(t, pressOverlay(t, o, "home"), 120, 40)
	if l := legendLine(t, v, "transformer (3 seeds)"); !strings.Contains(l, "  not yet 0/3  ") {
		t.Errorf("group at the first step: %s", l)
	}
}
