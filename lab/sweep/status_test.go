package sweep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
)

// TestEngineNotesAreNoFailure (issue 50): the lines the local engine writes in a point's log
// (the command it starts; a run its SIGTERM ended as it started) are never read as the
// point's failure: a point whose log holds only those is missing, to be started again, and
// a run's own last line is still its failure.
func TestEngineNotesAreNoFailure(t *testing.T) {
	cases := []struct {
		name, log string
		want      State
		detail    string
	}{
		{"started, then cancelled", "# 2026-01-02T03:04:05Z /bin/windtunnel run --headless --out x.wtlab\n" +
			"# 2026-01-02T03:04:06Z stopped by SIGTERM as it started; the next run of the sweep resumes it\n", Missing, ""},
		{"failed after its start", "# 2026-01-02T03:04:05Z /bin/windtunnel run\nwindtunnel: --lr 0: want > 0\n", Failed, "windtunnel: --lr 0: want > 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sw")
			g, pts := testGrid(t, "1e-3")
			m, err := Prepare(dir, g, pts)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Save(); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(m.LogPath(pts[0]), []byte(c.log), 0o600); err != nil {
				t.Fatal(err)
			}
			if st := m.Status(nil)[0]; st.State != c.want || st.Detail != c.detail {
				t.Errorf("%s (%q), want %s (%q)", st.State, st.Detail, c.want, c.detail)
			}
		})
	}
}

// TestStatusSaysWhereItResumes: a stopped point's detail names the checkpoint its next run
// starts from, or says it starts again from step 0 when its session has none (a slim copy).
func TestStatusSaysWhereItResumes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sw")
	g, pts := testGrid(t, "1e-3", "3e-3")
	m, err := Prepare(dir, g, pts)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	writeSession(t, m.SessionPath(pts[0]), 100, 40, sessions.Stopped)
	cfg, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Steps = 100
	cj, _ := json.Marshal(cfg)
	w, err := sessions.Create(m.SessionPath(pts[1]), sessions.Meta{Task: "bijection", Model: "transformer", Steps: 100, Config: cj}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 40; s++ {
		rec := sessions.Record{Step: s, State: sessions.Training}
		if s == 40 {
			rec.State = sessions.Stopped
		}
		w.Record(rec)
		if s == 30 {
			w.Checkpoint(&sessions.Checkpoint{Step: 30, Params: []sessions.Tensor{{Name: "w", Shape: []int{1}, F32: []float32{1}}}})
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	sts := m.Status(nil)
	for i, want := range []string{"stopped at step 40; no checkpoint: starts again from step 0", "stopped at step 40; resumes from its checkpoint at step 30"} {
		if sts[i].State != Stopped || sts[i].Detail != want {
			t.Errorf("point %d: %s (%q), want stopped (%q)", i, sts[i].State, sts[i].Detail, want)
		}
	}
}
