package tui

import (
	"fmt"
	"strings"
	"testing"
)

// TestReplayShowsTheStep checks that a replay shows the run as it was at the step it is
// on, with no time left to run, and that only a live run followed to its newest step shows
// an ETA: the compact header at 80×24 and the Run pane at 160×48.
func TestReplayShowsTheStep(t *testing.T) {
	const mid = 300
	for _, c := range []struct {
		name    string
		live    bool
		step    int       // 0: stay at the newest step
		head    [2]string // how the compact header's lines start (80×24)
		state   string    // the Run pane's state row (160×48)
		speed   string    // and its speed row
		wantETA bool
	}{
		{"replay scrubbed", false, mid,
			[2]string{fmt.Sprintf("■ REPLAY step %d of %d · bijection", mid, fxSteps), "training at this step · 18.1/s · loss"},
			"training at this step · replay", fmt.Sprintf("steps/s at step %d", mid), false},
		{"replay at the end", false, 0,
			[2]string{fmt.Sprintf("■ REPLAY step %d of %d · bijection", fxSteps, fxSteps), "done at this step · 18.7/s · loss"},
			"done at this step (600 steps) · replay", fmt.Sprintf("steps/s at step %d", fxSteps), false},
		{"live following", true, 0, [2]string{"● LIVE training · bijection", "step 450/600 · "}, "training", "steps/s · ETA", true},
		{"live scrubbed", true, mid, [2]string{"● LIVE training · bijection", "step 300/600 · "}, "training",
			fmt.Sprintf("steps/s at step %d", mid), false},
	} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			t.Run(fmt.Sprintf("%s_%dx%d", strings.ReplaceAll(c.name, " ", "_"), sz[0], sz[1]), func(t *testing.T) {
				var m Model
				if c.live {
					l, _ := liveFixture(t, liveCut(t))
					m = New(l, Options{})
				} else {
					m = New(openFixture(t), Options{})
				}
				m = sized(m, sz[0], sz[1])
				if c.step > 0 {
					m = typeStep(t, m, c.step)
				}
				v := plain(m)
				if sz[0] == 80 {
					lines := strings.SplitN(v, "\n", 3)
					if !strings.HasPrefix(lines[0], c.head[0]) || !strings.HasPrefix(lines[1], c.head[1]) {
						t.Errorf("header\n%s\n%s\nwant it to start\n%s\n%s", lines[0], lines[1], c.head[0], c.head[1])
					}
				} else {
					mustContain(t, v, "state     "+c.state+" ", "speed     ", c.speed)
				}
				if got := strings.Contains(v, "ETA"); got != c.wantETA {
					t.Errorf("ETA shown %v, want %v:\n%s", got, c.wantETA, v)
				}
			})
		}
	}
}
