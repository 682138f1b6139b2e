package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"windtunnel/lab/launch"
	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"
	"windtunnel/tunnels/score"

	"windtunnel/lab"
	"windtunnel/tunnels"
)

// scoreCLI runs `windtunnel score args...` with stdin.
func scoreCLI(stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	root := newRoot(&out, &errb)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(append([]string{"score"}, args...))
	code := exitOK
	if err := root.Execute(); err != nil {
		fmt.Fprintf(&errb, "windtunnel: %v\n", err)
		code = exitError
	}
	return code, out.String(), errb.String()
}

// TestScoreAgreesWithRun trains tiny models in-process, writes their probe-set predictions
// as `run --predictions` does, scores the file and requires the run's final evaluation.
func TestScoreAgreesWithRun(t *testing.T) {
	cases := []struct {
		task string
		cfg  tunnels.Config
		args []string
	}{
		{"bijection", tunnels.Config{V: 5}, []string{"--v", "5"}},
		{"hmm", tunnels.Config{States: 3, Symbols: 3, K: 6}, []string{"--states", "3", "--symbols", "3", "--k", "6"}},
	}
	for _, c := range cases {
		t.Run(c.task, func(t *testing.T) {
			tr, err := lab.New(runconfig.Config{Task: c.task, Tunnel: c.cfg, Model: "transformer",
				Transformer: arch.TransformerConfig{Layers: 1, Heads: 2, Width: 16},
				Steps:       20, Batch: 8, LR: 3e-3, Warmup: 2, WeightDecay: 0.01, Clip: 1, ValueLR: 1, QKLR: 1,
				EvalEvery: 10, ProbeSize: 40, Seed: 7, BLAS: "gonum"})
			if err != nil {
				t.Fatal(err)
			}
			res, err := tr.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "pred.jsonl")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := launch.WritePredictions(f, tr, res); err != nil {
				t.Fatal(err)
			}
			f.Close()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			code, out, errs := scoreCLI(string(data), append([]string{"--task", c.task, "--json"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var got score.Result
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%q: %v", out, err)
			}
			e := res.Last.Eval
			if e == nil {
				t.Fatal("the run's last record has no evaluation")
			}
			for _, m := range []struct {
				name      string
				got, want float64
			}{
				{"bit_error_position", got.BitErrorPosition, e.BitErrorPosition},
				{"bit_error_sample", got.BitErrorSample, e.BitErrorSample},
				{"kl_bits", got.KLBits, e.KLBits},
				{"tvd", got.TVD, e.TVD},
				{"accuracy", got.Accuracy, e.Accuracy},
			} {
				if math.Abs(m.got-m.want) > 1e-9 {
					t.Errorf("%s = %.17g, the run's %.17g", m.name, m.got, m.want)
				}
			}
			for j := range e.ModelEntropy {
				if math.Abs(got.PerPosition.ModelEntropy[j]-e.ModelEntropy[j]) > 1e-9 || math.Abs(got.PerPosition.BayesEntropy[j]-e.BayesEntropy[j]) > 1e-9 {
					t.Errorf("position %d: entropies differ from the run's", j)
				}
			}
			if got.Sequences != 40 {
				t.Errorf("sequences = %d, want 40", got.Sequences)
			}
			// Text output, and the task taken from the lines when --task is absent.
			if code, out, errs := scoreCLI(string(data), c.args...); code != 0 || !strings.Contains(out, "bit error (a)") {
				t.Errorf("text: exit %d, %q, %s", code, out, errs)
			}
		})
	}
}

// TestScoreRejects feeds ten kinds of bad input: each must exit 1 with `score: line N: reason`.
func TestScoreRejects(t *testing.T) {
	bij := tunnels.Draw(mustScore(tunnels.New("bijection", tunnels.Config{V: 4})), tunnels.ProbeStream(1), 0)
	line := func(f func(m map[string]any)) string {
		m := map[string]any{"task": "bijection", "tokens": append([]int(nil), bij.Tokens...), "model": bij.Posterior}
		f(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	good := line(func(map[string]any) {})
	uniform := [][]float64{{.25, .25, .25, .25}, {.25, .25, .25, .25}, {.25, .25, .25, .25}}
	cases := []struct {
		name, in string
		args     []string
		want     string
	}{
		{"malformed JSON", good + `{"tokens": [0,`, nil, "line 2: malformed JSON"},
		{"unknown task", line(func(m map[string]any) { m["task"] = "sudoku" }), nil, `line 1: unknown task "sudoku"`},
		{"wrong number of positions", line(func(m map[string]any) { m["model"] = uniform[:2] }), nil, "line 1: \"model\" has 2 positions, want 3"},
		{"distribution of wrong length", line(func(m map[string]any) { m["model"] = [][]float64{{.5, .5}, {.5, .5}, {.5, .5}} }), nil, "line 1: position 0: distribution of 2 classes, want 4"},
		{"not normalised", line(func(m map[string]any) {
			m["model"] = [][]float64{{.25, .25, .25, .25}, {.3, .3, .3, .3}, {.25, .25, .25, .25}}
		}), nil, "line 1: position 1: probabilities sum to"},
		{"NaN", good + strings.Replace(good, "0.25", "NaN", 1), nil, "line 2: position 0: class 0: NaN is not finite"},
		{"Inf logits", strings.Replace(line(func(m map[string]any) { m["model"] = uniform }), "0.25", "-Infinity", 1), []string{"--logits"}, "line 1: position 0: class 0: -Inf is not finite"},
		{"negative probability", line(func(m map[string]any) {
			m["model"] = [][]float64{{.5, .5, .25, -.25}, {.25, .25, .25, .25}, {.25, .25, .25, .25}}
		}), nil, "line 1: position 0: class 3: negative probability"},
		{"repeated key", line(func(m map[string]any) { m["tokens"].([]int)[2] = bij.Tokens[0] }), nil, "line 1: not a valid bijection sequence"},
		{"out of vocabulary", line(func(m map[string]any) { m["tokens"].([]int)[1] = 99 }), nil, "line 1: not a valid bijection sequence"},
		{"wrong sequence length", line(func(m map[string]any) { m["tokens"] = bij.Tokens[:3] }), nil, "line 1: 3 tokens, want a sequence of 5"},
		{"empty input", "\n\n", []string{"--task", "bijection"}, "score: empty input: 2 blank lines"},
		{"task differs from --task", line(func(m map[string]any) { m["task"] = "hmm" }), []string{"--task", "bijection"}, `line 1: task "hmm", but scoring bijection`},
		{"too long", strings.Repeat(" ", score.MaxLine+1), nil, "line 1: longer than 16 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := scoreCLI(c.in, append([]string{"--v", "4"}, c.args...)...)
			if code != exitError || !strings.Contains(errs, "score: ") || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, stderr %q, want exit 1 and %q (stdout %q)", code, errs, c.want, out)
			}
		})
	}
	// The unedited line scores cleanly.
	if code, _, errs := scoreCLI(good, "--v", "4"); code != 0 {
		t.Fatalf("good line: exit %d: %s", code, errs)
	}
}

// mustScore returns v, panicking on an error (test setup only).
func mustScore[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
