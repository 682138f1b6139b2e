package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"

	"windtunnel/models"
	"windtunnel/tunnels"
)

// torchProbe is the package's tests' one search for a Python that imports torch: each
// search imports torch (2 s of CPU measured), so the tests share its answer.
var torchProbe struct {
	once  sync.Once
	py    string
	tried []string
}

// torchForTest returns the repository's reference script and a Python that imports torch;
// it skips without such a Python unless WINDTUNNEL_REQUIRE_TORCH=1 (CI installs
// python3-torch and sets it).
func torchForTest(t *testing.T) (python, script string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts PyTorch (seconds to import torch)")
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	script = firstFile(torchScriptPlaces("", cwd, ""))
	if script == "" {
		t.Fatalf("scripts/%s not found from %s", TorchScriptName, cwd)
	}
	torchProbe.once.Do(func() {
		torchProbe.py, torchProbe.tried = firstWithTorch(context.Background(), pythonCandidates("", os.Getenv("PYTHON"), exec.LookPath))
	})
	py, tried := torchProbe.py, torchProbe.tried
	if py == "" {
		if os.Getenv("WINDTUNNEL_REQUIRE_TORCH") == "1" {
			t.Fatalf("no Python imports torch and WINDTUNNEL_REQUIRE_TORCH=1: %s", strings.Join(tried, "; "))
		}
		t.Skipf("no Python imports torch (%s): %s", torchInstallHint, strings.Join(tried, "; "))
	}
	return py, script
}

// TestTorchReferenceParamCount checks that the PyTorch reference builds a model with the Go
// transformer's parameter count for every preset's bijection transformer, at another V and
// with an explicit MLP width: the bench compares the same model.
func TestTorchReferenceParamCount(t *testing.T) {
	t.Parallel()
	py, script := torchForTest(t)
	type size struct {
		name string
		v    int
		tc   arch.TransformerConfig
	}
	var cases []size
	for _, p := range runconfig.PresetNames() {
		cfg, err := runconfig.Preset(p, "bijection")
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, size{p, 20, cfg.Transformer})
	}
	cases = append(cases,
		size{"V=8", 8, arch.TransformerConfig{Layers: 2, Heads: 2, Width: 32}},
		size{"mlp=48", 11, arch.TransformerConfig{Layers: 3, Heads: 4, Width: 24, MLP: 48}})
	// One run of the script for every case (each run imports torch: 2 s of CPU measured).
	var each []map[string]int
	for _, c := range cases {
		each = append(each, map[string]int{"V": c.v, "d": c.tc.Width, "layers": c.tc.Layers, "heads": c.tc.Heads, "mlp": c.tc.MLP})
	}
	lines := countParams(t, py, script, each)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tn, err := tunnels.New("bijection", tunnels.Config{V: c.v})
			if err != nil {
				t.Fatal(err)
			}
			want := models.TransformerParams(c.tc, tn, 0)
			var got struct {
				Params int `json:"params"`
			}
			if err := json.Unmarshal(lines[i], &got); err != nil {
				t.Fatalf("output %q: %v", lines[i], err)
			}
			if got.Params != want {
				t.Errorf("%s %+v: PyTorch reference has %d parameters, Go transformer %d", c.name, c.tc, got.Params, want)
			}
		})
	}
}

// countParams runs the reference script once with --count-params for each listed model
// (--each: flags over the command line's) and returns its output lines, one a model.
func countParams[T any](t *testing.T, py, script string, each []T) [][]byte {
	t.Helper()
	js, err := json.Marshal(each)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, script, "--count-params", "--each", string(js)).Output()
	if err != nil {
		t.Fatalf("%s --count-params --each %s: %v", script, js, err)
	}
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	if len(lines) != len(each) {
		t.Fatalf("%s --count-params: %d lines for %d models:\n%s", script, len(lines), len(each), out)
	}
	return lines
}

// TestTorchReferenceOutput trains the reference for a few steps through the bench's own
// runner and checks the lines bench and bench --accuracy read: an evaluation every 3 steps
// with bit errors in [0, log2 V], and a last line with the step-time statistics, for each
// GELU form (--gelu), which the summary names back.
func TestTorchReferenceOutput(t *testing.T) {
	t.Parallel()
	py, script := torchForTest(t)
	for _, gelu := range []string{arch.GELUTanh, arch.GELUErf} {
		t.Run(gelu, func(t *testing.T) {
			t.Parallel()
			torchReferenceOutput(t, py, script, gelu)
		})
	}
}

// torchReferenceOutput is TestTorchReferenceOutput for one GELU form, which the summary
// line names back.
func torchReferenceOutput(t *testing.T, py, script, gelu string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Transformer, cfg.Batch, cfg.EvalEvery, cfg.ProbeSize = arch.TransformerConfig{Layers: 1, Heads: 2, Width: 16}, 4, 3, 64
	cfg.GELU = gelu
	lines, err := RunTorch(ctx, py, script, TorchArgs(cfg, "cpu", 6, 1, true))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 {
		t.Fatalf("%d JSON lines, want 2 evaluations and a summary:\n%s", len(lines), lines)
	}
	for i, l := range lines[:2] {
		var e struct {
			Step          int     `json:"step"`
			Wall          float64 `json:"wall_s"`
			Loss          float64 `json:"loss"`
			Position      float64 `json:"bit_error_position"`
			Sample        float64 `json:"bit_error_sample"`
			MedianMsOnEnd float64 `json:"median_ms_per_step"`
		}
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatal(err)
		}
		top := math.Log2(20)
		if e.Step != 3*(i+1) || e.Wall <= 0 || !(e.Loss > 0) || !(e.Position >= 0 && e.Position <= top) ||
			!(e.Sample >= e.Position-1e-9 && e.Sample <= top) || e.MedianMsOnEnd != 0 {
			t.Errorf("evaluation line %d: %s", i, l)
		}
	}
	var s struct {
		Median float64 `json:"median_ms_per_step"`
		Min    float64 `json:"min_ms_per_step"`
		Max    float64 `json:"max_ms_per_step"`
		Timed  int     `json:"timed_steps"`
		Params int     `json:"params"`
		GELU   string  `json:"gelu"`
	}
	if err := json.Unmarshal(lines[2], &s); err != nil {
		t.Fatal(err)
	}
	tn, _ := tunnels.New("bijection", tunnels.Config{V: 20})
	want := models.TransformerParams(arch.TransformerConfig{Layers: 1, Heads: 2, Width: 16}, tn, 0)
	if !(s.Min > 0 && s.Min <= s.Median && s.Median <= s.Max) || s.Timed != 3 || s.Params != want || s.GELU != gelu {
		t.Errorf("summary %s: want 0 < min ≤ median ≤ max, 3 timed steps (6 less 3 warm-up), %d params, gelu %s", lines[2], want, gelu)
	}
}

// TestTorchScriptPlaces checks where bench looks for the reference without a flag: next to
// the binary first, then scripts/ of the current folder or of the windtunnel module above
// it, then the module the source path is in; a go.mod of another module is not ours.
func TestTorchScriptPlaces(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	other := filepath.Join(root, "other")
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(repo, "go.mod"), "module windtunnel\n\ngo 1.26\n")
	write(filepath.Join(repo, "scripts", TorchScriptName), "# ref\n")
	write(filepath.Join(repo, "cmd", "windtunnel", "bench.go"), "package main\n")
	write(filepath.Join(other, "go.mod"), "module elsewhere\n")
	write(filepath.Join(other, "scripts", TorchScriptName), "# not ours\n")
	write(filepath.Join(root, "gpu", TorchScriptName), "# packed\n")
	ref := filepath.Join(repo, "scripts", TorchScriptName)
	for _, c := range []struct {
		name, exe, cwd, src, want string
	}{
		{"next to the binary", filepath.Join(root, "gpu", "windtunnel"), other, "", filepath.Join(root, "gpu", TorchScriptName)},
		{"binary at the repository root", filepath.Join(repo, "windtunnel"), root, "", ref},
		{"current folder inside the module", "", filepath.Join(repo, "cmd", "windtunnel"), "", ref},
		{"source path", filepath.Join(root, "bin", "windtunnel"), root, filepath.Join(repo, "cmd", "windtunnel", "bench.go"), ref},
		{"another module's script is not taken", "", filepath.Join(other, "sub"), "", ""},
		{"nothing", filepath.Join(root, "bin", "windtunnel"), root, "windtunnel/cmd/windtunnel/bench.go", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := firstFile(torchScriptPlaces(c.exe, c.cwd, c.src)); got != c.want {
				t.Errorf("found %q, want %q (looked at %q)", got, c.want, torchScriptPlaces(c.exe, c.cwd, c.src))
			}
		})
	}
}

// TestTorchPython checks the order Pythons are tried in and that the first one importing
// torch is taken, with the reasons the others were passed over.
func TestTorchPython(t *testing.T) {
	dir := t.TempDir()
	fake := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	without := fake("nopython", `echo "ModuleNotFoundError: No module named 'torch'" >&2; exit 1`)
	with := fake("withtorch", "exit 0")
	onPath := func(string) (string, error) { return without, nil }
	noPath := func(string) (string, error) { return "", errors.New("not found") }

	if got, want := pythonCandidates("", with, onPath), []string{with, without, "/usr/bin/python3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("candidates %q, want %q", got, want)
	}
	if got, want := pythonCandidates("", "", noPath), []string{"/usr/bin/python3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("candidates without $PYTHON or PATH %q, want %q", got, want)
	}
	if got := pythonCandidates("/opt/py", with, onPath); !reflect.DeepEqual(got, []string{"/opt/py"}) {
		t.Errorf("--python given: candidates %q, want it alone", got)
	}
	py, tried := firstWithTorch(context.Background(), []string{without, filepath.Join(dir, "absent"), with})
	if py != with || len(tried) != 2 || !strings.Contains(tried[0], "No module named 'torch'") {
		t.Errorf("took %q after %q, want %q after two refusals", py, tried, with)
	}
	if py, tried := firstWithTorch(context.Background(), []string{without}); py != "" || len(tried) != 1 {
		t.Errorf("took %q (%q), want none", py, tried)
	}
}

// TestTorchArgs: the reference is given the configuration's own model, batch, AdamW step,
// initialisation and seed, and its probe set only with an evaluation.
func TestTorchArgs(t *testing.T) {
	cfg, err := runconfig.Preset(runconfig.PresetPaper, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	cfg.EvalEvery = 250
	got := strings.Join(TorchArgs(cfg, "cuda", 15, 1, false), " ")
	want := "--device cuda --V 20 --d 192 --layers 6 --heads 6 --mlp 0 --batch 256 --steps 15 --threads 1 " +
		"--lr 0.0003 --warmup 2000 --wd 0.1 --clip 1 --init torch --gelu erf --seed 1"
	if got != want {
		t.Errorf("TorchArgs(paper) = %q\nwant %q", got, want)
	}
	if got := strings.Join(TorchArgs(cfg, "cpu", 15, 1, true), " "); !strings.HasSuffix(got, " --eval-every 250 --probe "+strconv.Itoa(cfg.ProbeSize)) {
		t.Errorf("with an evaluation: %q", got)
	}
	cfg.GELU = ""
	if got := strings.Join(TorchArgs(cfg, "cpu", 15, 1, false), " "); !strings.Contains(got, " --gelu tanh ") {
		t.Errorf("without a GELU form (the tanh one): %q", got)
	}
}
