package figures

import (
	"fmt"
	"math"
	"testing"

	"windtunnel/sessions"
)

// TestUserMetricsFigures: a panel per metric with a number, six a figure (NAME-user,
// NAME-user-2), titled by the metric; a metric of NaN only gets none; no metrics, no figure.
func TestUserMetricsFigures(t *testing.T) {
	var ms []sessions.UserMetric
	for i := range 7 {
		ms = append(ms, sessions.UserMetric{Step: 10, Name: fmt.Sprintf("m%d", i), Value: float64(i)}, sessions.UserMetric{Step: 20, Name: fmt.Sprintf("m%d", i), Value: 1})
	}
	ms = append(ms, sessions.UserMetric{Step: 10, Name: "nan", Value: math.NaN()})
	run := Run{UserMetrics: ms}
	run.Config.Task, run.Config.Model, run.Config.Seed = "bijection", "transformer", 1
	figs := userMetricsFigures(Group{Name: "bijection-transformer", Runs: []Run{run}})
	if len(figs) != 2 || figs[0].name != "bijection-transformer-user" || figs[1].name != "bijection-transformer-user-2" ||
		len(figs[0].panels) != 6 || len(figs[1].panels) != 1 || figs[1].panels[0].plot.Title.Text != "m6" {
		for _, f := range figs {
			t.Logf("%s: %d panels", f.name, len(f.panels))
		}
		t.Fatalf("%d figures, want 2 of 6 and 1 panels", len(figs))
	}
	if p := figs[0].panels[4]; p.x0 != 1.0/3 || p.x1 != 2.0/3 || p.y0 != 0 || p.y1 != 0.5 {
		t.Errorf("the fifth panel at x %v..%v y %v..%v, want the middle of the lower row", p.x0, p.x1, p.y0, p.y1)
	}
	if figs := userMetricsFigures(Group{Name: "g", Runs: []Run{{}}}); len(figs) != 0 {
		t.Errorf("no metrics: %d figures", len(figs))
	}
}
