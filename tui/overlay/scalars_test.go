package overlay

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"windtunnel/sessions"
	"windtunnel/tui"
	"windtunnel/tui/look"
)

// lossFeed is a finished run of lr lr recorded at every step to 600, taking secPerStep
// seconds a step: its loss falls from 3 with a ±0.1 zigzag (raised by lift), evaluated
// every 25 steps.
func lossFeed(lr string, secPerStep, lift float64) *sessions.Live {
	l := sessions.NewLive(seedMeta(seedRun{model: "transformer", seed: 1, lr: lr, every: 25}), nil, nil)
	for s := 1; s <= 600; s++ {
		r := sessions.Record{Step: s, WallS: float64(s) * secPerStep, Loss: lossAt(s) + lift, State: sessions.Training}
		if s%25 == 0 {
			a := 0.05 + 2*math.Exp(-float64(s)/150)
			r.Eval = &sessions.Eval{BitErrorPosition: a, BitErrorSample: 1.2 * a, KLBits: 0.6 * a}
		}
		if s == 600 {
			r.State = sessions.Done
		}
		l.Record(r)
	}
	l.End()
	return l
}

// lossAt is the synthetic loss at step s.
func lossAt(s int) float64 { return 3*math.Exp(-float64(s)/200) + 0.1*float64(1-2*(s%2)) }

// rightmost is the last column of the chart rows holding glyph g (−1: none).
func rightmost(rows []string, g rune) int {
	col := -1
	for _, r := range rows {
		for c, ch := range []rune(r) {
			if ch == g {
				col = max(col, c)
			}
		}
	}
	return col
}

// TestOverlayLossWallSmooth: m to the loss charts every record's training loss, its
// legend giving each run's loss at the cursor (read back from the records); x puts the
// runs on a wall-clock axis, where the run 4× as fast (0.5 s a step against 2) ends a
// quarter of the way along while on the step axis both end at the right; + smooths the
// lines by the moving average, named in the title, which calms the zigzag: the smoothed
// line spans fewer rows at the end than the raw one.
func TestOverlayLossWallSmooth(t *testing.T) {
	feeds := []sessions.Feed{lossFeed("0.001", 0.5, 0), lossFeed("0.003", 2, 0.5)}
	o := pressOverlay(t, sizedOverlay(New(feeds, nil, tui.Options{}), 120, 40), "m", "m", "m")
	v := overlayView(t, o, 120, 40)
	mustContain(t, v, "training loss over steps", fmt.Sprintf("loss %s  @600", look.Num(lossAt(600), 3)))
	if !strings.Contains(strings.SplitN(v, "\n", 6)[3], "loss") {
		t.Errorf("the y axis is not titled loss:\n%s", v)
	}
	step := chartRows(t, v)
	a, b := rightmost(step, '•'), rightmost(step, '∘')
	if a < 100 || b < 100 {
		t.Errorf("on steps both runs end at the right: %d, %d\n%s", a, b, v)
	}

	w := pressOverlay(t, o, "x")
	v = overlayView(t, w, 120, 40)
	mustContain(t, v, "training loss over wall time (x)", "wall min")
	rows := chartRows(t, v)
	a, b = rightmost(rows, '•'), rightmost(rows, '∘')
	corner := strings.IndexRune(rows[len(rows)-2], '└')
	if frac := float64(a-corner) / float64(b-corner); frac < 0.15 || frac > 0.35 {
		t.Errorf("on wall time the fast run ends at %.2f of the slow one's span, want about 0.25:\n%s", frac, v)
	}

	s := pressOverlay(t, o, "+")
	v = overlayView(t, s, 120, 40)
	mustContain(t, v, "EMA 0.6 (+/−)")
	spread := func(rows []string) int { // rows the first run's line takes over its last tenth
		n := 0
		for _, r := range rows {
			rs := []rune(r)
			if len(rs) > 110 && strings.ContainsRune(string(rs[100:110]), '•') {
				n++
			}
		}
		return n
	}
	if raw, sm := spread(step), spread(chartRows(t, v)); sm >= raw {
		t.Errorf("smoothing left the zigzag: %d rows raw, %d smoothed", raw, sm)
	}
}

// TestOverlayWallWithoutPauses: on the wall-clock axis a run paused for 30 minutes at step
// 300 (its later records' wall times 1800 s later, the pause and resume recorded) ends
// where an equally fast run that never paused does, within two columns: the pause is left
// out (derived.ActiveRecords).
func TestOverlayWallWithoutPauses(t *testing.T) {
	paused := sessions.NewLive(seedMeta(seedRun{model: "transformer", seed: 1, lr: "0.003", every: 25}), nil, nil)
	for s := 1; s <= 600; s++ {
		wall := float64(s) * 2
		if s > 300 {
			wall += 1800
		}
		r := sessions.Record{Step: s, WallS: wall, Loss: lossAt(s) + 0.5, State: sessions.Training}
		if s%25 == 0 {
			a := 0.05 + 2*math.Exp(-float64(s)/150)
			r.Eval = &sessions.Eval{BitErrorPosition: a, BitErrorSample: 1.2 * a, KLBits: 0.6 * a}
		}
		if s == 600 {
			r.State = sessions.Done
		}
		paused.Record(r)
		if s == 300 {
			paused.Event(sessions.Event{Step: 300, WallS: 600, Kind: sessions.EventPause})
			paused.Event(sessions.Event{Step: 300, WallS: 2400, Kind: sessions.EventResume})
		}
	}
	paused.End()
	feeds := []sessions.Feed{lossFeed("0.001", 2, 0), paused}
	o := pressOverlay(t, sizedOverlay(New(feeds, nil, tui.Options{}), 120, 40), "m", "m", "m", "x")
	v := overlayView(t, o, 120, 40)
	mustContain(t, v, "training loss over wall time (x)", "wall min")
	rows := chartRows(t, v)
	if a, b := rightmost(rows, '•'), rightmost(rows, '∘'); a < 100 || b < a-2 || b > a+2 {
		t.Errorf("on wall time the paused run ends at column %d, the unpaused one at %d: want one column within 2:\n%s", b, a, v)
	}
}
