package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"windtunnel/sessions"
)

// TestDocScreens compares the screens docs/usage.md shows ("What a TensorBoard or W&B user
// reaches for") with testdata/TestDocScreens/*.golden (regenerate with `go test ./tui -run
// TestDocScreens -update`), each at 80×24 and 120×40: the user's own metrics charted in the
// Loss pane (u), and the System pane's wall time without the pause (replayed past it) with
// the history of a live run's CPU and memory (the optimiser page at 120×40).
func TestDocScreens(t *testing.T) {
	b, err := os.ReadFile(fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.wtlab")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var ms []sessions.UserMetric
	for s := 50; s <= 600; s += 50 {
		ms = append(ms, sessions.UserMetric{Step: s, Name: "probe/r2", Value: 1 - 0.8/float64(1+s/50)})
	}
	if err := sessions.AddUserMetrics(path, ms); err != nil {
		t.Fatal(err)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		w, h := sz[0], sz[1]
		t.Run("user_metrics_"+sizeName(w, h), func(t *testing.T) {
			m := focusOn(t, sized(New(r, Options{}), w, h), "Loss")
			m, _ = press(t, m, "u")
			golden.RequireEqual(t, checkedView(t, m, w, h))
		})
		t.Run("system_"+sizeName(w, h), func(t *testing.T) {
			l, _ := liveFixture(t, liveCut(t))
			m := sized(New(l, Options{RunPID: 1}), w, h)
			m.sh.ncpu = 2 // the screen is the same on any machine
			t0 := time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)
			var cpu time.Duration
			for i, busy := range []float64{0, 1.2, 1.6, 1.9, 1.8, 1.4, 1.7, 1.9} { // seconds of CPU per 2 s sample
				cpu += time.Duration(busy * float64(time.Second))
				s := procSample{pid: 1, at: t0.Add(time.Duration(i) * sysInterval), cpu: cpu,
					rss: int64(100+6*i) << 20, threads: 8, ok: true}
				nm, _ := m.Update(sysMsg{s: s})
				m = nm.(Model)
			}
			if w == 80 {
				m = focusOn(t, m, "System")
			} else {
				m, _ = press(t, m, "]", "]")
			}
			golden.RequireEqual(t, checkedView(t, m, w, h))
		})
	}
}

// sizeName is "80x24".
func sizeName(w, h int) string { return fmt.Sprintf("%dx%d", w, h) }
