package lab

import (
	"encoding/json"
	"strings"
	"testing"

	"windtunnel/models"
	"windtunnel/tunnels"
)

// TestFitCadence checks that every preset keeps its cadences at its own length (but quick
// hmm, evaluated 12 times instead of 6) and that a shorter run gets at least 12
// evaluations, 6 geometry snapshots and 3 checkpoints; off stays off.
func TestFitCadence(t *testing.T) {
	for _, name := range PresetNames() {
		for _, task := range tunnels.Names() {
			c, err := Preset(name, task)
			if err != nil {
				t.Fatal(err)
			}
			f := c.FitCadence()
			wantEval := c.EvalEvery
			if name == PresetQuick && task == "hmm" {
				wantEval = 125
			}
			if f.EvalEvery != wantEval || f.ProbeEvery != c.ProbeEvery || f.CheckpointEvery != c.CheckpointEvery {
				t.Errorf("%s %s at %d steps: every %d/%d/%d, want %d/%d/%d", name, task, c.Steps, f.EvalEvery, f.ProbeEvery,
					f.CheckpointEvery, wantEval, c.ProbeEvery, c.CheckpointEvery)
			}
			for _, steps := range []int{1, 7, 300, 2999} {
				c.Steps = steps
				f := c.FitCadence()
				if steps/f.EvalEvery < min(12, steps) || steps/f.ProbeEvery < min(6, steps) || steps/f.CheckpointEvery < min(3, steps) {
					t.Errorf("%s %s at %d steps: every %d/%d/%d", name, task, steps, f.EvalEvery, f.ProbeEvery, f.CheckpointEvery)
				}
			}
		}
	}
	c, _ := Preset(PresetQuick, "bijection")
	c.Steps, c.ProbeEvery, c.CheckpointEvery = 300, 0, 0
	if f := c.FitCadence(); f.ProbeEvery != 0 || f.CheckpointEvery != 0 {
		t.Errorf("off cadences turned on: %d, %d", f.ProbeEvery, f.CheckpointEvery)
	}
}

// TestEffective checks the display form of a configuration: the task's own tunnel sizes
// with defaults, the resolved target, only the model's block (a baseline's as matched,
// with the transformer it was matched to), and that it reads back as a Config of the same
// model.
func TestEffective(t *testing.T) {
	for _, c := range []struct {
		task, model string
		want        []string
		absent      []string
	}{
		{"bijection", models.KindTransformer, []string{`"tunnel":{"V":20}`, `"target":"sampled"`, `"MLP":256`, `"qk_lr":1`},
			[]string{`"lstm"`, `"mamba"`, `"mlp":`, `"mlp_prefix"`, `"matched_to_transformer"`, `"States"`}},
		{"hmm", models.KindMamba, []string{`"tunnel":{"States":5,"Symbols":5,"K":20}`, `"target":"posterior"`,
			`"mamba":{"Layers":4,`, `"State":16,"Expand":2,"Conv":4}`, `"matched_to_transformer":{"Layers":4,"Heads":4,"Width":64,"MLP":256}`,
			`"eval_k":[20,30,50]`}, []string{`"transformer"`, `"qk_lr"`, `"V"`}},
		{"recall", models.KindPrefixMLP, []string{`"tunnel":{"Pairs":4,"Keys":32,"Values":32,"Fillers":2,"Queries":4,"Layout":"kv"}`,
			`"mlp_prefix":{"Blocks":`, `"Input":"prefix"}`}, []string{`"transformer"`, `"lstm"`, `"V"`}},
		{"bijection", models.KindMLP, []string{`"mlp":{"Blocks":`, `"Width":64,"Hidden":256}`}, []string{`"mlp_prefix"`}},
	} {
		t.Run(c.task+" "+c.model, func(t *testing.T) {
			cfg, err := Preset(PresetQuick, c.task)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Model = c.model
			if c.task == "bijection" {
				cfg.Tunnel = tunnels.Config{} // V from the default
			}
			e, err := cfg.Effective()
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			got := string(b)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %s: %s", w, got)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(got, a) {
					t.Errorf("has %s: %s", a, got)
				}
			}
			var back Config
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back.Model != cfg.Model || back.Steps != cfg.Steps || back.EvalEvery != cfg.EvalEvery {
				t.Errorf("the display reads back as %+v", back)
			}
			if back.Spec().Params(mustTunnel(t, back)) != cfg.Spec().Params(mustTunnel(t, cfg)) && c.task != "hmm" {
				t.Errorf("the display describes another model: %s", got)
			}
		})
	}
	// Every field of the stored configuration is shown (the model blocks only for the model).
	cfg, _ := Preset(PresetQuick, "hmm")
	stored, _ := json.Marshal(cfg)
	e, _ := cfg.Effective()
	shown, _ := json.Marshal(e)
	var sk, ek map[string]json.RawMessage
	json.Unmarshal(stored, &sk)
	json.Unmarshal(shown, &ek)
	for k := range sk {
		if _, ok := ek[k]; !ok && !strings.Contains(" lstm mamba mlp mlp_prefix ", " "+k+" ") {
			t.Errorf("the display lacks %q", k)
		}
	}
}

func mustTunnel(t *testing.T, c Config) tunnels.Tunnel {
	t.Helper()
	tn, err := tunnels.New(c.Task, c.Tunnel)
	if err != nil {
		t.Fatal(err)
	}
	return tn
}
