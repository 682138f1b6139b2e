package figures

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// TestTimescalesFigures: configurations that differ only in value_lr make a pair, drawn as
// KL vs step with the baseline's final KL (the mean of its seeds' last values, here
// (0.2 + 0.4)/2 = 0.3) as the target line; two such pairs that differ in depth are tagged
// with it in their titles and numbered in their names; a value_lr difference with another
// field beside it, or a single configuration, draws nothing.
func TestTimescalesFigures(t *testing.T) {
	run := func(layers int, valueLR, lr float64, seed uint64, final float64) Run {
		var r Run
		r.Config.Task, r.Config.Model, r.Config.Seed, r.Config.ValueLR, r.Config.LR = "bijection", "transformer", seed, valueLR, lr
		r.Config.Transformer.Layers = layers
		cfg, _ := json.Marshal(map[string]any{"task": "bijection", "model": "transformer", "lr": lr, "seed": seed,
			"value_lr": valueLR, "transformer": map[string]any{"layers": layers}})
		r.Meta.Config = cfg
		r.key = fmt.Sprint(layers, valueLR, lr)
		for step := 100; step <= 1000; step += 100 {
			kl := 1 + (final-1)*float64(step)/1000
			r.Evals = append(r.Evals, sessions.Record{Step: step, Eval: &sessions.Eval{KLBits: kl}})
		}
		return r
	}
	one := []Run{run(4, 1, 1, 1, 0.2), run(4, 1, 1, 2, 0.4), run(4, 10, 1, 1, 0.1), run(4, 10, 1, 2, 0.1)}
	figs := timescalesFigures(one)
	if len(figs) != 1 {
		t.Fatalf("%d figures for one pair, want 1", len(figs))
	}
	if want := "bijection: KL vs step, value LR ×1 and ×10 (AdamW)"; figs[0].name != "bijection-timescales" || figs[0].title != want {
		t.Errorf("figure %q %q, want bijection-timescales %q", figs[0].name, figs[0].title, want)
	}
	if kl, ok := finalKL(Groups(one)[0]); !ok || kl < 0.3-1e-12 || kl > 0.3+1e-12 {
		t.Errorf("the baseline's final KL %g (%v), want the mean of 0.2 and 0.4", kl, ok)
	}
	two := append(one, run(1, 1, 1, 1, 0.3), run(1, 10, 1, 1, 0.05))
	figs = timescalesFigures(two)
	if len(figs) != 2 || !strings.HasPrefix(figs[0].title, "bijection, layers 4:") ||
		figs[0].name != "bijection-timescales-1" || figs[1].name != "bijection-timescales-2" || !strings.HasPrefix(figs[1].title, "bijection, layers 1:") {
		for _, f := range figs {
			t.Logf("%s: %s", f.name, f.title)
		}
		t.Errorf("two pairs by depth: %d figures, want 2 named -1 and -2, titled by their layers", len(figs))
	}
	if figs := timescalesFigures([]Run{run(4, 1, 1, 1, 0.2), run(4, 10, 3, 1, 0.1)}); len(figs) != 0 {
		t.Errorf("value_lr and lr differ: %d figures, want none", len(figs))
	}
	if figs := timescalesFigures(one[:2]); len(figs) != 0 {
		t.Errorf("one configuration: %d figures, want none", len(figs))
	}
}
