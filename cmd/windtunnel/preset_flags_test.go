package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"windtunnel/tunnels/score"

	"windtunnel/tunnels"
)

// TestSampleScoreFollowPreset (issue 33 item 9): sample and score size a task from
// --preset as run does, so `sample | model | score` with run's flags scores the task run
// trains (recall's quick sizes are not the tunnels' defaults); their help names --preset.
func TestSampleScoreFollowPreset(t *testing.T) {
	for _, preset := range []string{"quick", "paper"} {
		cfg, err := parseRun(t, "--task", "recall", "--preset", preset)
		if err != nil {
			t.Fatal(err)
		}
		tun, err := tunnels.New("recall", cfg.Tunnel)
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"sample", "--task", "recall", "--json", "--probe", "--n", "3"}
		if preset != "quick" {
			args = append(args, "--preset", preset)
		}
		code, out, errs := runCLI(args...)
		if code != 0 {
			t.Fatalf("sample: exit %d: %s", code, errs)
		}
		var scored strings.Builder
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var s map[string]any
			if err := json.Unmarshal([]byte(l), &s); err != nil {
				t.Fatal(err)
			}
			if n := len(s["tokens"].([]any)); n != tun.SeqLen() {
				t.Fatalf("--preset %s: sample draws %d tokens, run trains on %d", preset, n, tun.SeqLen())
			}
			s["model"] = s["posterior"] // the Bayes-optimal model
			b, _ := json.Marshal(s)
			scored.Write(append(b, '\n'))
		}
		sargs := []string{"score", "--json"}
		if preset != "quick" {
			sargs = append(sargs, "--preset", preset)
		}
		var o, e bytes.Buffer
		root := newRoot(&o, &e)
		root.SetIn(strings.NewReader(scored.String()))
		var res score.Result
		if code := runRoot(root, sargs, &e); code != 0 || json.Unmarshal(o.Bytes(), &res) != nil || res.BitErrorPosition > 1e-9 {
			t.Errorf("--preset %s: score of the posterior: exit %d, %s %s", preset, code, o.String(), e.String())
		}
	}
	for _, cmd := range []string{"sample", "score"} {
		_, out, _ := runCLI(cmd, "--help")
		if !strings.Contains(out, "--preset string") || !strings.Contains(out, "(default: the preset's: quick, laptop, soft and mid 4, paper 64)") {
			t.Errorf("%s --help:\n%s", cmd, out)
		}
	}
	_, out, _ := runCLI("run", "--help")
	if strings.Contains(out, "capacity-matched MLP)") || !strings.Contains(out, "mlp, mlp-prefix, lstm, mamba") || !strings.Contains(out, "--like") {
		t.Errorf("run --help:\n%s", out)
	}
}
