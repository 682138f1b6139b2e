package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// TestUserMetricsChart: a replayed session with the user's own metrics says so in the Loss
// pane's title; u charts each metric in the loss chart's place (its value at the newest
// step up to the cursor), then the loss again; the frame stays the terminal's size. A
// session without them shows no hint and u does nothing there.
func TestUserMetricsChart(t *testing.T) {
	b, err := os.ReadFile(fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.wtlab")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sessions.AddUserMetrics(path, []sessions.UserMetric{{Step: 100, Name: "probe/r2", Value: 0.5},
		{Step: 300, Name: "probe/r2", Value: 0.75}, {Step: 200, Name: "mine", Value: 3}}); err != nil {
		t.Fatal(err)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const w, h = 100, 30
	frame := func(m Model) string {
		t.Helper()
		v := plain(m)
		lines := strings.Split(v, "\n")
		if len(lines) != h {
			t.Fatalf("%d lines, want %d", len(lines), h)
		}
		for i, l := range lines {
			if n := len([]rune(l)); n != w {
				t.Fatalf("line %d is %d wide, want %d: %q", i, n, w, l)
			}
		}
		return v
	}
	m := focusOn(t, sized(New(r, Options{}), w, h), "Loss")
	mustContain(t, frame(m), "training loss over steps", "u: your metrics (2)")
	m, _ = press(t, m, "u")
	mustContain(t, frame(m), "your metric 1/2 over steps", "• mine 3.0000 @200")
	m, _ = press(t, m, "u")
	mustContain(t, frame(m), "your metric 2/2 over steps", "• probe/r2 0.7500 @300")
	m = typeStep(t, m, 150)
	mustContain(t, frame(m), "• probe/r2 0.5000 @100")
	m, _ = press(t, m, "u")
	mustContain(t, frame(m), "training loss over steps")

	plainM := focusOn(t, sized(New(openFixture(t), Options{}), w, h), "Loss")
	if v := frame(plainM); strings.Contains(v, "your metrics") {
		t.Errorf("a session without user metrics hints at them:\n%s", v)
	}
	if after, _ := press(t, plainM, "u"); frame(after) != frame(plainM) {
		t.Errorf("u changed the view of a session without user metrics")
	}
}
