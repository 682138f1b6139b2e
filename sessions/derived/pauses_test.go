package derived

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
)

// TestActiveWall: the paused intervals found in the events and taken out of the wall time,
// within 1e-9 s.
func TestActiveWall(t *testing.T) {
	ev := func(kind sessions.EventKind, step int, wall float64) sessions.Event {
		return sessions.Event{Kind: kind, Step: step, WallS: wall}
	}
	pause, resume := sessions.EventPause, sessions.EventResume
	const tol = 1e-9
	for _, c := range []struct {
		name     string
		evs      []sessions.Event
		lastStep int
		walls    []float64 // raw wall times
		want     []float64 // without the pauses
	}{
		{"no events", nil, 100, []float64{0, 5, 50}, []float64{0, 5, 50}},
		{"one pause", []sessions.Event{ev(pause, 40, 10), ev(resume, 40, 70)}, 100,
			[]float64{5, 10, 30, 70, 80}, []float64{5, 10, 10, 10, 20}},
		{"two pauses", []sessions.Event{ev(pause, 10, 2), ev(resume, 10, 4), ev(pause, 20, 8), ev(resume, 20, 9.5)}, 100,
			[]float64{1, 3, 6, 9, 12}, []float64{1, 2, 4, 6, 8.5}},
		{"pause twice, resume twice", []sessions.Event{ev(pause, 10, 2), ev(pause, 10, 3), ev(resume, 10, 4), ev(resume, 10, 5)}, 100,
			[]float64{6}, []float64{4}},
		{"head events between", []sessions.Event{ev(pause, 10, 2), ev(sessions.EventHead, 10, 3), ev(resume, 10, 4)}, 100,
			[]float64{6}, []float64{4}},
		{"stopped while paused", []sessions.Event{ev(pause, 50, 20), ev(sessions.EventStop, 50, 90)}, 50,
			[]float64{19, 90}, []float64{19, 20}},
		{"paused, then resumed from an earlier checkpoint", []sessions.Event{ev(pause, 50, 20)}, 80,
			[]float64{19, 90}, []float64{19, 90}},
		{"resume without a pause", []sessions.Event{ev(resume, 5, 3)}, 100, []float64{10}, []float64{10}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps := Pauses(c.evs, c.lastStep)
			for i, w := range c.walls {
				if got := ActiveWall(w, ps); math.Abs(got-c.want[i]) > tol {
					t.Errorf("ActiveWall(%g) = %g, want %g (pauses %v)", w, got, c.want[i], ps)
				}
				if got := PausedS(w, ps); math.Abs(got-(w-c.want[i])) > tol {
					t.Errorf("PausedS(%g) = %g, want %g", w, got, w-c.want[i])
				}
			}
		})
	}
}

// TestReadRunPauses records a run paused for 40 s of its 60 and reads it back: the pause is
// found and the table's wall time leaves it out (within 1e-9 s).
func TestReadRunPauses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paused.wtlab")
	cfg, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Steps = 20
	cj, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sessions.Create(path, sessions.Meta{Task: "bijection", Model: "mlp", Steps: 20, Config: cj}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 20; s++ {
		wall := float64(s)
		if s > 10 {
			wall += 40 // paused from 10 s to 50 s, after step 10
		}
		r := sessions.Record{Step: s, WallS: wall, Loss: 1, State: sessions.Training}
		if s == 20 {
			r.State = sessions.Done
			r.Eval = &sessions.Eval{BitErrorPosition: 0.1, BitErrorSample: 0.2}
		}
		w.Record(r)
	}
	w.Event(sessions.Event{Step: 10, WallS: 10, Kind: sessions.EventPause})
	w.Event(sessions.Event{Step: 10, WallS: 50, Kind: sessions.EventResume})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	dr, err := ReadRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(dr.Pauses) != 1 || dr.Pauses[0] != (Pause{From: 10, To: 50}) {
		t.Fatalf("pauses %v, want [{10 50}]", dr.Pauses)
	}
	sr, err := SessionRunOf(dr)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sr.Score.WallS, 20.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("table wall time %g s, want %g (60 s less the 40 s pause)", got, want)
	}
}
