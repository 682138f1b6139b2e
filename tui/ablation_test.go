package tui

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
	"windtunnel/sessions/sessiontest"
)

// ablationSession writes a session whose whole model is evaluated every 25 steps, with
// head L1H2 switched off at step 60 (an ablated evaluation alone, between evaluations) and
// evaluated ablated beside the whole model at 75 and 100, as the lab records them.
func ablationSession(t *testing.T) *sessions.Reader {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ablation.wtlab")
	meta := sessiontest.DashMeta()
	meta.Steps = 100
	w, err := sessions.Create(path, meta, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hd := sessions.Head{Layer: 1, Head: 2}
	for s := 1; s <= 100; s++ {
		r := sessions.Record{Step: s, WallS: float64(s) / 20, Loss: 1, StepsPerS: 20, State: sessions.Training}
		if s%25 == 0 {
			r.Eval = sessiontest.DashEval(s)
		}
		w.Record(r)
		if s == 60 {
			w.Event(sessions.Event{Step: s, Kind: sessions.EventHead, Layer: hd.Layer, Head: hd.Head})
		}
		if s == 60 || (s > 60 && s%25 == 0) {
			a := r
			a.Eval = sessiontest.DashEval(s, hd)
			w.Record(a)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestAblationDeltaSameStep checks that the Ablation pane's Δ compares the ablated
// evaluation with the whole model's of the same step, and says there is none when the
// heads were switched between evaluations.
func TestAblationDeltaSameStep(t *testing.T) {
	for _, c := range []struct {
		name   string
		step   int
		want   []string
		absent []string
	}{
		{"switch between evaluations", 70, []string{"ablated eval @60 without L1H2:", "Δ —", "no whole-model eval @60"},
			[]string{"whole model @50"}},
		{"beside an evaluation", 80, []string{"ablated eval @75 without L1H2:", "(whole model @75, the same step)",
			"Δ " + fsigned(sessiontest.DashEval(75, sessions.Head{Layer: 1, Head: 2}).BitErrorPosition-sessiontest.DashEval(75).BitErrorPosition, 3)},
			[]string{"Δ —"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := focusOn(t, sized(New(ablationSession(t), Options{}), 80, 24), "Ablation")
			m = typeStep(t, m, c.step)
			v := plain(m)
			mustContain(t, v, c.want...)
			for _, a := range c.absent {
				if strings.Contains(v, a) {
					t.Errorf("view has %q:\n%s", a, v)
				}
			}
		})
	}
}

// allHelp is a feed whose snapshots' every ablation Δ is negative (zeroing any unit helps),
// the recorded worst head the least negative, as the lab records it.
type allHelp struct{ sessions.Feed }

func (f allHelp) Snapshot(step int) (*sessions.Snapshot, int, error) {
	s, at, err := f.Feed.Snapshot(step)
	if s != nil {
		c := *s
		c.Ablation = append(c.Ablation[:0:0], s.Ablation...)
		for i := range c.Ablation {
			c.Ablation[i].DeltaBits = -0.01 - math.Abs(c.Ablation[i].DeltaBits)
		}
		c.HeadDelta = make([][]sessions.Num, len(s.HeadDelta))
		for l, row := range s.HeadDelta {
			for _, v := range row {
				c.HeadDelta[l] = append(c.HeadDelta[l], sessions.Num(-0.01-math.Abs(float64(v))))
			}
		}
		w, _ := diagnostics.Worst(c.Ablation)
		c.Costliest, c.CostliestHead = &w, &w
		s = &c
	}
	return s, at, err
}

// TestAblationNoneCostly: when every Δ < 0 the pane names no "costliest" head (it called
// the least negative one that) and says that none costs bits.
func TestAblationNoneCostly(t *testing.T) {
	f := allHelp{openFixture(t)}
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		v := plain(focusOn(t, sized(New(f, Options{}), sz[0], sz[1]), "Ablation"))
		if strings.Contains(v, "costliest") || strings.Contains(v, "▲") {
			t.Errorf("%dx%d: a costliest head where every Δ < 0:\n%s", sz[0], sz[1], v)
		}
		if !strings.Contains(v, "no head costs bits") && !strings.Contains(v, "none costs bits") {
			t.Errorf("%dx%d: no word that no head costs bits:\n%s", sz[0], sz[1], v)
		}
	}
}
