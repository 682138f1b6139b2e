package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
	"windtunnel/backends/devices"
	"windtunnel/sessions/runconfig"

	"github.com/spf13/pflag"

	"windtunnel/backends/cuda"
	"windtunnel/sessions"
)

// parseRun parses run's flags and returns the configuration they give (nothing is built).
func parseRun(t *testing.T, args ...string) (runconfig.Config, error) {
	t.Helper()
	var f runFlags
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f.config()
}

// recordedSession writes a session of cfg with a few records and no checkpoint, as a run
// stopped before its first checkpoint leaves it.
func recordedSession(t *testing.T, cfg runconfig.Config) string {
	t.Helper()
	cj, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.wtlab")
	w, err := sessions.Create(path, sessions.Meta{Task: cfg.Task, Model: cfg.Model, Steps: cfg.Steps, Config: cj}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 3; s++ {
		w.Record(sessions.Record{Step: s, Loss: 1, State: sessions.Training})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestProbeMessages: a session without checkpoints says so plainly (the rest of probe's
// messages are lab/probe's tests).
func TestProbeMessages(t *testing.T) {
	path := recordedSession(t, tinyConfig(t, 60))
	code, _, errs := runCLI("probe", path)
	if code != 1 || !strings.Contains(errs, path+" has no checkpoint: the run saved none") ||
		!strings.Contains(errs, "every 50 steps (--checkpoint-every)") || strings.Contains(errs, "-1") || strings.Contains(errs, "[]") {
		t.Errorf("probe without checkpoints: exit %d, %q", code, errs)
	}
}

// TestFileErrorsNamePathOnce: a missing session file is named once in the error of every
// command that reads one.
func TestFileErrorsNamePathOnce(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.wtlab")
	for _, args := range [][]string{
		{"info", missing}, {"probe", missing}, {"export", missing}, {"replay", missing},
		{"run", "--headless", "--resume", missing},
	} {
		t.Run(args[0], func(t *testing.T) {
			code, _, errs := runCLI(args...)
			if code == 0 || strings.Count(errs, missing) != 1 || !strings.Contains(errs, "no such file") {
				t.Errorf("exit %d, %q: want the path once and why", code, errs)
			}
		})
	}
}

// TestDeviceCommand: device exits 0 with or without a GPU, its lines within the report's
// width, and --json is one object (the report's text is backends/devices' test).
func TestDeviceCommand(t *testing.T) {
	code, out, errs := runCLI("device")
	if code != 0 || !strings.Contains(out, "CPU") || !strings.Contains(out, "CUDA (--device cuda)") {
		t.Errorf("device: exit %d, %q, %q", code, out, errs)
	}
	checkWidth(t, out, devices.Width)
	code, out, _ = runCLI("device", "--json")
	var r devices.Report
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Workers < 1 || r.Kernel == "" || (r.BLAS != "go" && r.Library == nil) {
		t.Errorf("device --json: exit %d, %q", code, out)
	}
}

// checkWidth fails when a line of s is wider than w columns.
func checkWidth(t *testing.T, s string, w int) {
	t.Helper()
	for _, l := range strings.Split(s, "\n") {
		if utf8.RuneCountInString(l) > w {
			t.Errorf("line of %d columns (> %d): %q", utf8.RuneCountInString(l), w, l)
		}
	}
}

// TestFlagsThatDoNotApply: a task's or model's flag given for another is a usage error
// naming the flag and what it applies to; the transformer's sizes still size a baseline.
func TestFlagsThatDoNotApply(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sample", "--task", "bijection", "--k", "5"}, "--k applies to --task hmm only"},
		{[]string{"sample", "--task", "hmm", "--pairs", "4"}, "--pairs applies to --task recall only"},
		{[]string{"run", "--headless", "--task", "hmm", "--v", "10"}, "--v applies to --task bijection only"},
		{[]string{"run", "--headless", "--task", "bijection", "--layout", "kv"}, "--layout applies to --task recall only"},
		{[]string{"run", "--headless", "--task", "recall", "--eval-k", "20"}, "--eval-k applies to --task hmm only"},
		{[]string{"run", "--headless", "--model", "transformer", "--mlp-input", "token"}, "--mlp-input applies to --model mlp-prefix only"},
		{[]string{"run", "--headless", "--model", "lstm", "--heads", "2"}, "--heads applies to --model transformer only"},
		{[]string{"run", "--headless", "--model", "mamba", "--qk-lr", "2"}, "--qk-lr applies to --model transformer only"},
		{[]string{"run", "--headless", "--model", "rnn", "--heads", "2"}, "--model"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, errs := runCLI(c.args...)
			if code != 2 || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, %q; want exit 2 with %q", code, errs, c.want)
			}
		})
	}
	for _, args := range [][]string{
		{"--model", "lstm", "--layers", "2", "--width", "32", "--mlp-hidden", "64"},
		{"--model", "mlp-prefix", "--mlp-input", "token"},
		{"--task", "hmm", "--k", "8", "--eval-k", "8,16"},
		{"--task", "recall", "--pairs", "2", "--queries", "2", "--keys", "8", "--values", "8", "--layout", "store"},
	} {
		if _, err := parseRun(t, args...); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// TestBareCommandPrintsHelp: `windtunnel` alone prints the help and exits 0.
func TestBareCommandPrintsHelp(t *testing.T) {
	code, out, errs := runCLI()
	if code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "windtunnel run") || errs != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestCadenceFromSteps: without --eval-every, --probe-every and --checkpoint-every, their
// presets' values are fitted to --steps (12 evaluations, 6 snapshots, 3 checkpoints at
// least); given, they are kept; the presets' own lengths keep theirs.
func TestCadenceFromSteps(t *testing.T) {
	for _, c := range []struct {
		args                    []string
		eval, probe, checkpoint int
	}{
		{nil, 250, 250, 500},
		{[]string{"--steps", "300"}, 25, 50, 100},
		{[]string{"--steps", "5"}, 1, 1, 1},
		{[]string{"--steps", "300", "--eval-every", "100", "--probe-every", "0", "--checkpoint-every", "0"}, 100, 0, 0},
		{[]string{"--steps", "50", "--eval-every", "500"}, 50, 8, 16},
		{[]string{"--task", "hmm"}, 125, 250, 500},
		{[]string{"--preset", "paper", "--steps", "1000"}, 83, 166, 333},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			cfg, err := parseRun(t, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.EvalEvery != c.eval || cfg.ProbeEvery != c.probe || cfg.CheckpointEvery != c.checkpoint {
				t.Errorf("eval/probe/checkpoint every %d/%d/%d, want %d/%d/%d", cfg.EvalEvery, cfg.ProbeEvery, cfg.CheckpointEvery,
					c.eval, c.probe, c.checkpoint)
			}
		})
	}
}

// TestInfoShowsResolvedConfig: info prints the configuration as the run used it (the
// task's sizes and target with their defaults, the model's own block only), from the
// stored configuration, which keeps its zeros.
func TestInfoShowsResolvedConfig(t *testing.T) {
	for _, c := range []struct {
		args   []string
		want   []string
		absent []string
	}{
		{[]string{"--task", "bijection"}, []string{`"tunnel":{"v":20}`, `"target":"sampled"`, `"transformer":{"layers":4,"heads":4,"width":64,"mlp":256}`},
			[]string{`"lstm"`, `"mamba"`, `"mlp":{`, `"mlp_prefix"`, `"states"`}},
		{[]string{"--task", "hmm", "--model", "lstm"}, []string{`"tunnel":{"states":5,"symbols":5,"k":20}`, `"target":"posterior"`,
			`"lstm":{"layers":`, `"matched_to_transformer":{"layers":4`}, []string{`"transformer"`, `"v":`, `"qk_lr"`}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			cfg, err := parseRun(t, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			path := recordedSession(t, cfg)
			code, out, errs := runCLI("info", path, "--json")
			var in struct {
				Config json.RawMessage `json:"config"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &in) != nil {
				t.Fatalf("info --json: exit %d, %q", code, errs)
			}
			got := string(in.Config)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("config lacks %s: %s", w, got)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(got, a) {
					t.Errorf("config has %s: %s", a, got)
				}
			}
			var back runconfig.Config // the display reads back as the same run
			if err := json.Unmarshal(in.Config, &back); err != nil || back.Steps != cfg.Steps || back.Model != cfg.Model {
				t.Errorf("the display does not read back: %+v, %v", back, err)
			}
			r, err := sessions.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if !strings.Contains(string(r.Meta().Config), `"target":""`) {
				t.Errorf("the stored configuration changed: %s", r.Meta().Config)
			}
		})
	}
}

// TestCommandLineMessages (issue 33 item 8): every bad command line is one line that names
// the command once, the flag and what was meant: the closest flag or command when one is
// misspelt, what a value must be, a pointer to `windtunnel device` when the GPU is missing,
// --out naming a folder, probe --step below -1 (-1 is the last, as the default), score on
// empty input.
func TestCommandLineMessages(t *testing.T) {
	tmp := t.TempDir()
	session := recordedSession(t, tinyConfig(t, 60))
	_, gpuErr := cuda.Probe()
	for _, c := range []struct {
		name   string
		args   []string
		stdin  string
		code   int
		want   []string
		absent []string
		skip   bool
	}{
		{"misspelt flag", []string{"run", "--step", "300"}, "", 2, []string{"windtunnel: run: unknown flag --step (did you mean --steps?)\n"}, []string{"windtunnel run"}, false},
		{"misspelt flag with =", []string{"info", session, "--jsn=true"}, "", 2, []string{"info: unknown flag --jsn (did you mean --json?)"}, nil, false},
		{"single dash", []string{"run", "-steps", "3"}, "", 2, []string{"run: unknown flag -steps (did you mean --steps?)"}, []string{"shorthand"}, false},
		{"prefix of a flag", []string{"run", "--check", "3"}, "", 2, []string{"did you mean --checkpoint-every?"}, nil, false},
		{"no flag close", []string{"run", "--zzzzzz"}, "", 2, []string{"run: unknown flag --zzzzzz (windtunnel run --help lists the flags)"}, nil, false},
		{"misspelt command", []string{"runn"}, "", 2, []string{`unknown command "runn" (did you mean run?)`}, nil, false},
		{"misspelt command, flags after", []string{"runn", "--steps", "3"}, "", 2, []string{`unknown command "runn" (did you mean run?)`}, []string{"unknown flag"}, false},
		{"no command close", []string{"xyzzy"}, "", 2, []string{`unknown command "xyzzy" (windtunnel --help lists the commands)`}, nil, false},
		{"not a number", []string{"run", "--steps", "abc"}, "", 2, []string{`run: --steps "abc": want a whole number`}, []string{"strconv", "ParseInt"}, false},
		{"negative seed", []string{"run", "--seed", "-1"}, "", 2, []string{`run: --seed "-1": want a whole number ≥ 0`}, []string{"strconv"}, false},
		{"not a float", []string{"run", "--lr", "fast"}, "", 2, []string{`run: --lr "fast": want a number`}, []string{"strconv"}, false},
		{"no value", []string{"run", "--steps"}, "", 2, []string{"run: --steps needs a value"}, nil, false},
		{"device without a GPU", append([]string{"run", "--headless", "--steps", "2", "--device", "cuda", "--out", filepath.Join(tmp, "c.wtlab")}, tinyRun...), "", 1,
			[]string{"--device cuda: no NVIDIA driver library (libcuda)", "`windtunnel device`"}, []string{"cannot open shared object", "libcuda.so.1"}, gpuErr == nil},
		{"out is a folder", append([]string{"run", "--headless", "--steps", "2", "--out", tmp}, tinyRun...), "", 2,
			[]string{"run: --out " + tmp + " is a folder: name a session file in it (--out " + filepath.Join(tmp, "run.wtlab") + ")"}, []string{"file exists"}, false},
		{"probe step below -1", []string{"probe", session, "--step", "-3"}, "", 2, []string{"--step -3: want a step ≥ 0 (or -1, or no --step: the last checkpoint)"}, nil, false},
		{"swapped letters in a flag", []string{"ls", "--dri", "x"}, "", 2, []string{"ls: unknown flag --dri (did you mean --dir?)"}, nil, false},
		{"swapped letters in a command", []string{"rnu"}, "", 2, []string{`unknown command "rnu" (did you mean run?)`}, nil, false},
		{"misspelt subcommand", []string{"sweep", "statu", "x"}, "", 2, []string{`sweep: unknown command "statu" (did you mean sweep status?)`}, []string{"sweep file"}, false},
		{"misspelt subcommand alone", []string{"sweep", "statu"}, "", 2, []string{`did you mean sweep status?`}, []string{"open"}, false},
		{"a size names the flag it depends on", []string{"run", "--headless", "--width", "65", "--heads", "4"}, "", 2,
			[]string{"--heads 4: want a divisor of --width (65)"}, []string{"Transformer"}, false},
		{"compare from a missing folder", []string{"compare", "--from", filepath.Join(tmp, "nodir")}, "", 2,
			[]string{"--from: " + filepath.Join(tmp, "nodir") + ": no such folder"}, []string{"stat", "derived", "runconfig"}, false},
		{"out in a missing folder", append([]string{"run", "--headless", "--steps", "2", "--out", "/nonexistent/x.wtlab"}, tinyRun...), "", 2,
			[]string{"run: --out /nonexistent/x.wtlab: directory /nonexistent does not exist"}, nil, false},
		{"score nothing", []string{"score", "--task", "bijection"}, "", 1, []string{"score: empty input: no sequences to score"}, []string{"line 0"}, false},
		{"score blank lines", []string{"score", "--task", "bijection"}, "\n\n\n", 1, []string{"score: empty input: 3 blank lines"}, []string{"line 0"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.skip {
				t.Skip("a GPU is present")
			}
			var out, errb bytes.Buffer
			root := newRoot(&out, &errb)
			root.SetIn(strings.NewReader(c.stdin))
			code := runRoot(root, c.args, &errb)
			errs := errb.String()
			if code != c.code {
				t.Errorf("exit %d, want %d: %q", code, c.code, errs)
			}
			if n := strings.Count(strings.TrimSuffix(errs, "\n"), "\n"); n != 0 {
				t.Errorf("%d lines, want one: %q", n+1, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(errs, a) {
					t.Errorf("stderr %q has %q", errs, a)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(tmp, "run.wtlab")); !os.IsNotExist(err) {
		t.Errorf("a session was created in the folder given as --out (%v)", err)
	}
}

// TestProbeStepHelp: probe's --help names the last checkpoint as the default once, not -1.
func TestProbeStepHelp(t *testing.T) {
	code, out, _ := runCLI("probe", "--help")
	if code != 0 || !strings.Contains(out, "(default: the last)") || strings.Contains(out, "-1") {
		t.Errorf("probe --help: exit %d\n%s", code, out)
	}
}

// TestArgumentCountMessages: a wrong number of arguments names the command once, after the
// program's own prefix ("windtunnel: ls takes no arguments", not "windtunnel: windtunnel ls").
func TestArgumentCountMessages(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ls", "x"}, "windtunnel: ls takes no arguments"},
		{[]string{"info"}, "windtunnel: info takes one session file"},
		{[]string{"replay"}, "windtunnel: replay takes one or more session files"},
		{[]string{"sweep", "status"}, "windtunnel: sweep status takes one sweep folder"},
	} {
		code, _, errs := runCLI(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(errs, "windtunnel: windtunnel") {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}
