package lab

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"windtunnel/models/arch"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"

	"windtunnel/models"
	"windtunnel/tunnels"
)

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
		{"bijection", arch.KindTransformer, []string{`"tunnel":{"v":20}`, `"target":"sampled"`, `"mlp":256`, `"qk_lr":1`},
			[]string{`"lstm"`, `"mamba"`, `"mlp":{`, `"mlp_prefix"`, `"matched_to_transformer"`, `"states"`}},
		{"hmm", arch.KindMamba, []string{`"tunnel":{"states":5,"symbols":5,"k":20}`, `"target":"posterior"`,
			`"mamba":{"layers":4,`, `"state":16,"expand":2,"conv":4}`, `"matched_to_transformer":{"layers":4,"heads":4,"width":64,"mlp":256}`,
			`"eval_k":[20,30,50]`}, []string{`"transformer"`, `"qk_lr"`, `"v":`}},
		{"recall", arch.KindPrefixMLP, []string{`"tunnel":{"pairs":4,"keys":32,"values":32,"fillers":2,"queries":4,"layout":"kv"}`,
			`"mlp_prefix":{"blocks":`, `"input":"prefix"}`}, []string{`"transformer"`, `"lstm"`, `"v":`}},
		{"bijection", arch.KindMLP, []string{`"mlp":{"blocks":`, `"width":64,"hidden":256}`}, []string{`"mlp_prefix"`}},
	} {
		t.Run(c.task+" "+c.model, func(t *testing.T) {
			cfg, err := runconfig.Preset(runconfig.PresetQuick, c.task)
			if err != nil {
				t.Fatal(err)
			}
			cfg = cfg.ForModel(c.model)
			if c.task == "bijection" {
				cfg.Tunnel = tunnels.Config{} // V from the default
			}
			e, err := EffectiveOf(cfg)
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
			var back runconfig.Config
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back.Model != cfg.Model || back.Steps != cfg.Steps || back.EvalEvery != cfg.EvalEvery {
				t.Errorf("the display reads back as %+v", back)
			}
			if models.SpecParams(back.Spec(), mustTunnel(t, back)) != models.SpecParams(cfg.Spec(), mustTunnel(t, cfg)) && c.task != "hmm" {
				t.Errorf("the display describes another model: %s", got)
			}
		})
	}
	// Every field of the stored configuration is shown (the model blocks only for the model).
	cfg, _ := runconfig.Preset(runconfig.PresetQuick, "hmm")
	stored, _ := json.Marshal(cfg)
	e, _ := EffectiveOf(cfg)
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

func mustTunnel(t *testing.T, c runconfig.Config) tunnels.Tunnel {
	t.Helper()
	tn, err := tunnels.New(c.Task, c.Tunnel)
	if err != nil {
		t.Fatal(err)
	}
	return tn
}

// TestCompareDerivedDefaults pins derived.Defaults (which cannot import lab) to the
// defaults Effective fills in, and derived.PassBits to the primitives' bound.
func TestCompareDerivedDefaults(t *testing.T) {
	c, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	c.Device, c.Precision, c.Optimizer = "", "", ""
	e, err := EffectiveOf(c)
	if err != nil {
		t.Fatal(err)
	}
	c.Model, c.PrefixMLP.Input = arch.KindPrefixMLP, ""
	pe, err := EffectiveOf(c)
	if err != nil {
		t.Fatal(err)
	}
	d := derived.Defaults()
	if d["device"] != e.Device || d["precision"] != e.Precision || d["mlp_prefix.input"] != pe.PrefixMLP.Input || d["optimizer"] != e.Optimizer || d["init"] != "normal" || len(d) != 5 {
		t.Errorf("derived.Defaults = %v, want device %q, precision %q, mlp_prefix.input %q, optimizer %q, init normal", d, e.Device, e.Precision, pe.PrefixMLP.Input, e.Optimizer)
	}
	for _, p := range derived.Primitives() {
		if p.Metric == "bit_error_position" && p.Threshold != derived.PassBits {
			t.Errorf("%s threshold %v, want derived.PassBits %v", p.Task, p.Threshold, derived.PassBits)
		}
	}
}

// TestEffectiveJSON: a stored valid configuration comes back resolved (the task's sizes
// with their defaults, the target); one that is not JSON, not a valid configuration, or
// of an unknown task comes back as stored.
func TestEffectiveJSON(t *testing.T) {
	cfg, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	valid, _ := json.Marshal(cfg)
	bad := cfg
	bad.Steps = -1
	invalid, _ := json.Marshal(bad)
	for _, c := range []struct {
		name, stored string
		want         []string // in the result; nil: the stored bytes unchanged
	}{
		{"valid", string(valid), []string{`"tunnel":{"v":20}`, `"target":"sampled"`, `"steps":` + strconv.Itoa(cfg.Steps)}},
		{"not JSON", "{not json", nil},
		{"invalid", string(invalid), nil},
		{"unknown task", `{"task":"maze"}`, nil},
	} {
		got := string(EffectiveJSON(json.RawMessage(c.stored)))
		if c.want == nil {
			if got != c.stored {
				t.Errorf("%s: %s, want it as stored", c.name, got)
			}
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %s lacks %s", c.name, got, w)
			}
		}
	}
}
