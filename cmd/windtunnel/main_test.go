package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"windtunnel/lab/bench"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestSampleJSON(t *testing.T) {
	for _, c := range []struct {
		args    []string
		classes int
	}{
		{[]string{"--task", "bijection", "--v", "6"}, 6},
		{[]string{"--task", "hmm", "--k", "7"}, 5},
		{[]string{"--task", "recall", "--pairs", "4", "--keys", "8", "--values", "8", "--fillers", "4"}, 8},
	} {
		t.Run(c.args[1], func(t *testing.T) {
			code, out, errs := runCLI(append([]string{"sample", "--n", "3", "--seed", "9", "--json"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			sc := bufio.NewScanner(strings.NewReader(out))
			sc.Buffer(nil, 1<<20)
			lines := 0
			for sc.Scan() {
				lines++
				var v struct {
					Tokens    []int       `json:"tokens"`
					Positions []int       `json:"positions"`
					Targets   []int       `json:"targets"`
					Posterior [][]float64 `json:"posterior"`
					Entropy   []float64   `json:"entropy_bits"`
				}
				if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
					t.Fatal(err)
				}
				if len(v.Positions) == 0 || len(v.Targets) != len(v.Positions) || len(v.Posterior) != len(v.Positions) || len(v.Entropy) != len(v.Positions) {
					t.Fatalf("inconsistent lengths: %s", sc.Text())
				}
				for i, p := range v.Posterior {
					if len(p) != c.classes {
						t.Fatalf("posterior over %d classes, want %d", len(p), c.classes)
					}
					s := 0.0
					for _, x := range p {
						s += x
					}
					if math.Abs(s-1) > 1e-12 || v.Positions[i] >= len(v.Tokens) {
						t.Fatalf("position %d: sum %v", i, s)
					}
				}
			}
			if lines != 3 {
				t.Errorf("%d lines, want 3", lines)
			}
		})
	}
}

func TestSampleTable(t *testing.T) {
	code, out, _ := runCLI("sample", "--task", "bijection", "--v", "4")
	if code != 0 || !strings.Contains(out, "posterior") || !strings.Contains(out, "2.0000") {
		t.Errorf("exit %d, table:\n%s", code, out)
	}
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sample", "--task", "nope"}, "--task"},
		{[]string{"sample", "--n", "abc"}, "--n"},
		{[]string{"sample", "--n", "0"}, "--n"},
		{[]string{"sample", "--n"}, "--n"},
		{[]string{"sample", "--v", "99"}, "--v"},
		{[]string{"sample", "--task", "hmm", "--states", "1"}, "--states"},
		{[]string{"sample", "--task", "recall", "--queries", "0"}, "--queries"},
		{[]string{"sample", "--task", "recall", "--pairs", "9", "--keys", "4"}, "--keys"},
		{[]string{"sample", "extra"}, "no arguments"},
		{[]string{"run", "--headless", "--task", "maze"}, "--task"},
		{[]string{"run", "--headless", "--model", "rnn"}, "--model"},
		{[]string{"run", "--headless", "--steps", "-3"}, "--steps"},
		{[]string{"run", "--headless", "--preset", "huge"}, "--preset"},
		{[]string{"run", "--headless", "--lr", "0"}, "--lr"},
		{[]string{"run", "--headless", "--target", "soft"}, "--target"},
		{[]string{"run", "--headless", "--heads", "3"}, "heads"},
		{[]string{"run", "--headless", "--blas", "mkl"}, "--blas"},
		{[]string{"bench", "--dashboard", "--windows", "3"}, "--windows"},
		{[]string{"bench", "--dashboard", "--window", "10ms"}, "--window"},
		{[]string{"bench", "--dashboard", "--settle", "5s"}, "--settle"},
		{[]string{"frobnicate"}, "unknown command"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, errs := runCLI(c.args...)
			if code != 2 || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 naming %s", code, errs, c.want)
			}
		})
	}
}

// TestRunHeadless is run --headless's command-line smoke test: a few steps end to end, the
// summary line on stdout and the predictions file written. What they hold is lab/launch's
// TestHeadless.
func TestRunHeadless(t *testing.T) {
	dir := t.TempDir()
	pred := filepath.Join(dir, "pred.jsonl")
	code, out, errs := runCLI("run", "--headless", "--task", "bijection", "--v", "5", "--steps", "5", "--eval-every", "5",
		"--probe", "16", "--layers", "1", "--heads", "2", "--width", "16", "--predictions", pred, "--out", filepath.Join(dir, "s.wtlab"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var s struct {
		Steps int `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.Steps != 5 {
		t.Fatalf("summary %q: %v", out, err)
	}
	data, err := os.ReadFile(pred)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(data), "\n"); lines != 16 {
		t.Errorf("%d prediction lines, want 16", lines)
	}
}

// TestBenchDashboard runs the dashboard benchmark briefly: the dashboard draws into the
// virtual terminal in the second window only, and keys typed there reach the screen.
func TestBenchDashboard(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the quick preset for a few seconds")
	}
	code, out, errs := runCLI("bench", "--dashboard", "--windows", "2", "--window", "1000ms", "--settle", "200ms", "--key", "300ms", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r bench.DashResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	if len(r.Windows) != 2 || r.Windows[0].On || !r.Windows[1].On {
		t.Fatalf("windows %+v: want off, on", r.Windows)
	}
	for i, w := range r.Windows {
		if w.Steps == 0 || w.MedianMs <= 0 {
			t.Errorf("window %d timed no steps: %+v", i, w)
		}
	}
	if r.Windows[0].Frames != 0 || r.Windows[1].Frames == 0 {
		t.Errorf("frames %d, %d: want none while off and some while on", r.Windows[0].Frames, r.Windows[1].Frames)
	}
	if len(r.PairRatios) != 1 || r.MeanRatio <= 0 || r.BytesPerS <= 0 {
		t.Errorf("ratios %v mean %v, %v bytes/s", r.PairRatios, r.MeanRatio, r.BytesPerS)
	}
	// Keys every 300 ms in a 1 s window; the renderer writes at most 1/15 s after one.
	if r.Keys < 2 || r.KeyToScreenMs[3] <= 0 || r.KeyToScreenMs[3] > 1000 {
		t.Errorf("%d keys, key to screen %v ms", r.Keys, r.KeyToScreenMs)
	}
	if !strings.Contains(r.Terminal, "virtual") {
		t.Errorf("terminal %q: the test's stdout is not a terminal", r.Terminal)
	}
}
