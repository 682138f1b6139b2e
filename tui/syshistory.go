package tui

import (
	"time"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// sysHistoryN is how many samples of the run's process the System pane keeps: the last
// four minutes at sysInterval.
const sysHistoryN = 120

// sysPoint is one sample of the run's process in the System pane's history: when, the CPU
// it used since the sample before (in cores) and its resident memory (MB).
type sysPoint struct {
	at    time.Time
	cpu   float64
	rssMB float64
}

// sysHistory is a ring of the newest sysHistoryN samples. It is an array, so that a copy
// of the model (every Update) copies it and no two models share it.
type sysHistory struct {
	pts     [sysHistoryN]sysPoint
	next, n int
}

// add keeps p, dropping the oldest sample when the ring is full.
func (h *sysHistory) add(p sysPoint) {
	h.pts[h.next] = p
	h.next = (h.next + 1) % sysHistoryN
	h.n = min(h.n+1, sysHistoryN)
}

// points returns the samples kept, oldest first.
func (h *sysHistory) points() []sysPoint {
	out := make([]sysPoint, 0, h.n)
	for i := range h.n {
		out = append(out, h.pts[(h.next-h.n+i+sysHistoryN)%sysHistoryN])
	}
	return out
}

// sysCharts are the System pane's history charts, most wanted first: steps/s over the steps
// shown (recorded: the whole run or the zoom, with the cursor while scrubbing) and, for a
// live run whose process is sampled, its CPU (cores busy) and resident memory over the
// last minutes (seconds since the oldest sample kept).
func (p *systemPane) sysCharts() []look.Chart {
	sh := p.sh
	var out []look.Chart
	var running []sessions.Record // a paused record's speed is no speed
	for _, r := range sh.scalars {
		if r.State != sessions.Paused {
			running = append(running, r)
		}
	}
	if len(running) > 1 {
		xs, sps := scalarSeries(running, func(r sessions.Record) float64 { return r.StepsPerS })
		out = append(out, scalarChart(sh, xs, sps, "steps/s", chartView{}, false, nil))
	}
	pts := sh.sys.hist.points()
	if len(pts) < 2 {
		return out
	}
	xs := make([]float64, len(pts))
	cpu, mem := make([]float64, len(pts)), make([]float64, len(pts))
	for i, q := range pts {
		xs[i], cpu[i], mem[i] = q.at.Sub(pts[0].at).Seconds(), q.cpu, q.rssMB
	}
	xr := look.Span{Lo: 0, Hi: max(xs[len(xs)-1], 1)}
	for _, c := range []struct {
		title string
		ys    []float64
	}{{"CPU, cores busy", cpu}, {"memory, MB resident", mem}} {
		out = append(out, look.Chart{XR: xr, YR: look.ZoomRange(c.ys), XInt: true, XTitle: "s", YTitle: c.title,
			Series: []look.Series{{Glyph: '•', Style: sh.st.SeriesA, X: xs, Y: c.ys}}})
	}
	return out
}

// minSysChartH is the least height of one of the System pane's history charts.
const minSysChartH = 6

// drawSysCharts draws as many of the history charts as fit in w×h, stacked, their y
// labels' columns aligned; "" when none fits.
func (p *systemPane) drawSysCharts(w, h int) string {
	cs := p.sysCharts()
	n := min(len(cs), h/minSysChartH)
	if n == 0 {
		return ""
	}
	hs := make([]int, n)
	ptrs := make([]*look.Chart, n)
	for i := range n {
		hs[i], ptrs[i] = h/n, &cs[i]
	}
	hs[n-1] += h - n*(h/n)
	look.AlignX(w, ptrs, hs)
	parts := make([]string, n)
	for i := range n {
		parts[i] = cs[i].Draw(w, hs[i])
	}
	return look.VCat(parts...)
}
