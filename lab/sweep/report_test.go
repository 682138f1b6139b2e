package sweep

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// TestReadStatus: the points' states from their sessions, counted; a sweep with Slurm jobs
// and no squeue on PATH warns once and keeps the sessions' states; the report's JSON has
// the folder, the points and the counts.
func TestReadStatus(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, jobs := range []bool{false, true} {
		m, pts := seedSweep(t, 3)
		if jobs {
			m.Jobs = []Job{{ID: "5", Indices: []int{2}}}
		}
		m.Save()
		writeSession(t, m.SessionPath(pts[0]), 100, 100, sessions.Done)
		writeSession(t, m.SessionPath(pts[1]), 100, 40, sessions.Stopped)
		var warned []string
		rep := m.ReadStatus(context.Background(), func(err error) { warned = append(warned, err.Error()) })
		var states []State
		for _, s := range rep.Points {
			states = append(states, s.State)
		}
		wantLast := Missing // no session, and no queue to say it is queued
		if len(states) != 3 || states[0] != Done || states[1] != Stopped || states[2] != wantLast {
			t.Errorf("jobs %v: states %v, want done, stopped, %s", jobs, states, wantLast)
		}
		if rep.Dir != m.Dir() || rep.Counts[Done] != 1 || rep.Counts[Stopped] != 1 {
			t.Errorf("jobs %v: dir %q counts %v", jobs, rep.Dir, rep.Counts)
		}
		if jobs != (len(warned) == 1) || jobs && !strings.Contains(warned[0], "squeue") {
			t.Errorf("jobs %v: warned %q, want one warning about squeue only with jobs", jobs, warned)
		}
		b, _ := json.Marshal(rep)
		for _, k := range []string{`"dir":`, `"points":[`, `"counts":{`} {
			if !strings.Contains(string(b), k) {
				t.Errorf("JSON %s lacks %s", b, k)
			}
		}
	}
}
