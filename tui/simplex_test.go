package tui

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
)

// simplexFeed is a Mamba hmm run of 20 steps (the quick preset's configuration, seed 1)
// with a geometry snapshot at steps 10 and 20, each with a manifold; the second also with the
// belief simplex of 5 states (40 points, state s around (s, −s)) and its untrained null.
func simplexFeed(withSimplex bool) sessions.Feed {
	cfg, err := runconfig.Preset(runconfig.PresetQuick, "hmm")
	if err != nil {
		panic(err)
	}
	cfg.Model, cfg.Steps = "mamba", 20
	raw, err := json.Marshal(cfg)
	if err != nil {
		panic(err)
	}
	meta := sessions.Meta{Task: "hmm", Model: "mamba", Params: 1000, Layers: 2, Steps: 20, Device: "cpu", Config: raw}
	l := sessions.NewLive(meta, nil, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	for s := 1; s <= 20; s++ {
		r := sessions.Record{Step: s, Loss: 1, StepsPerS: 5, State: sessions.Training,
			Eval: &sessions.Eval{BitErrorPosition: 0.1, ModelEntropy: []float64{1, 2}, BayesEntropy: []float64{1, 1.5}}}
		if s%10 == 0 {
			sn := &sessions.Snapshot{ProbeN: 64,
				Manifold: &sessions.Manifold{Share: []float64{0.5, 0.2, 0.1}, Pearson: -0.8, Spearman: -0.7,
					Points: [][]float64{{-1, 0, 0}, {0, 1, 0}, {1, 0, 1}}, Entropy: []float64{3, 2, 1}}}
			if withSimplex && s == 20 {
				sx := &sessions.Simplex{States: 5, Purity: 0.32, SymbolPurity: 0.79, R2: 0.83,
					CornerDist: []sessions.Num{0.8, 0.8, 0.9, 0.8, 0.8}, MeanCornerDist: 0.82, N: 640}
				for i := range 40 {
					st := i % 5
					sx.Points = append(sx.Points, [2]float64{float64(st) + rng.Float64()/4, -float64(st) + rng.Float64()/4})
					sx.Argmax = append(sx.Argmax, st)
				}
				sn.Simplex = sx
				sn.SimplexInit = &sessions.Simplex{States: 5, Purity: 0.26, SymbolPurity: 0.9, R2: 0.07, MeanCornerDist: 0.86, N: 640}
			}
			r.Snapshot = sn
		}
		l.Record(r)
	}
	return l
}

// TestSimplexView checks the value-manifold pane's belief-simplex view (key b) at the tabs,
// split and grid sizes: the trained, untrained and exact-posterior rows (the last measured on
// the run's own sequences, its corner distance drawing the line), the claim's outcome, one glyph a
// state and the legend, every frame exactly the terminal's size; b again returns to the
// manifold, and on a snapshot without a simplex b does nothing. WINDTUNNEL_SHOW=1 prints
// the screens.
func TestSimplexView(t *testing.T) {
	show := os.Getenv("WINDTUNNEL_SHOW") != ""
	for _, sz := range [][2]int{{80, 24}, {120, 36}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := focusOn(t, sized(New(simplexFeed(true), Options{}), sz[0], sz[1]), "Value manifold")
			mustContain(t, checkedView(t, m, sz[0], sz[1]), "value manifold @20", "b belief simplex")
			m, _ = press(t, m, "b")
			v := checkedView(t, m, sz[0], sz[1])
			mustContain(t, v, "belief simplex @20", "640 points", "purity  symbol", "trained      0.32    0.79    0.83    0.82",
				"untrained    0.26    0.90    0.07    0.86", "posterior    0.94       –    1.00    0.61",
				"one cluster per state at the corners: not met", "argmax state: 0 1 2 3 4", "┃PC2")
			if sz[0] != 120 { // the split pane is too narrow for the line's numbers
				mustContain(t, v, "(purity ≥ 0.8, corner ≤ 0.752)")
			}
			if show {
				fmt.Printf("── %dx%d\n%s\n", sz[0], sz[1], v)
			}
			body := v[strings.Index(v, "┃PC2"):]
			for _, g := range []string{"0", "1", "2", "3", "4"} {
				if !strings.Contains(body, g) {
					t.Errorf("no state %s drawn in the scatter", g)
				}
			}
			m, _ = press(t, m, "b")
			mustContain(t, checkedView(t, m, sz[0], sz[1]), "value manifold @20")
		})
	}
	m := focusOn(t, sized(New(simplexFeed(false), Options{}), 80, 24), "Value manifold")
	m, _ = press(t, m, "b")
	v := checkedView(t, m, 80, 24)
	mustContain(t, v, "value manifold @20")
	if strings.Contains(v, "b belief simplex") || strings.Contains(v, "belief simplex @") {
		t.Error("the simplex key is offered on a snapshot without a simplex")
	}
}
