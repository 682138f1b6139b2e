package derived

import (
	"reflect"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
)

// TestGather: finished runs kept in order with their tasks and models as first met, the
// highest seed and the summed wall time; unfinished ones set aside with why.
func TestGather(t *testing.T) {
	sr := func(task, model string, seed uint64, wall float64, done bool) SessionRun {
		return SessionRun{Score: RunScore{Task: task, Model: model, Seed: seed, WallS: wall, Steps: 40, Session: task + model},
			Config: runconfig.Config{Steps: 100}, Done: done, State: sessions.Stopped}
	}
	srs := []SessionRun{
		sr("hmm", "lstm", 1, 2, true), sr("bijection", "transformer", 3, 4.5, true),
		sr("recall", "mamba", 7, 1, false), sr("hmm", "transformer", 2, 0.5, true),
	}
	f := Gather(srs)
	switch {
	case len(f.Runs) != 3 || f.Runs[0].Session != "hmmlstm" || f.Runs[2].Session != "hmmtransformer":
		t.Errorf("runs %+v, want the three finished in order", f.Runs)
	case !reflect.DeepEqual(f.Tasks, []string{"hmm", "bijection"}) || !reflect.DeepEqual(f.Models, []string{"lstm", "transformer"}):
		t.Errorf("tasks %v models %v, want [hmm bijection] [lstm transformer]", f.Tasks, f.Models)
	case f.Seeds != 3 || f.WallS != 7:
		t.Errorf("seeds %d wall %g, want 3 and 7 (the unfinished run's seed 7 and 1 s left out)", f.Seeds, f.WallS)
	case len(f.Unfinished) != 1 || f.Unfinished[0].Unfinished() != "not finished (stopped at step 40 of 100)":
		t.Errorf("unfinished %+v, want recall mamba: not finished (stopped at step 40 of 100)", f.Unfinished)
	}
	if e := Gather(nil); e.Runs != nil || e.Seeds != 0 || e.WallS != 0 {
		t.Errorf("Gather(nil) = %+v, want nothing", e)
	}
}
