package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"windtunnel/lab/launch"

	"windtunnel/lab"
	"windtunnel/sessions"
)

// TestRunOutMissingDir: an explicit --out in a folder that does not exist is an error at
// the start (exit 2, as a bad value: issue 44 item 16), and no folder is created, with or without --detach.
func TestRunOutMissingDir(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "no", "dir")
	out := filepath.Join(dir, "x.wtlab")
	for _, extra := range [][]string{{"--headless"}, {"--detach"}} {
		args := append(append(append([]string{"run"}, extra...), "--steps", "20", "--out", out), tinyRun...)
		code, _, errs := runCLI(args...)
		if code != exitUsage {
			t.Fatalf("%v: exit %d, want 2: %s", extra, code, errs)
		}
		want := "run: --out " + out + ": directory " + dir + " does not exist"
		if !strings.Contains(errs, want) {
			t.Errorf("%v: stderr %q, want %q", extra, errs, want)
		}
		if _, err := os.Stat(filepath.Join(tmp, "no")); !os.IsNotExist(err) {
			t.Fatalf("%v: the missing folder was created (%v)", extra, err)
		}
	}
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(append([]string{"run", "--headless", "--steps", "20", "--out", filepath.Join(file, "x.wtlab")}, tinyRun...)...)
	if code != exitUsage || !strings.Contains(errs, "is not a directory") {
		t.Errorf("--out under a file: exit %d: %s", code, errs)
	}
}

// TestRunDefaultDirCreated: without --out the session goes in ./runs, created if missing.
func TestRunDefaultDirCreated(t *testing.T) {
	t.Chdir(t.TempDir())
	code, _, errs := runCLI(append([]string{"run", "--headless", "--steps", "20"}, tinyRun...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	files, err := filepath.Glob(filepath.Join("runs", "*.wtlab"))
	if err != nil || len(files) != 1 {
		t.Fatalf("./runs holds %v (%v), want one session", files, err)
	}
}

// TestResumeWithoutCheckpoint: a session with records but no checkpoint (a run stopped
// before its first) resumes as a restart from step 0 with its configuration, replacing
// the old records, and ends like an uninterrupted run.
func TestResumeWithoutCheckpoint(t *testing.T) {
	t.Parallel()
	const steps = 60
	cfg := tinyConfig(t, steps)
	path := filepath.Join(t.TempDir(), "early.wtlab")
	tr, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := launch.Meta(cfg, tr, path, version)
	tr.Close()
	if err != nil {
		t.Fatal(err)
	}
	w, err := sessions.Create(path, meta, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 30; s++ {
		w.Record(sessions.Record{Step: s, Loss: 99, LR: 1, State: sessions.Training})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	code, out, errs := runCLI("run", "--headless", "--resume", path)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}
	if want := "no checkpoint in " + path + ": restarting from step 0 with its configuration"; !strings.Contains(errs, want) {
		t.Errorf("stderr %q, want %q", errs, want)
	}
	var s launch.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.Steps != steps {
		t.Fatalf("summary %q: %v", out, err)
	}
	_, ref := trainInProcess(t, cfg)
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs, err := r.Records(0, steps)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(ref) || len(recs) < steps {
		t.Fatalf("%d records, clean run %d", len(recs), len(ref))
	}
	for i, rec := range recs {
		if rec.Step != ref[i].Step || rec.Loss != ref[i].Loss || rec.State != ref[i].State {
			t.Fatalf("record %d: step %d loss %v %s, clean run: step %d loss %v %s", i, rec.Step, rec.Loss, rec.State, ref[i].Step, ref[i].Loss, ref[i].State)
		}
	}
	if last := recs[len(recs)-1]; last.Step != steps || last.State != sessions.Done {
		t.Errorf("last record: step %d state %q, want step %d done", last.Step, last.State, steps)
	}
	if ck, ok, err := r.Checkpoint(-1); err != nil || !ok || ck.Step != steps {
		t.Errorf("last checkpoint %v %v: %v", ck, ok, err)
	}
}

// TestRunRefusesTooLarge: sizes each within its flag's range but together beyond the
// machine's memory are refused at start, before anything is allocated or recorded, with
// the estimate and the memory available.
func TestRunRefusesTooLarge(t *testing.T) {
	if lab.AvailableMemory() <= 0 {
		t.Skip("MemAvailable cannot be read here: no run is refused for its size")
	}
	out := filepath.Join(t.TempDir(), "big.wtlab")
	code, _, errs := runCLI("run", "--headless", "--task", "bijection", "--layers", "64", "--width", "4096", "--heads", "64",
		"--mlp-hidden", "65536", "--steps", "10", "--out", out)
	if code != 1 || !strings.Contains(errs, "the run needs about") || !strings.Contains(errs, "GiB is available") {
		t.Fatalf("exit %d, stderr %q: want a refusal with the estimate", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a session was created for a refused run (%v)", err)
	}
}
