package figures

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// TestFrontierFigure: two configurations of the bijection V=20 transformer give the frontier,
// one curve each at the mean wall time of every evaluated step, with the authors' two bit
// errors as reference lines; one configuration, or another task, gives none.
func TestFrontierFigure(t *testing.T) {
	run := func(lr float64, seed uint64, msPerStep float64) Run {
		var r Run
		r.Config.Task, r.Config.Model, r.Config.Seed, r.Config.LR = "bijection", "transformer", seed, lr
		cfg, _ := json.Marshal(map[string]any{"task": "bijection", "model": "transformer", "lr": lr, "seed": seed})
		r.Meta.Config = cfg
		r.key = fmt.Sprint("lr ", lr) // seeds of one configuration share it
		for step := 100; step <= 1000; step += 100 {
			v := 1 / float64(step) * (1 + float64(seed)/10)
			r.Evals = append(r.Evals, sessions.Record{Step: step, WallS: float64(step) * msPerStep / 1000,
				Eval: &sessions.Eval{BitErrorSample: v, BitErrorPosition: v}})
		}
		return r
	}
	runs := []Run{run(1e-3, 1, 30), run(1e-3, 2, 34), run(3e-4, 1, 30)}
	f, ok := frontierFigure(runs)
	if !ok {
		t.Fatal("no frontier figure for two configurations")
	}
	if want := "bijection V=20: bit error (b) vs wall time, 2 configurations"; f.title != want {
		t.Errorf("title %q, want %q", f.title, want)
	}
	if f.plot.X.Min > 3 || f.plot.X.Max < 30 || f.plot.Y.Min > 0.0008 {
		t.Errorf("axes %g..%g s, from %g bits: want the runs' 3..32 s and the authors' 0.0008 in range", f.plot.X.Min, f.plot.X.Max, f.plot.Y.Min)
	}
	if _, ok := frontierFigure(runs[:2]); ok {
		t.Error("a frontier of one configuration")
	}
	// A run paused for 1000 s after step 500 (its records' wall times after it 1000 s
	// later): the axis leaves the pause out and ends where the unpaused runs do.
	paused := runs[0]
	paused.Evals = append([]sessions.Record(nil), runs[0].Evals...)
	for i := range paused.Evals {
		if paused.Evals[i].Step > 500 {
			paused.Evals[i].WallS += 1000
		}
	}
	paused.Pauses = []derived.Pause{{From: 15, To: 1015}}
	f, ok = frontierFigure([]Run{paused, runs[1], runs[2]})
	if !ok || f.plot.X.Max > 34*1.2+1e-9 {
		t.Errorf("paused run: axis ends at %g s, want ≤ %g (the 1000 s pause left out)", f.plot.X.Max, 34*1.2)
	}
	// Drawn at both sizes (to $WT_FIG_DIR too, to look at).
	dir := t.TempDir()
	if d := os.Getenv("WT_FIG_DIR"); d != "" {
		dir = d
	}
	for _, sz := range [][2]int{{480, 300}, {960, 600}} {
		path := filepath.Join(dir, fmt.Sprintf("frontier-paused-%dx%d.png", sz[0], sz[1]))
		if err := save(f, path, Options{Format: "png", Width: sz[0], Height: sz[1]}); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Fatalf("%s: %v", path, err)
		}
	}
	other := runs[2]
	other.Config.Task = "hmm"
	if _, ok := frontierFigure([]Run{runs[0], other}); ok {
		t.Error("a frontier over another task")
	}
}
