package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"windtunnel/tui/look"
)

// TestCurvesView compares the ANSI-stripped screen with testdata/TestCurvesView/*.golden
// (regenerate with `go test ./tui -run TestCurvesView -update`): the replay scrubbed to step
// 300 and zoomed to steps 200–400 at 80×24 (the Loss pane and the bit-error pane) and
// 120×40 (the training and optimiser pages).
func TestCurvesView(t *testing.T) {
	r := openFixture(t)
	zoomed := func(t *testing.T, w, h int) Model {
		m := typeStep(t, sized(New(r, Options{}), w, h), 200)
		m, _ = press(t, m, "z")
		m = typeStep(t, m, 400)
		m, _ = press(t, m, "z")
		return typeStep(t, m, 300)
	}
	for _, c := range []struct {
		name string
		w, h int
		keys []string
	}{
		{"80x24_bit_error", 80, 24, nil},
		{"80x24_loss", 80, 24, []string{"8"}},
		{"120x40_training", 120, 40, nil},
		{"120x40_optimiser", 120, 40, []string{"]", "]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ := press(t, zoomed(t, c.w, c.h), c.keys...)
			golden.RequireEqual(t, checkedView(t, m, c.w, c.h))
		})
	}
}

// xLabels are the step labels under the x axes of a screen: the runs of numbers just left
// of an axis title "step", each run's numbers in order.
func xLabels(v string) [][]int {
	var out [][]int
	run := regexp.MustCompile(`(\d+(?: +\d+)*) +step\b`)
	for _, l := range strings.Split(v, "\n") {
		for _, m := range run.FindAllStringSubmatch(l, -1) {
			var ns []int
			for _, f := range strings.Fields(m[1]) {
				n, _ := strconv.Atoi(f)
				ns = append(ns, n)
			}
			out = append(out, ns)
		}
	}
	return out
}

// cursorCols are the columns of the cursor glyph on the lines of v.
func cursorCols(v string) map[int]int {
	cols := map[int]int{}
	for _, l := range strings.Split(v, "\n") {
		for i, r := range []rune(l) {
			if r == look.CursorGlyph {
				cols[i]++
			}
		}
	}
	return cols
}

// TestCursorLine: scrubbed to step 300 of 600, the Loss chart still draws the whole run
// (its x axis labelled to 500, points right of the cursor), with the cursor line in one
// column and the legend giving the loss at step 300 as recorded; following, no cursor.
func TestCursorLine(t *testing.T) {
	r := openFixture(t)
	rec, _, err := r.At(300)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := press(t, typeStep(t, sized(New(r, Options{}), 80, 24), 300), "8")
	v := checkedView(t, m, 80, 24)
	mustContain(t, v, fmt.Sprintf("· loss %s", look.Num(rec.Loss, 4)), fmt.Sprintf("%c @300", look.CursorGlyph))
	cols := cursorCols(v)
	delete(cols, -1)
	var col, most int
	for c, n := range cols {
		if n > most {
			col, most = c, n
		}
	}
	if most < 5 {
		t.Fatalf("no cursor line (columns %v):\n%s", cols, v)
	}
	right := 0
	for _, l := range strings.Split(v, "\n") {
		rs := []rune(l)
		for i := col + 1; i < len(rs); i++ {
			if rs[i] == '•' {
				right++
			}
		}
	}
	if right == 0 {
		t.Errorf("no curve right of the cursor (column %d): the chart is cut at the cursor:\n%s", col, v)
	}
	if ls := xLabels(v); len(ls) != 1 || ls[0][len(ls[0])-1] < 500 {
		t.Errorf("x labels %v, want the whole run's, to 500 at least:\n%s", ls, v)
	}
	m, _ = press(t, m, "end")
	if v := checkedView(t, m, 80, 24); len(cursorCols(v)) != 0 {
		t.Errorf("following: a cursor is drawn:\n%s", v)
	}
}

// TestZoom: z at step 200 and at step 400 zooms every chart over steps to 200–400 (their x
// labels inside it, the scrubber naming it), Z shows the whole run again, and the mouse
// wheel halves the range about the cursor (up) and doubles it back (down); the full help
// at 80×24 names the keys and the wheel.
func TestZoom(t *testing.T) {
	r := openFixture(t)
	m := typeStep(t, sized(New(r, Options{}), 120, 40), 200)
	m, _ = press(t, m, "z")
	m = typeStep(t, m, 400)
	m, _ = press(t, m, "z")
	for _, page := range [][]string{nil, {"]", "]"}} {
		pm, _ := press(t, m, page...)
		v := checkedView(t, pm, 120, 40)
		mustContain(t, v, "zoom 200–400")
		ls := xLabels(v)
		if len(ls) == 0 {
			t.Fatalf("no x axes:\n%s", v)
		}
		for _, l := range ls {
			if len(l) < 2 || l[0] < 200 || l[len(l)-1] > 400 {
				t.Errorf("x labels %v, want inside 200–400:\n%s", l, v)
			}
		}
	}
	m, _ = press(t, m, "Z")
	v := checkedView(t, m, 120, 40)
	if strings.Contains(v, "zoom ") {
		t.Errorf("Z: still zoomed:\n%s", v)
	}
	if ls := xLabels(v); len(ls) == 0 || ls[0][len(ls[0])-1] < 500 {
		t.Errorf("Z: x labels %v, want the whole run's", ls)
	}
	wheel := func(m Model, b tea.MouseButton) Model {
		nm, _ := m.Update(tea.MouseMsg{Action: tea.MouseActionPress, Button: b})
		return nm.(Model)
	}
	m = wheel(m, tea.MouseButtonWheelUp) // at step 400 of 1–600: 300 steps, 400 keeping its place
	if lo, hi := m.sh.viewSpan(); !m.sh.zoom.on || hi-lo != 300 || lo > 400 || hi < 400 {
		t.Errorf("wheel up: steps %d–%d, want 300 steps about 400", lo, hi)
	}
	m = wheel(wheel(m, tea.MouseButtonWheelDown), tea.MouseButtonWheelDown)
	if m.sh.zoom.on {
		t.Errorf("wheel down twice: still zoomed to %+v", m.sh.zoom)
	}
	mustContain(t, strings.Join(helpScreens(t, sized(New(r, Options{}), 80, 24), 80, 24), "\n"), "wheel: zoom", "zoom: mark range end")
}

// TestPerChartSettings: on the optimiser page, y and + on the focused Loss pane set its
// chart's log-Y scale and smoothing only; the grad-norm chart and the bit-error chart keep
// theirs until focused themselves.
func TestPerChartSettings(t *testing.T) {
	m, _ := press(t, sized(New(openFixture(t), Options{}), 120, 40), "8", "y", "+")
	v := checkedView(t, m, 120, 40)
	mustContain(t, v, "loss (log)", "log Y (y/l)", "EMA 0.8 (+/−)", "grad norm EMA 0.6 (+/−)")
	if strings.Contains(v, "grad norm (log)") {
		t.Errorf("y on Loss set the grad-norm chart's scale too:\n%s", v)
	}
	m, _ = press(t, m, "9", "y", "-")
	v = checkedView(t, m, 120, 40)
	mustContain(t, v, "loss (log)", "grad norm (log)", "EMA 0.8 (+/−)", "grad norm raw (+/−)")
	m, _ = press(t, m, "2")
	mustContain(t, checkedView(t, m, 120, 40), "linear Y (y/l)")
	if strings.Contains(checkedView(t, m, 120, 40), "bits (log)") {
		t.Error("the bit-error chart turned log with the others")
	}
	m, _ = press(t, m, "3", "y") // Attention focus has no chart over steps: y says so
	if !strings.Contains(m.status, "focused chart") {
		t.Errorf("y on a pane without a chart: status %q", m.status)
	}
}

// TestSystemHistory: a live run whose process is sampled shows the samples' CPU and memory
// history as charts beside the steps/s one, on the optimiser page at 120×40.
func TestSystemHistory(t *testing.T) {
	l, _ := liveFixture(t, liveCut(t))
	m := sized(New(l, Options{RunPID: 1}), 120, 40)
	t0 := time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)
	for i := range 5 {
		s := procSample{pid: 1, at: t0.Add(time.Duration(i) * sysInterval), cpu: time.Duration(i) * 3 * time.Second,
			rss: int64(100+10*i) << 20, threads: 8, ok: true}
		nm, _ := m.Update(sysMsg{s: s})
		m = nm.(Model)
	}
	if got := len(m.sh.sys.hist.points()); got != 4 {
		t.Errorf("history holds %d points, want 4 (a CPU share from the second sample on)", got)
	}
	m, _ = press(t, m, "]", "]")
	mustContain(t, checkedView(t, m, 120, 40), "steps/s", "CPU, cores busy", "memory, MB resident", "140 MB resident")
}

// TestSysHistoryRing: the ring keeps the newest sysHistoryN samples, oldest first.
func TestSysHistoryRing(t *testing.T) {
	var h sysHistory
	for i := range sysHistoryN + 7 {
		h.add(sysPoint{cpu: float64(i)})
	}
	pts := h.points()
	if len(pts) != sysHistoryN || pts[0].cpu != 7 || pts[len(pts)-1].cpu != sysHistoryN+6 {
		t.Errorf("ring: %d points from %g to %g, want %d from 7 to %d", len(pts), pts[0].cpu, pts[len(pts)-1].cpu, sysHistoryN, sysHistoryN+6)
	}
}

// TestZoomFollows: zoomed with the wheel while following a live run, the range keeps its
// width and slides with the newest step as records arrive.
func TestZoomFollows(t *testing.T) {
	t.Parallel() // it waits out the frame interval (minFrame) between records
	r := openFixture(t)
	cut := liveCut(t)
	l, _ := liveFixture(t, cut)
	m := sized(New(l, Options{}), 80, 24)
	nm, _ := m.Update(tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp})
	m = nm.(Model)
	lo, hi := m.sh.viewSpan()
	if !m.sh.zoom.on || hi != cut {
		t.Fatalf("wheel up while following: steps %d–%d, want a range ending at %d", lo, hi, cut)
	}
	recs, err := r.Records(cut+1, cut+50)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		l.Record(rec)
	}
	time.Sleep(minFrame)
	nm, _ = m.Update(feedMsg{changed: true})
	m = nm.(Model)
	if lo2, hi2 := m.sh.viewSpan(); hi2 != cut+50 || hi2-lo2 != hi-lo {
		t.Errorf("after 50 more steps: %d–%d, want %d–%d", lo2, hi2, lo+50, hi+50)
	}
	mustContain(t, checkedView(t, m, 80, 24), fmt.Sprintf("zoom %d–%d", lo+50, hi+50))
}

// TestMouseScrubBar: on the scrubber bar a click moves to the step under it (the bar's
// quarter: about step 150 of 1–600) and a drag from a quarter to three quarters zooms to
// about 150–450 (within a bar column's worth of steps).
func TestMouseScrubBar(t *testing.T) {
	m := sized(New(openFixture(t), Options{}), 80, 24)
	row := []rune(strings.Split(checkedView(t, m, 80, 24), "\n")[22])
	open, end := -1, -1
	for i, r := range row {
		switch r {
		case '[':
			open = i
		case ']':
			end = i
		}
	}
	if open < 0 || end <= open+5 {
		t.Fatalf("no bar on the scrubber line %q", string(row))
	}
	bw := end - open - 1
	colOf := func(frac float64) int { return open + 1 + int(frac*float64(bw-1)+0.5) }
	perCol := 599 / float64(bw-1)
	mouse := func(m Model, a tea.MouseAction, x int) Model {
		nm, _ := m.Update(tea.MouseMsg{X: x, Y: 22, Action: a, Button: tea.MouseButtonLeft})
		return nm.(Model)
	}
	near := func(got, want int) bool {
		return float64(got) >= float64(want)-perCol && float64(got) <= float64(want)+perCol
	}
	c := mouse(mouse(m, tea.MouseActionPress, colOf(0.25)), tea.MouseActionRelease, colOf(0.25))
	if s, follow := c.Step(); follow || !near(s, 150) || c.sh.zoom.on {
		t.Errorf("click at a quarter: step %d (follow %v, zoom %v), want about 150 and no zoom", s, follow, c.sh.zoom.on)
	}
	d := mouse(mouse(mouse(m, tea.MouseActionPress, colOf(0.25)), tea.MouseActionMotion, colOf(0.5)), tea.MouseActionRelease, colOf(0.75))
	if lo, hi := d.sh.viewSpan(); !d.sh.zoom.on || !near(lo, 150) || !near(hi, 450) {
		t.Errorf("drag from a quarter to three quarters: zoom %v to %d–%d, want about 150–450", d.sh.zoom.on, lo, hi)
	}
}
