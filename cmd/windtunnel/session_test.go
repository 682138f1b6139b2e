package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"windtunnel/lab/launch"
	"windtunnel/sessions/runconfig"

	"github.com/spf13/pflag"

	"windtunnel/backends/cuda"
	"windtunnel/lab"
	"windtunnel/sessions"
)

// childEnv makes the test binary act as the windtunnel command (for kill -9 tests).
const childEnv = "WINDTUNNEL_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		limitChild()
		limitAddressSpace(os.Stderr) // as main does
		os.Exit(run(testSized(os.Args[1:]), os.Stdout, os.Stderr))
	}
	// Every process this test binary starts as windtunnel (a sweep's or a compare's points,
	// a detached run, a Slurm array task) acts as windtunnel: set once here, not with
	// t.Setenv in each test, so that the tests that start them may run in parallel.
	os.Setenv(childEnv, "1")
	os.Exit(m.Run())
}

// testSizedRun are the settings a child `run --preset P` (a point of compare or
// primitives) gets unless its command line gives them: a test-sized probe set and geometry
// sample in place of the preset's 512 probe sequences and 64 geometry sequences, which cost
// the tests' few-step runs (evaluated every step, the cadences fitted to the steps) most of
// their time. The tables, reports and folders those tests check do not depend on them.
var testSizedRun = []string{"--probe", "64", "--geometry-n", "16"}

// testSized is args with testSizedRun added to a `run` of a preset that does not give them.
func testSized(args []string) []string {
	if len(args) == 0 || args[0] != "run" || !slices.ContainsFunc(args, func(a string) bool { return a == "--preset" || strings.HasPrefix(a, "--preset=") }) {
		return args
	}
	out := slices.Clone(args)
	for i := 0; i+1 < len(testSizedRun); i += 2 {
		flag := testSizedRun[i]
		if !slices.ContainsFunc(args, func(a string) bool { return a == flag || strings.HasPrefix(a, flag+"=") }) {
			out = append(out, flag, testSizedRun[i+1])
		}
	}
	return out
}

// tinyRun is a bijection configuration that trains at a few ms a step, its geometry
// snapshots on 16 sequences (the preset's 64 cost a short run most of its time).
var tinyRun = []string{"--task", "bijection", "--v", "8", "--layers", "2", "--heads", "2", "--width", "32", "--batch", "32",
	"--probe", "64", "--eval-every", "50", "--checkpoint-every", "50", "--lr", "3e-3", "--warmup", "40", "--geometry-n", "16"}

// tinyConfig is tinyRun as a lab configuration.
func tinyConfig(t *testing.T, steps int) runconfig.Config {
	t.Helper()
	var f runFlags
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse(append(append([]string{}, tinyRun...), "--steps", itoa(steps))); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.config()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func itoa(n int) string { return strconv.Itoa(n) }

// trainInProcess runs cfg to the end with a session writer attached and returns the final
// checkpoint and every record.
func trainInProcess(t *testing.T, cfg runconfig.Config) (*sessions.Checkpoint, []sessions.Record) {
	t.Helper()
	tr, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ref.wtlab")
	w, err := sessions.Create(path, sessions.Meta{Task: cfg.Task}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr.Attach(w)
	if _, err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ck, ok, err := r.Checkpoint(-1)
	if err != nil || !ok {
		t.Fatalf("no final checkpoint: %v", err)
	}
	recs, err := r.Records(0, cfg.Steps)
	if err != nil {
		t.Fatal(err)
	}
	return ck, recs
}

func maxParamDiff(t *testing.T, a, b *sessions.Checkpoint) float64 {
	t.Helper()
	if len(a.Params) != len(b.Params) {
		t.Fatalf("%d vs %d parameters", len(a.Params), len(b.Params))
	}
	d := 0.0
	for i := range a.Params {
		x, y := a.Params[i].F32, b.Params[i].F32
		if len(x) != len(y) {
			t.Fatalf("parameter %s: %d vs %d elements", a.Params[i].Name, len(x), len(y))
		}
		for j := range x {
			d = math.Max(d, math.Abs(float64(x[j])-float64(y[j])))
		}
	}
	return d
}

// TestKill9ThenResume runs windtunnel in a child process, kills it with SIGKILL mid-run,
// checks that the session opens and holds every committed record with the values a clean
// run produces, then resumes it from its last checkpoint to the end and checks that the
// parameters equal those of an uninterrupted run.
func TestKill9ThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three short runs")
	}
	t.Parallel()
	// 600 steps, a checkpoint every 200: the kill comes after the first one and 400 steps
	// before the end (the child is held within 50 ms, a few dozen steps).
	const steps, every = 600, 200
	path := filepath.Join(t.TempDir(), "killed.wtlab")
	// Eight geometry sequences, not the preset's 64: the snapshots cost most of the three
	// runs' CPU and nothing here reads them.
	args := append(append([]string{"run", "--headless", "--steps", itoa(steps), "--out", path}, tinyRun...), "--checkpoint-every", itoa(every), "--geometry-n", "8")
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint at step ≥ %d within 2 minutes", every)
		}
		time.Sleep(50 * time.Millisecond)
		r, err := sessions.Open(path)
		if err != nil {
			continue
		}
		cks, _ := r.Checkpoints()
		r.Close()
		if len(cks) > 0 && cks[len(cks)-1] >= every {
			break
		}
	}
	// Held at once (SIGSTOP), lest a fast machine train to the end before the kill, and
	// killed there: between the commit that showed the checkpoint and the next.
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if err := cmd.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	refCfg := tinyConfig(t, steps)
	refCfg.GeometryN = 8
	refCk, ref := trainInProcess(t, refCfg)
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatalf("killed session does not open: %v", err)
	}
	got, err := r.Records(0, steps)
	if err != nil {
		t.Fatal(err)
	}
	lastCk, ok, err := r.Checkpoint(-1)
	r.Close()
	if err != nil || !ok {
		t.Fatalf("killed session has no checkpoint: %v", err)
	}
	if len(got) < every || len(got) >= steps {
		t.Fatalf("%d records survived the kill, want between %d and %d", len(got), every, steps)
	}
	t.Logf("killed at step %d, last checkpoint %d", got[len(got)-1].Step, lastCk.Step)
	for i, rec := range got {
		want := ref[i]
		if rec.Step != i+1 || rec.Step != want.Step || rec.Loss != want.Loss || rec.LR != want.LR || (rec.Eval == nil) != (want.Eval == nil) {
			t.Fatalf("record %d: step %d loss %v lr %v, clean run: step %d loss %v lr %v", i, rec.Step, rec.Loss, rec.LR, want.Step, want.Loss, want.LR)
		}
		if rec.Eval != nil && rec.Eval.BitErrorPosition != want.Eval.BitErrorPosition {
			t.Fatalf("step %d: bit error %v, clean run %v", rec.Step, rec.Eval.BitErrorPosition, want.Eval.BitErrorPosition)
		}
	}

	code, out, errs := runCLI("run", "--headless", "--resume", path)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "resumed at step") {
		t.Errorf("resume did not say where it resumed: %s", errs)
	}
	var s launch.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.Steps != steps {
		t.Fatalf("resume summary %q: %v", out, err)
	}
	r, err = sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	endCk, _, err := r.Checkpoint(-1)
	if err != nil || endCk.Step != steps {
		t.Fatalf("resumed session's last checkpoint: %+v, %v", endCk, err)
	}
	if d := maxParamDiff(t, endCk, refCk); d > 1e-6 {
		t.Errorf("resumed parameters differ from the uninterrupted run's by %g", d)
	}
	all, _ := r.Records(0, steps)
	if all[len(all)-1].Step != steps || all[steps-1].Loss != ref[steps-1].Loss {
		t.Errorf("resumed records end at step %d, loss %v (clean %v)", all[len(all)-1].Step, all[steps-1].Loss, ref[steps-1].Loss)
	}
}

// TestSessionCommands covers info and export on a short run, and clear errors for files
// that are not sessions.
func TestSessionCommands(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.wtlab")
	if code, _, errs := runCLI(append([]string{"run", "--headless", "--steps", "60", "--out", path}, tinyRun...)...); code != 0 {
		t.Fatalf("run: %s", errs)
	}
	code, out, errs := runCLI("info", path)
	if code != 0 || !strings.Contains(out, "steps     1..60 of 60") || !strings.Contains(out, "bit error (a)") {
		t.Errorf("info: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runCLI("export", path, "--format", "csv")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 1+61 || !strings.HasPrefix(lines[0], "step,") {
		t.Errorf("export csv: exit %d, %d lines", code, len(lines))
	}
	code, out, _ = runCLI("export", path, "--format", "jsonl", "--what", "per-position")
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2*7 { // evaluations at 50 and 60, 7 scored positions (V=8)
		t.Errorf("export per-position: exit %d, %d lines", code, len(lines))
	}
	for _, step := range []string{"-1", "55"} {
		code, out, errs = runCLI("probe", path, "--json", "--step", step)
		var rep struct {
			Step int `json:"step"`
			Eval struct {
				BitError float64 `json:"bit_error_position"`
			} `json:"eval"`
			Geometry struct {
				KeyOrth          [][]float64 `json:"key_orthogonality"`
				KeyOrthRandom    float64     `json:"key_orthogonality_random"`
				AttentionEntropy [][]float64 `json:"attention_entropy"`
				Manifold         struct {
					Share    []float64 `json:"share"`
					Spearman *float64  `json:"pc1_entropy_spearman"`
				} `json:"value_manifold"`
				HeadDelta [][]float64 `json:"head_delta"`
			} `json:"geometry"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
			t.Fatalf("probe --step %s: exit %d\n%s%s", step, code, out, errs)
		}
		wantStep := map[string]int{"-1": 60, "55": 50}[step]
		g := rep.Geometry
		if rep.Step != wantStep || !(rep.Eval.BitError > 0) || len(g.KeyOrth) != 2 || len(g.KeyOrth[1]) != 2 || !(g.KeyOrthRandom > 0) ||
			len(g.AttentionEntropy) != 2 || len(g.Manifold.Share) != 3 || g.Manifold.Spearman == nil || len(g.HeadDelta) != 2 || len(g.HeadDelta[0]) != 2 {
			t.Errorf("probe --step %s: %+v", step, rep)
		}
	}
	if code, out, _ = runCLI("probe", path); code != 0 || !strings.Contains(out, "key orthogonality") || !strings.Contains(out, "costliest") {
		t.Errorf("probe text: exit %d\n%s", code, out)
	}
	junk := filepath.Join(dir, "junk.wtlab")
	os.WriteFile(junk, []byte("hello, this is not a session"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"info", junk}, 1, "not a windtunnel session"},
		{[]string{"info", filepath.Join(dir, "missing.wtlab")}, 1, "no such file"},
		{[]string{"export", junk}, 1, "not a windtunnel session"},
		{[]string{"export", path, "--format", "xml"}, 2, "--format"},
		{[]string{"run", "--headless", "--resume", junk}, 2, "not a windtunnel session"},
		{[]string{"run", "--headless", "--resume", path}, 2, "nothing to do"},
		{[]string{"run", "--headless", "--resume", path, "--lr", "1"}, 2, "--lr"},
		{[]string{"run", "--headless", "--out", path}, 1, "file exists"},
		{[]string{"probe", junk}, 1, "not a windtunnel session"},
		{[]string{"probe", path, "--step", "10"}, 1, "no checkpoint at or before step 10"},
		{[]string{"probe", path, "--geometry-n", "2"}, 2, "--geometry-n"},
		{[]string{"compare", "--tasks", "maze"}, 2, "--tasks"},
		{[]string{"compare", "--models", "rnn"}, 2, "--models"},
		{[]string{"compare", "--seeds", "0"}, 2, "--seeds"},
		{[]string{"compare", "--preset", "huge"}, 2, "--preset"},
	} {
		code, _, errs := runCLI(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d naming %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// TestDeviceFlag: a bad --device is a usage error; --device cuda on a machine without a GPU
// exits 1 saying what is missing, never a panic.
func TestDeviceFlag(t *testing.T) {
	if code, _, errs := runCLI(append([]string{"run", "--headless", "--steps", "2", "--device", "tpu", "--out", filepath.Join(t.TempDir(), "d.wtlab")}, tinyRun...)...); code != 2 || !strings.Contains(errs, "--device") {
		t.Errorf("--device tpu: exit %d, %q", code, errs)
	}
	if _, err := cuda.Probe(); err == nil {
		t.Skip("a GPU is present: the no-GPU path cannot be checked here")
	}
	code, _, errs := runCLI(append([]string{"run", "--headless", "--steps", "2", "--device", "cuda", "--out", filepath.Join(t.TempDir(), "c.wtlab")}, tinyRun...)...)
	if code != 1 || !strings.Contains(errs, "--device cuda") || !strings.Contains(errs, "libcuda") || strings.Contains(errs, "panic") {
		t.Errorf("--device cuda without a GPU: exit %d, %q", code, errs)
	}
	if code, out, errs := runCLI("device"); code != 0 || !strings.Contains(out, "no NVIDIA driver library") || !strings.Contains(out, "libcuda.so.1") {
		t.Errorf("device without a GPU: exit %d, %q, %q", code, out, errs)
	}
}
