package lab

import (
	"encoding/json"
	"reflect"
	"testing"
	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"

	"windtunnel/models"
)

// legacyMLPConfig is a session configuration as written when model "mlp" was the prefix MLP
// (the "mlp" object always carried Input), with the given model and "mlp" object.
func legacyMLPConfig(model, mlp string) string {
	return `{"task":"bijection","tunnel":{"V":8,"States":0,"Symbols":0,"K":0,"Pairs":0,"Keys":0,"Values":0,"Fillers":0,"Queries":0},` +
		`"model":"` + model + `","transformer":{"Layers":2,"Heads":2,"Width":32,"MLP":0},"lstm":{"Layers":0,"Width":0},` +
		`"mamba":{"Layers":0,"Width":0,"State":0,"Expand":0,"Conv":0},"mlp":` + mlp + `,` +
		`"steps":2500,"batch":32,"lr":0.003,"warmup":40,"weight_decay":0.01,"clip":1,"value_lr":1,"qk_lr":1,` +
		`"eval_every":100,"checkpoint_every":0,"probe_size":256,"seed":1,"target":"","blas":"auto","workers":0}`
}

// TestConfigLegacyMLP decodes configurations of sessions written before the per-position
// MLP: model "mlp" with an Input in its "mlp" object is the prefix MLP it trained
// (mlp-prefix, same sizes, same parameters); other models and the new "mlp" form are kept.
func TestConfigLegacyMLP(t *testing.T) {
	for _, c := range []struct {
		name, model, mlp string
		wantModel        string
		wantPrefix       arch.PrefixMLPConfig
		wantMLP          arch.MLPConfig
	}{
		{"matched prefix", "mlp", `{"Blocks":0,"Width":0,"Hidden":0,"Input":"prefix"}`, "mlp-prefix", arch.PrefixMLPConfig{Input: "prefix"}, arch.MLPConfig{}},
		{"sized token", "mlp", `{"Blocks":2,"Width":24,"Hidden":40,"Input":"token"}`, "mlp-prefix", arch.PrefixMLPConfig{Blocks: 2, Width: 24, Hidden: 40, Input: "token"}, arch.MLPConfig{}},
		{"transformer", "transformer", `{"Blocks":0,"Width":0,"Hidden":0,"Input":"prefix"}`, "transformer", arch.PrefixMLPConfig{}, arch.MLPConfig{}},
		{"per-position", "mlp", `{"Blocks":3,"Width":32,"Hidden":128}`, "mlp", arch.PrefixMLPConfig{}, arch.MLPConfig{Blocks: 3, Width: 32, Hidden: 128}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cfg runconfig.Config
			if err := json.Unmarshal([]byte(legacyMLPConfig(c.model, c.mlp)), &cfg); err != nil {
				t.Fatal(err)
			}
			if cfg.Model != c.wantModel || cfg.PrefixMLP != c.wantPrefix || cfg.MLP != c.wantMLP {
				t.Fatalf("decoded model %q, prefix MLP %+v, MLP %+v; want %q, %+v, %+v", cfg.Model, cfg.PrefixMLP, cfg.MLP, c.wantModel, c.wantPrefix, c.wantMLP)
			}
			if cfg.Steps != 2500 || cfg.Transformer.Width != 32 || cfg.Tunnel.V != 8 {
				t.Errorf("other fields lost: %+v", cfg)
			}
			// What it decodes to survives a round trip unchanged.
			b, err := json.Marshal(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var again runconfig.Config
			if err := json.Unmarshal(b, &again); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again, cfg) {
				t.Errorf("round trip: %+v, want %+v", again, cfg)
			}
			tr, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			m := tr.Model()
			if m.Kind() != c.wantModel {
				t.Errorf("built a %s, want %s", m.Kind(), c.wantModel)
			}
			if c.wantModel == arch.KindPrefixMLP {
				// The prefix MLP as before: the old matcher, parameters "in", "block0.ln.g", ...
				want := cfg.PrefixMLP
				if want.Width == 0 {
					want = models.MatchPrefixMLP(models.TransformerParams(cfg.Transformer, tr.Tunnel(), 0), tr.Tunnel(), 0)
				}
				if n := models.PrefixMLPParams(want, tr.Tunnel(), 0); m.NumParams() != n {
					t.Errorf("%d parameters, want the prefix MLP's %d", m.NumParams(), n)
				}
				if p := m.Params(); p[0].Name != "in" {
					t.Errorf("first parameter %q, want the prefix MLP's \"in\"", p[0].Name)
				}
			}
		})
	}
	var cfg runconfig.Config
	if err := json.Unmarshal([]byte(`{"model":`), &cfg); err == nil {
		t.Error("truncated JSON decoded without error")
	}
}
