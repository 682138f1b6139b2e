package overlay

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"windtunnel/sessions"
	"windtunnel/tui"
)

// seedRun describes one synthetic run of the seed comparisons.
type seedRun struct {
	model string
	seed  int
	lr    string // the configuration's lr, as JSON
	every int    // evaluation cadence
}

// seedMeta is the Meta of a synthetic run: a lab-like configuration with nested model
// sections (both models' sizes, as the lab writes them).
func seedMeta(r seedRun) sessions.Meta {
	lr := r.lr
	if lr == "" {
		lr = "0.001"
	}
	m := sessions.Meta{Task: "bijection", Model: r.model, Steps: 600, Device: "cpu", Path: fmt.Sprintf("/runs/%s-s%d.wtlab", r.model, r.seed)}
	switch r.model {
	case "mlp":
		m.Params, m.Layers = 150000, 4
	default:
		m.Params, m.Layers, m.Heads = 201344, 4, 4
	}
	m.Config = []byte(fmt.Sprintf(`{"task":"bijection","tunnel":{"V":20},"model":%q,`+
		`"transformer":{"Layers":4,"Heads":4,"Width":64,"MLP":0},"mlp":{"Width":0,"Layers":4},`+
		`"steps":600,"batch":64,"lr":%s,"eval_every":%d,"workers":%d,"seed":%d}`,
		r.model, lr, r.every, r.seed+1, r.seed))
	return m
}

// seedCurve is a run's bit error (a) at step s: the transformer falls to 0.05 bits, the
// MLP stalls near 0.3, each seed a little above or below (seed 2 is the middle).
func seedCurve(model string, seed, s int) float64 {
	d := float64(seed - 2)
	if model == "mlp" {
		return 0.3 + 0.02*d + (1.8+0.1*d)*math.Exp(-float64(s-25)/(220+15*d))
	}
	return 0.05 + 0.005*d + (1.95+0.08*d)*math.Exp(-float64(s-25)/(110+8*d))
}

// seedFeed is a finished synthetic run evaluated every r.every steps up to 600.
func seedFeed(r seedRun) *sessions.Live {
	l := sessions.NewLive(seedMeta(r), nil, nil)
	for s := r.every; s <= 600; s += r.every {
		a := seedCurve(r.model, r.seed, s)
		l.Record(sessions.Record{Step: s, Loss: 1, State: sessions.Training,
			Eval: &sessions.Eval{BitErrorPosition: a, BitErrorSample: 1.3 * a, KLBits: 0.6 * a}})
	}
	l.End()
	return l
}

// seedFeeds are 3 seeds × 2 models; the transformer's seed 3 evaluates every 30 steps, the
// others every 25, so the transformer's band aligns two cadences.
func seedFeeds() []sessions.Feed {
	var fs []sessions.Feed
	for _, model := range []string{"transformer", "mlp"} {
		for seed := 1; seed <= 3; seed++ {
			every := 25
			if model == "transformer" && seed == 3 {
				every = 30
			}
			fs = append(fs, seedFeed(seedRun{model: model, seed: seed, every: every}))
		}
	}
	return fs
}

// TestOverlaySeedsView compares the overlay of 3 seeds × 2 models with
// testdata/TestOverlaySeedsView/*.golden at 120×40: two bands (░ and ▒) with their mean
// lines, the legend's mean ± sd, then scrubbed back (the cursor line and the values there),
// on a log scale, the three metrics a chart each, and the seeds' own curves on an axis from 0.
func TestOverlaySeedsView(t *testing.T) {
	for _, c := range []struct {
		name string
		keys []string
		want []string
	}{
		{"120x40", nil, []string{
			"bit error (a) over steps · bijection · 6 sessions (2 seed groups: mean ± sd) · linear (l)",
			"• ░ transformer (3 seeds)", "∘ ▒ mlp (3 seeds)", "step 600 · newest"}},
		{"120x40_scrubbed", []string{"<", "<", "<", "<", "<"}, []string{"scrubbing (end: follow)", string(cursorGlyph)}},
		{"120x40_log_kl", []string{"m", "m", "l"}, []string{"KL(p*‖q) over steps", "bits (log scale)", "KL "}},
		{"120x40_all_metrics", []string{"m", "m", "m", "m"}, []string{"bit error (a), (b) and KL over steps", "bit error (b)", "KL(p*‖q)"}},
		{"120x40_seeds_shown", []string{"s", "z"}, []string{"· seeds (s)", "y from 0 (z)", "³ seed 3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := pressOverlay(t, sizedOverlay(New(seedFeeds(), nil, tui.Options{}), 120, 40), c.keys...)
			v := overlayView(t, o, 120, 40)
			mustContain(t, v, c.want...)
			body := strings.Join(chartRows(t, v), "\n")
			for _, g := range []string{"░", "▒", "•", "∘"} {
				if !strings.Contains(body, g) {
					t.Errorf("the chart lacks %s:\n%s", g, v)
				}
			}
			golden.RequireEqual(t, v)
		})
	}
}

// failingFeed is a feed whose evaluations cannot be read.
type failingFeed struct{ sessions.Feed }

func (failingFeed) Evals(int, int) ([]sessions.Record, error) {
	return nil, errors.New("disk I/O error")
}

// TestOverlaySeedError checks that a seed whose session cannot be read is named in its
// group's legend line while the other seeds still make the band.
func TestOverlaySeedError(t *testing.T) {
	fs := seedFeeds()
	fs[1] = failingFeed{fs[1]}
	v := overlayView(t, sizedOverlay(New(fs, nil, tui.Options{}), 120, 40), 120, 40)
	mustContain(t, v, "transformer (3 seeds)  error: transformer-s2.wtlab: disk I/O error", "mlp (3 seeds)          not yet 0/3  (a) ", "░")
}
