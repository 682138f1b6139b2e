package tui

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// TestScalarPanes: the Loss pane (8) and the LR & grad norm pane (9) of the fixture's
// replay show its loss, learning rate and gradient norm at the current step, read back
// from the session, and the loss's moving average computed here from the session's
// records by TensorBoard's rule (look.EMA, weight 0.6 by default); + and − step the
// smoothing (0.8, then back to none, "raw"). Both charts are drawn (· raw points, • the
// line) at 80×24.
func TestScalarPanes(t *testing.T) {
	r := openFixture(t)
	last, _, err := r.At(-1)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := r.Scalars(-1, scalarPoints)
	if err != nil {
		t.Fatal(err)
	}
	losses := make([]float64, len(recs))
	for i, rec := range recs {
		losses[i] = rec.Loss
	}
	m, _ := press(t, sized(New(r, Options{}), 80, 24), "8")
	v := checkedView(t, m, 80, 24)
	ema := look.EMA(losses, 0.6)
	mustContain(t, v, "training loss over steps", "EMA 0.6 (+/−)", "loss "+look.Num(last.Loss, 4),
		"EMA 0.6 "+look.Num(ema[len(ema)-1], 4), fmt.Sprintf("@%d", last.Step), "•", "·")
	m, _ = press(t, m, "+")
	ema8 := look.EMA(losses, 0.8)
	mustContain(t, checkedView(t, m, 80, 24), "EMA 0.8 (+/−)", "EMA 0.8 "+look.Num(ema8[len(ema8)-1], 4))
	m, _ = press(t, m, "-", "-")
	if v := checkedView(t, m, 80, 24); !strings.Contains(v, "raw (+/−)") || strings.Contains(v, "• EMA") {
		t.Errorf("two − from 0.8: not raw:\n%s", v)
	}
	m, _ = press(t, sized(New(r, Options{}), 80, 24), "9")
	v = checkedView(t, m, 80, 24)
	mustContain(t, v, fmt.Sprintf("lr %.2e", last.LR), "grad norm "+look.Num(last.GradNorm, 3), "learning rate", "grad norm")
}

// TestSystemPane: on a replay the System pane says its numbers are the session's and that
// CPU and memory were not recorded, and gives the speed the record holds and the mean
// speed over the records (computed here from their steps and wall times, the fixture's
// 3 s pause left out) and the wall time without that pause; on a live run
// whose process it is told (Options.RunPID, here this test's own) it samples that
// process: its resident memory agrees with /proc/self/statm within 25%, and sampling goes
// on while the run does; a live run whose process it is not told says so.
func TestSystemPane(t *testing.T) {
	r := openFixture(t)
	last, _, _ := r.At(-1)
	recs, _ := r.Scalars(-1, scalarPoints)
	const pause = 3.0 // seconds, at fxPause
	mean := float64(recs[len(recs)-1].Step-recs[0].Step) / (recs[len(recs)-1].WallS - recs[0].WallS - pause)
	m, _ := press(t, sized(New(r, Options{}), 80, 24), "0")
	wall := time.Duration((last.WallS - pause) * float64(time.Second)).Round(time.Second)
	mustContain(t, checkedView(t, m, 80, 24), "replay: as the session recorded it (CPU and memory are not recorded)",
		fmt.Sprintf("%s steps/s at step %d · %s mean", look.Num(last.StepsPerS, 1), last.Step, look.Num(mean, 1)),
		fmt.Sprintf("wall      %s at step %d, 3s paused left out", wall, last.Step), "steps/s")

	l, _ := liveFixture(t, liveCut(t))
	m, _ = press(t, sized(New(l, Options{}), 80, 24), "0")
	mustContain(t, checkedView(t, m, 80, 24), "this viewer does not know the run's process")
	if runtime.GOOS != "linux" {
		t.Skip("the process is sampled from /proc")
	}
	pid := os.Getpid()
	m = sized(New(l, Options{RunPID: pid}), 80, 24)
	if m.Init() == nil {
		t.Fatal("no sampling started")
	}
	var more bool
	for range 2 {
		nm, cmd := m.Update(sampleSys(pid, 0)())
		m, more = nm.(Model), cmd != nil
	}
	if !more {
		t.Error("sampling stopped while the run goes on")
	}
	m, _ = press(t, m, "0")
	v := checkedView(t, m, 80, 24)
	mustContain(t, v, fmt.Sprintf("live: process %d", pid), "CPU ", "cores)", "resident", "threads")
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := strconv.ParseFloat(strings.Fields(string(b))[1], 64)
	want := pages * float64(os.Getpagesize()) / (1 << 20)
	var got float64
	for _, line := range strings.Split(v, "\n") {
		if i := strings.Index(line, " MB resident"); i > 0 {
			f := strings.Fields(line[:i])
			got, _ = strconv.ParseFloat(f[len(f)-1], 64)
		}
	}
	if math.Abs(got-want) > 0.25*want {
		t.Errorf("resident memory %.0f MB, /proc/self/statm says %.0f MB:\n%s", got, want, v)
	}
	l.End()
	nm, _ := m.Update(feedMsg{changed: true, closed: true})
	if _, cmd := nm.(Model).Update(sampleSys(pid, 0)()); cmd != nil {
		t.Error("sampling goes on after the run ended")
	}
}

// TestOptimiserPage: from 120×40 the third page (] twice) shows the System, Loss and LR &
// grad norm panes at once, each boxed, the screen exactly its size.
func TestOptimiserPage(t *testing.T) {
	for _, sz := range [][2]int{{120, 40}, {160, 48}} {
		m, _ := press(t, sized(New(openFixture(t), Options{}), sz[0], sz[1]), "]", "]")
		v := checkedView(t, m, sz[0], sz[1])
		mustContain(t, v, "[3 Optimiser]", "─ System ", " Loss ━", "─ LR & grad norm ")
	}
	var _ sessions.Feed = openFixture(t)
}

// TestOptimChartsAligned: the LR and grad-norm charts stacked at 80×24 end their x axes in
// one column (the grad-norm chart's clip label took a right margin the LR chart lacked, so
// its axis ended earlier) and start them in one column.
func TestOptimChartsAligned(t *testing.T) {
	meta := sessions.Meta{Task: "bijection", Model: "transformer", Layers: 1, Heads: 1, Steps: 300, Config: []byte(`{"clip": 1}`)}
	l := sessions.NewLive(meta, nil, nil)
	for s := 1; s <= 300; s++ {
		l.Record(sessions.Record{Step: s, Loss: 3, LR: 1e-3 * math.Min(1, float64(s)/50), GradNorm: 0.4 + 2/float64(s), StepsPerS: 10, State: sessions.Training})
	}
	m, _ := press(t, sized(New(l, Options{}), 80, 24), "9")
	v := checkedView(t, m, 80, 24)
	mustContain(t, v, "clip")
	var starts, ends []int
	for _, l := range strings.Split(v, "\n") {
		rs := []rune(l)
		for i, c := range rs {
			if c != '└' {
				continue
			}
			j := i
			for j+1 < len(rs) && rs[j+1] == '─' {
				j++
			}
			starts, ends = append(starts, i), append(ends, j)
			break
		}
	}
	if len(ends) != 2 {
		t.Fatalf("want two stacked charts, found %d x axes:\n%s", len(ends), v)
	}
	if starts[0] != starts[1] || ends[0] != ends[1] {
		t.Errorf("the x axes span columns %d–%d and %d–%d, want one span:\n%s", starts[0], ends[0], starts[1], ends[1], v)
	}
}
