package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/lab/sweep"
	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
	"windtunnel/sessions/sessiontest"
)

// TestSlimSweepContinues: a primitives folder slimmed is a sweep folder whose finished
// points are never trained again, and whose table is the original's.
func TestSlimSweepContinues(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a short run")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "prim")
	slim := filepath.Join(t.TempDir(), "slim")
	args := []string{"primitives", "--tasks", "recall", "--models", "mlp", "--seeds", "1", "--steps", "8"}
	code, out, errs := runCLI(append(args, "--out", dir)...)
	if code != 0 {
		t.Fatalf("primitives: exit %d\n%s\n%s", code, out, errs)
	}
	code, sout, errs := runCLI("slim", "--out", slim, dir)
	if code != 0 || !strings.Contains(sout, "recall-mlp-seed=1.wtlab") || !strings.Contains(sout, "no checkpoint (done)") {
		t.Fatalf("slim: exit %d\n%s\n%s", code, sout, errs)
	}
	if _, err := os.Stat(filepath.Join(slim, sweep.ManifestName)); err != nil {
		t.Fatalf("the manifest was not copied: %v", err)
	}
	code, out2, errs2 := runCLI(append(args, "--out", slim)...)
	if code != 0 || !strings.Contains(errs2, "all 1 point done") || strings.Contains(errs2, "training") {
		t.Fatalf("primitives on the slim folder: exit %d, want nothing trained:\n%s", code, errs2)
	}
	if out2 != out {
		t.Errorf("the slim folder's table differs:\n%s\nvs\n%s", out2, out)
	}
	if code, _, errs := runCLI("slim", "--out", slim, dir); code == 0 || !strings.Contains(errs, "already exists") {
		t.Errorf("slim into a folder holding the copies: exit %d, %q, want refused", code, errs)
	}
}

// TestSlimUsage: slim without sessions or without --out is a usage error.
func TestSlimUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"slim", "--out", t.TempDir()}, "takes the sessions"},
		{[]string{"slim", "x.wtlab"}, "--out DIR is needed"},
		{[]string{"slim", "--rows", "0", "--out", t.TempDir(), "x.wtlab"}, "--rows 0"},
	} {
		if code, _, errs := runCLI(c.args...); code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q, want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestSlimSkipsLive: a session being written is not copied, the others are, and the
// command fails naming it.
func TestSlimSkipsLive(t *testing.T) {
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "slim")
	cfg, err := runconfig.Preset("quick", "bijection")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Steps, cfg.EvalEvery = 40, 10
	if err := sessiontest.WriteFinished(filepath.Join(dir, "a.wtlab"), cfg); err != nil {
		t.Fatal(err)
	}
	meta, err := sessiontest.Meta(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sessions.Create(filepath.Join(dir, "b.wtlab"), meta, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Record(sessions.Record{Step: 1, State: sessions.Training})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	code, sout, errs := runCLI("slim", "--out", out, dir)
	if code != 1 || !strings.Contains(errs, "b.wtlab") || !strings.Contains(errs, "1 of 2 sessions not copied") || !strings.Contains(sout, "a.wtlab") {
		t.Errorf("slim beside a live session: exit %d\n%s\n%s", code, sout, errs)
	}
	if _, err := os.Stat(filepath.Join(out, "a.wtlab")); err != nil {
		t.Errorf("the finished session was not copied: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "b.wtlab")); err == nil {
		t.Error("the live session was copied")
	}
}
