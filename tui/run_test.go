package tui

import (
	"fmt"
	"strings"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/sessiontest"
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
			[2]string{fmt.Sprintf("■ REPLAY step %d of %d · bijection", mid, sessiontest.DashSteps), "training at this step · 18.1/s · bit error (a) 0.251 (b) 0.334 · not yet > 0.15"},
			"training at this step · replay", fmt.Sprintf("steps/s at step %d", mid), false},
		{"replay at the end", false, 0,
			[2]string{fmt.Sprintf("■ REPLAY step %d of %d · bijection", sessiontest.DashSteps, sessiontest.DashSteps), "done at this step · 18.7/s · bit error (a) 0.063 (b) 0.099 · pass ≤ 0.15"},
			"done at this step (600 steps) · replay", fmt.Sprintf("steps/s at step %d", sessiontest.DashSteps), false},
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

// endedFeed is a finished run of task whose last evaluation has bit error (a) a and
// accuracy acc.
func endedFeed(task string, a, acc float64) *sessions.Live {
	l := sessions.NewLive(sessions.Meta{Task: task, Model: "mlp", Steps: 100, Device: "cpu"}, nil, nil)
	l.Record(sessions.Record{Step: 50, State: sessions.Training, Eval: &sessions.Eval{BitErrorPosition: 2 * a, BitErrorSample: 2 * a, Accuracy: acc}})
	l.Record(sessions.Record{Step: 100, State: sessions.Done, Eval: &sessions.Eval{BitErrorPosition: a, BitErrorSample: a, Accuracy: acc}})
	l.End()
	return l
}

// TestVerdictShown checks the verdict against the tunnel's pass line (derived.VerdictOf) in
// the Run pane and the run summary: final (pass, FAIL) once the run has ended at the step,
// "passing" or "not yet" while it trains; recall judged by accuracy.
func TestVerdictShown(t *testing.T) {
	l, _ := liveFixture(t, liveCut(t))
	for _, c := range []struct {
		name      string
		feed      sessions.Feed
		step      int
		row, head string
	}{
		{"live following", l, 0, "verdict   passing: bit error (a) 0.101 ≤ 0.15", "· passing ≤ 0.15"},
		{"replay scrubbed", openFixture(t), 300, "verdict   not yet: bit error (a) 0.251 > 0.15", "· not yet > 0.15"},
		{"replay at the end", openFixture(t), 0, "verdict   pass: bit error (a) 0.063 ≤ 0.15", "· pass ≤ 0.15"},
		{"failed bijection", endedFeed("bijection", 1.107, 0.5), 0, "verdict   FAIL: bit error (a) 1.107 > 0.15", "· FAIL > 0.15"},
		{"failed bijection mid-run", endedFeed("bijection", 1.107, 0.5), 50, "verdict   not yet: bit error (a) 2.214 > 0.15", "· not yet > 0.15"},
		{"recall", endedFeed("recall", 2.01, 0.253), 0, "verdict   FAIL: accuracy 0.253 < 0.9", "· FAIL accuracy 0.253 < 0.9"},
	} {
		m := sized(New(c.feed, Options{}), 160, 48)
		if c.step > 0 {
			m = typeStep(t, m, c.step)
		}
		v := plain(m)
		mustContain(t, v, c.row)
		if head := strings.SplitN(v, "\n", 3)[1]; !strings.Contains(head, c.head) {
			t.Errorf("%s: the run summary lacks %q: %s", c.name, c.head, head)
		}
	}
}

// TestLegendInHelp checks that the help says what (a) and (b) are, which is the paper's
// headline and which the authors' code reports, and the pass line, at the least size
// (live: the quit dialog's keys take room too, and the legend is on the help's second
// page) and on a large screen.
func TestLegendInHelp(t *testing.T) {
	l, _ := liveFixture(t, liveCut(t))
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		m, _ := press(t, sized(New(l, Options{}), sz[0], sz[1]), "?")
		if strings.Contains(plain(m), "Keys 1/2") { // at 80×24 the legend is the help's second page
			m, _ = press(t, m, "?")
		}
		// Words that are not wrapped apart (the legend is a column beside the keys).
		mustContain(t, plain(m), "(a) bit error per position:", "paper's", "headline", "(b) bit error per sample:",
			"authors'", "retrain", "pass bit error (a) ≤ 0.15")
	}
}

// TestSessionPathShown checks that a session path too long for the Run pane (attach and
// serve show absolute paths) keeps its end, the file name, rather than being cut to
// "session …".
func TestSessionPathShown(t *testing.T) {
	const path = "/home/someone/projects/windtunnel/runs/2026-01-15T09-30-00-bijection-transformer.wtlab"
	l := sessions.NewLive(sessions.Meta{Task: "bijection", Model: "transformer", Steps: 100, Path: path}, nil, nil)
	l.Record(sessions.Record{Step: 10, State: sessions.Training})
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		m := focusOn(t, sized(New(l, Options{}), sz[0], sz[1]), "Run")
		var row string
		for _, line := range strings.Split(plain(m), "\n") {
			if i := strings.Index(line, "session   "); i >= 0 {
				row = line[i:]
				if j := strings.IndexAny(row, "│┃"); j >= 0 { // the pane's border, then its neighbour's
					row = row[:j]
				}
				row = strings.TrimRight(row, " ")
			}
		}
		if !strings.HasPrefix(row, "session   …") || !strings.HasSuffix(row, "-bijection-transformer.wtlab") {
			t.Errorf("%d×%d: session row %q, want the path's end after …", sz[0], sz[1], row)
		}
	}
}

// TestSessionPathSafe (issue 50 item 5): the Run pane printed the session's path as given
// (replay's argument, a name anyone may have chosen in a shared folder), its escape
// sequences included (a title set, an OSC 52 clipboard write on every redraw); it is now
// made safe to print (sessions.SafeText).
func TestSessionPathSafe(t *testing.T) {
	const path = "runs/evil\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07.wtlab"
	l := sessions.NewLive(sessions.Meta{Task: "bijection", Model: "transformer", Steps: 100, Path: path}, nil, nil)
	l.Record(sessions.Record{Step: 10, State: sessions.Training})
	m := focusOn(t, sized(New(l, Options{}), 160, 48), "Run")
	v := m.View()
	if strings.Contains(v, "\x1b]") || strings.Contains(v, "\x07") {
		t.Errorf("the view writes the path's escape sequences raw")
	}
	if !strings.Contains(plain(m), "runs/evil.wtlab") {
		t.Errorf("the session row lacks the path's printable part:\n%s", plain(m))
	}
}
