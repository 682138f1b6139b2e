package figures

import (
	"fmt"
	"math"

	"windtunnel/sessions"
)

// loadUserMetrics reads the user's own metrics of the session at path (windtunnel metric).
func loadUserMetrics(path string) ([]sessions.UserMetric, error) {
	r, err := sessions.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.UserMetrics()
}

// userPanels is the most panels (metrics) of one user-metrics figure, and userColumns the
// columns they stand in.
const (
	userPanels  = 6
	userColumns = 3
)

// userMetricsFigures are the user's own metrics (windtunnel metric) against step: a panel
// per metric, on its own y axis (metrics of any scale side by side, as TensorBoard's cards),
// its mean ± sd over the seeds that recorded it, in name order, userPanels a figure
// (NAME-user, NAME-user-2, …); values that are not numbers are left out.
func userMetricsFigures(g Group) []figure {
	byName := map[string][][][2]float64{}
	var names []string
	for _, r := range g.Runs {
		series := map[string][][2]float64{}
		for _, m := range r.UserMetrics {
			if math.IsNaN(m.Value) {
				continue
			}
			if _, ok := byName[m.Name]; !ok {
				byName[m.Name] = nil
				names = append(names, m.Name)
			}
			series[m.Name] = append(series[m.Name], [2]float64{float64(m.Step), m.Value})
		}
		for name, s := range series {
			byName[name] = append(byName[name], s)
		}
	}
	var figs []figure
	for first := 0; first < len(names); first += userPanels {
		part := names[first:min(first+userPanels, len(names))]
		cols := min(len(part), userColumns)
		rows := (len(part) + cols - 1) / cols
		title := fmt.Sprintf("%s: your metrics (%s)", heading(g), seedsLabel(g))
		name := g.Name + "-user"
		if first > 0 {
			title += fmt.Sprintf(", part %d", first/userPanels+1)
			name += fmt.Sprintf("-%d", first/userPanels+1)
		}
		var panels []panel
		for i, metric := range part {
			p := newPlot("", "step", "")
			smallTitle(p, metric)
			integerX(p, 5)
			p.Y.Tick.Marker = linearTicks{n: 5}
			if err := addBand(p, meanBand(byName[metric]), 0, metric, false); err != nil {
				continue
			}
			p.Legend = newPlot("", "", "").Legend // the panel's title names it
			col, row := i%cols, i/cols
			panels = append(panels, panel{plot: p, x0: float64(col) / float64(cols), x1: float64(col+1) / float64(cols),
				y0: 1 - float64(row+1)/float64(rows), y1: 1 - float64(row)/float64(rows)})
		}
		if len(panels) > 0 {
			figs = append(figs, panelled(name, title, panels...))
		}
	}
	return figs
}
