package launch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"
)

// tinyBijection is the quick preset's bijection transformer shrunk to train at a few ms a
// step: V=5, one layer of two heads at width 16, a batch of 8, 16 probe sequences.
func tinyBijection(t *testing.T, steps, every int) runconfig.Config {
	t.Helper()
	c, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	c.Tunnel.V, c.Transformer.Layers, c.Transformer.Heads, c.Transformer.Width = 5, 1, 2, 16
	c.Batch, c.ProbeSize, c.Steps, c.EvalEvery, c.CheckpointEvery, c.ProbeEvery, c.Workers = 8, 16, steps, every, every, 0, 1
	return c
}

// headless carries st to its end as `run --headless` does and returns what it printed.
func headless(t *testing.T, st *Run, o Output) (stdout, stderr string) {
	t.Helper()
	var out, errb strings.Builder
	if err := Headless(context.Background(), st, o, &out, &errb); err != nil {
		t.Fatalf("headless: %v\n%s", err, errb.String())
	}
	return out.String(), errb.String()
}

// TestHeadless runs a few steps through New and Headless: the session names the run and
// ends done, the summary line carries the run's fields and scores, the exit line the
// session, and the predictions file has a line per probe sequence with the model's
// distribution beside the posterior.
func TestHeadless(t *testing.T) {
	dir := t.TempDir()
	path, pred := filepath.Join(dir, "s.wtlab"), filepath.Join(dir, "pred.jsonl")
	cfg := tinyBijection(t, 5, 5)
	st, err := New(cfg, path, "test")
	if err != nil {
		t.Fatal(err)
	}
	out, errs := headless(t, st, Output{Predictions: pred})
	var s map[string]any
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("summary %q: %v", out, err)
	}
	for _, k := range []string{"task", "model", "params", "steps", "wall_s", "eval", "per_position"} {
		if _, ok := s[k]; !ok {
			t.Errorf("summary lacks %q", k)
		}
	}
	ev, _ := s["eval"].(map[string]any)
	for _, k := range []string{"bit_error_position", "bit_error_sample", "kl_bits", "tvd", "accuracy"} {
		if _, ok := ev[k]; !ok {
			t.Errorf("summary's eval lacks %q", k)
		}
	}
	if s["steps"] != 5.0 || !strings.Contains(errs, path) {
		t.Errorf("steps %v; stderr %q should name the session", s["steps"], errs)
	}
	sr, err := derived.ReadSessionRun(path)
	if err != nil || !sr.Done || sr.Config.Steps != 5 || sr.Score.Task != "bijection" {
		t.Errorf("session: %+v, %v; want a finished 5-step bijection run", sr, err)
	}
	data, err := os.ReadFile(pred)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != cfg.ProbeSize {
		t.Fatalf("%d prediction lines, want %d", len(lines), cfg.ProbeSize)
	}
	var p struct {
		Posterior [][]float64 `json:"posterior"`
		Model     [][]float64 `json:"model"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Model) != len(p.Posterior) || len(p.Model[0]) != 5 {
		t.Errorf("model distributions %v do not match the posterior's shape", p.Model)
	}
}

// TestResumeExtends continues a finished run from its last checkpoint with more steps
// (Resumable, Resume): the session records the new plan before training (its meta and its
// stored configuration), and the run ends done at the new length, resumed where the
// checkpoint was. A session without a checkpoint restarts from step 0 and says so.
func TestResumeExtends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.wtlab")
	first, err := New(tinyBijection(t, 8, 4), path, "test")
	if err != nil {
		t.Fatal(err)
	}
	headless(t, first, Output{})
	stored, ck, err := Resumable(path)
	if err != nil || ck == nil || ck.Step != 8 || stored.Steps != 8 {
		t.Fatalf("resumable: steps %d, checkpoint %+v, %v", stored.Steps, ck, err)
	}
	cfg := stored
	cfg.Steps = 12
	st, err := Resume(path, stored, cfg, ck)
	if err != nil {
		t.Fatal(err)
	}
	if st.Meta.Steps != 12 || st.Note != "" {
		t.Errorf("resumed meta plans %d steps, note %q", st.Meta.Steps, st.Note)
	}
	_, errs := headless(t, st, Output{})
	if !strings.Contains(errs, "(resumed at step 8)") {
		t.Errorf("stderr %q: want the step resumed at", errs)
	}
	sr, err := derived.ReadSessionRun(path)
	if err != nil || !sr.Done || sr.Config.Steps != 12 || sr.Score.Steps != 12 {
		t.Errorf("extended session: %+v, %v; want done at the 12 steps it records", sr, err)
	}

	bare := filepath.Join(t.TempDir(), "bare.wtlab")
	cj, _ := json.Marshal(stored)
	w, err := sessions.Create(bare, sessions.Meta{Task: stored.Task, Model: stored.Model, Steps: stored.Steps, Config: cj}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(sessions.Record{Step: 1, Loss: 1, State: sessions.Training})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	stored, ck, err = Resumable(bare)
	if err != nil || ck != nil {
		t.Fatalf("no checkpoint: %+v, %v", ck, err)
	}
	st, err = Resume(bare, stored, stored, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.Note, "restarting from step 0") {
		t.Errorf("note %q", st.Note)
	}
	headless(t, st, Output{})
	if sr, err := derived.ReadSessionRun(bare); err != nil || !sr.Done || sr.Score.Steps != 8 {
		t.Errorf("restarted session: %+v, %v", sr, err)
	}
}
