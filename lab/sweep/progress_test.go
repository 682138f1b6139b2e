package sweep

import (
	"testing"
	"time"
)

func TestMeter(t *testing.T) {
	t0 := time.Unix(1000, 0)
	mt := newMeter(t0)
	mt.observe(t0, 0, 0, 100, 0, true)
	mt.observe(t0, 1, 50, 100, 0, true) // resumed at 50
	mt.observe(t0, 2, 0, 100, 0, false) // not started
	if _, ok := mt.eta(t0.Add(time.Second)); ok {
		t.Error("an ETA before any step")
	}
	at := t0.Add(10 * time.Second)
	mt.observe(at, 0, 40, 100, 0, true)
	mt.observe(at, 1, 60, 100, 0, true)
	// 50 steps in 10 s; left 60 + 40 + 100 = 200 steps: 40 s (point 0 alone: 60 steps at
	// 4 a second, 15 s).
	if d, ok := mt.eta(at); !ok || d != 40*time.Second {
		t.Errorf("eta %v %v, want 40s", d, ok)
	}
	p := Progress{Done: 3, Total: 8, Running: 2, Failed: 1, Left: 2, ETA: 250 * time.Second, HasETA: true}
	if s := p.String(); s != "3/8 done, 2 running, 1 failed, 2 left, ETA 4m10s" {
		t.Errorf("progress line %q", s)
	}
}

// TestMeterLastPoint (issue 44 item 15): three points done and the fourth at its last step
// but still running its end — the final evaluation, geometry snapshot and checkpoint, as
// long as its earlier evaluation pauses (30 s) — is not "ETA 0s": the time left follows the
// running point's own progress. Observed once a second, as the local engine does.
func TestMeterLastPoint(t *testing.T) {
	t0 := time.Unix(1000, 0)
	mt := newMeter(t0)
	for ix := range 4 {
		mt.observe(t0, ix, 0, 100, 0, false)
	}
	now := t0
	tick := func(ix, step int, running bool) {
		now = now.Add(time.Second)
		mt.observe(now, ix, step, 100, 0, running)
	}
	// Points 0-2 trained one after another, 10 steps a second, and ended.
	for ix := range 3 {
		for s := 0; s <= 100; s += 10 {
			tick(ix, s, true)
		}
		tick(ix, 100, false)
	}
	// Point 3: 50 steps, a 30 s pause (an evaluation with a snapshot), 50 more steps.
	for s := 0; s <= 50; s += 10 {
		tick(3, s, true)
	}
	for range 30 {
		tick(3, 50, true)
	}
	for s := 60; s <= 100; s += 10 {
		tick(3, s, true)
	}
	tick(3, 100, true) // past its last step, ending
	d, ok := mt.eta(now)
	if !ok || d < 25*time.Second || d > 31*time.Second {
		t.Errorf("the last point at its last step, 1 s into an end like its 30 s pause: ETA %v (%v), want ≈ 29 s", d, ok)
	}
	// Halfway through its steps, the point still has its steps and its end to go.
	mt2 := newMeter(t0)
	mt2.observe(t0, 0, 0, 100, 0, true)
	mt2.observe(t0.Add(time.Second), 0, 10, 100, 0, true)
	mt2.observe(t0.Add(31*time.Second), 0, 20, 100, 0, true) // a 30 s pause
	// 80 steps at 20 in 31 s (124 s), then an end as long as the pause (30 s).
	if d, ok := mt2.eta(t0.Add(31 * time.Second)); !ok || d.Round(time.Second) != 154*time.Second {
		t.Errorf("80 steps at 20 in 31 s and a 30 s end: ETA %v (%v), want 2m34s", d, ok)
	}
	// An end that outlasts every pause has an unknown length: no ETA rather than 0 s.
	if d, ok := mt.eta(now.Add(40 * time.Second)); ok {
		t.Errorf("an end 40 s long, past every pause: ETA %v, want none", d)
	}
}

// TestMeterWeighsSteps: a grid whose steps differ in cost (a primitives grid: an hmm step of
// the quick preset costs ~10 recall steps) is timed by its work, not its steps. Point 0 (cost
// 10 a step) trains 100 steps in 100 s; point 1 (cost 1) has its 100 steps left: 10 s, where
// counting steps would say 100 s. A point of unknown or unbelievable cost makes every step
// count alike.
func TestMeterWeighsSteps(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, c := range []struct {
		name      string
		work0, w1 float64
		want      time.Duration
	}{
		{"weighed", 10, 1, 10 * time.Second},
		{"a cost unknown", 10, 0, 100 * time.Second},
		{"a cost out of bounds (a hostile manifest)", 10, 1e300, 100 * time.Second},
	} {
		mt := newMeter(t0)
		mt.observe(t0, 0, 0, 100, c.work0, true)
		mt.observe(t0, 1, 0, 100, c.w1, false)
		at := t0.Add(100 * time.Second)
		mt.observe(at, 0, 100, 100, c.work0, false) // done
		if d, ok := mt.eta(at); !ok || d != c.want {
			t.Errorf("%s: eta %v %v, want %v", c.name, d, ok, c.want)
		}
	}
}
