package derived

import (
	"fmt"
	"math"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
	"windtunnel/tunnels"
)

// SimplexPurity is the k-means purity at or above which a layer's states form one cluster
// per hidden state (Paper I's Mamba figure): four points in five in their argmax state's
// cluster. Written before the primitives runs (README: Primitives).
const SimplexPurity = 0.8

// SimplexCornerLine is the mean corner distance at or below which a layer's clusters sit at
// the belief simplex's corners for k states, given optimum, the mean corner distance of the
// exact posterior's own clusters (SimplexOptimum; 0 or NaN: the corners themselves): half
// the way from the optimum's clusters to the simplex's centre, whose distance from a corner
// is √(1 − 1/k). At optimum 0 it is ½·√(1 − 1/k), 0.447 at k = 5, the line written before
// the primitives runs; on Paper I's HMM the posteriors never reach the corners (the optimum's
// clusters sit ≈ 0.62 from them), so that line no model could meet, and the line is drawn
// from the optimum instead (0.756 there).
func SimplexCornerLine(k int, optimum float64) float64 {
	if k < 2 {
		return math.NaN()
	}
	if !(optimum > 0) {
		optimum = 0
	}
	centre := math.Sqrt(1 - 1/float64(k))
	return optimum + 0.5*(centre-optimum)
}

// SimplexMeets reports whether a simplex measurement meets Paper I's claim: purity at least
// SimplexPurity and mean corner distance at most SimplexCornerLine(k, optimum).
func SimplexMeets(purity, cornerDist float64, k int, optimum float64) bool {
	return purity >= SimplexPurity && cornerDist <= SimplexCornerLine(k, optimum)
}

// SimplexRule is the criterion in words: "k-means purity ≥ 0.8 and mean corner distance ≤
// 0.756 (k = 5; halfway from the exact posterior's clusters, 0.617, to the simplex's centre,
// 0.894)".
func SimplexRule(k int, optimum float64) string {
	line := SimplexCornerLine(k, optimum)
	if !(optimum > 0) {
		return fmt.Sprintf("k-means purity ≥ %g and mean corner distance ≤ %.3f (k = %d)", SimplexPurity, line, k)
	}
	return fmt.Sprintf("k-means purity ≥ %g and mean corner distance ≤ %.3f (k = %d; halfway from the exact posterior's own clusters, %.3f, to the simplex's centre, %.3f)",
		SimplexPurity, line, k, optimum, math.Sqrt(1-1/float64(k)))
}

// maxOptimumValues bounds the posterior values SimplexOptimum measures (points × states):
// a configuration read from someone else's session may ask for 4,096 sequences of 512
// observations over 20 states, 42 million values to draw and cluster; 65,536 is 13,107
// points of 5 states (ten times the presets' geometry batch) and, at 20 states, 0.36 s
// beside two training runs (TestSimplexOptimumBounded).
const maxOptimumValues = 1 << 16

// SimplexOptimum is the belief-simplex measurement of the exact posterior itself, on the
// sequences a run with configuration c measures its layers on (Config.GeometryBatch; the
// first of them only where they hold more than maxOptimumValues posterior values): the
// Bayes-optimal representation, whose purity, R² (1) and corner distance are what the
// clusters of a perfect model's final layer would show — the ceiling beside the untrained
// null — with up to points of its PC1 and PC2 for a picture (0: none). nil for a task
// without hidden states (only hmm has them).
func SimplexOptimum(c runconfig.Config, points int) (*sessions.Simplex, error) {
	if c.Task != "hmm" {
		return nil, nil
	}
	tn, err := tunnels.New(c.Task, c.Tunnel)
	if err != nil {
		return nil, fmt.Errorf("derived: simplex optimum: %w", err)
	}
	per := len(tn.Positions()) * tn.Classes()
	c.GeometryN = max(1, min(c.GeometryN, c.ProbeSize, maxOptimumValues/max(per, 1)))
	c.ProbeSize = c.GeometryN
	b := c.GeometryBatch(tn)
	s, err := MeasureSimplex(b.Posterior, b, b.C, nil, 0, c.Seed, points)
	if err != nil {
		return nil, fmt.Errorf("derived: simplex optimum: %w", err)
	}
	return s, nil
}

// MeasureSimplex measures the belief simplex of states (N·P × width: a layer's states at
// the batch's scored positions, or the exact posterior itself) against the batch's exact
// posteriors over the hidden states (diagnostics.SimplexGeometry), the same clusters' purity
// against the symbol observed at each point (symbols, values 0..o−1; nil: not measured),
// and up to points of the states' PC1 and PC2 for a picture (diagnostics.ValueManifold's
// subsample, each point's argmax state carried through it in the entropy's place; 0: none).
func MeasureSimplex(states []float64, b *tunnels.Batch, width int, symbols []int, o int, seed uint64, points int) (*sessions.Simplex, error) {
	n := b.N * b.P
	g, err := diagnostics.SimplexGeometry(states, n, width, b.Posterior, b.C, seed)
	if err != nil {
		return nil, fmt.Errorf("derived: belief simplex: %w", err)
	}
	out := &sessions.Simplex{States: g.States, Purity: sessions.Num(g.Purity), R2: sessions.Num(g.R2),
		MeanCornerDist: sessions.Num(g.MeanCornerDist), N: n}
	if len(symbols) == n {
		out.SymbolPurity = sessions.Num(diagnostics.Purity(g.Labels, symbols, o))
	}
	for _, d := range g.CornerDist {
		out.CornerDist = append(out.CornerDist, sessions.Num(d))
	}
	if points <= 0 {
		return out, nil
	}
	state := make([]float64, n)
	for i, a := range g.Argmax {
		state[i] = float64(a)
	}
	m, err := diagnostics.ValueManifold(states, n, width, state, points)
	if err != nil {
		return nil, fmt.Errorf("derived: belief simplex: %w", err)
	}
	for i, p := range m.Points {
		if len(p) < 2 {
			break // one principal component: nothing to draw
		}
		out.Points = append(out.Points, [2]float64{p[0], p[1]})
		out.Argmax = append(out.Argmax, int(m.Entropy[i]))
	}
	return out, nil
}

// simplexValues pools one field of the snapshots' simplex measurement (get returns nil when
// a snapshot has none) into its States and a Stat per number, with the steps of the
// snapshots used; ok is false when none has one.
func simplexValues(snaps []*sessions.Snapshot, steps []int, get func(*sessions.Snapshot) *sessions.Simplex) (k int, purity, r2, corner Stat, used []int, ok bool) {
	var p, r, d []float64
	for i, sn := range snaps {
		if sn == nil || get(sn) == nil {
			continue
		}
		s := get(sn)
		k = s.States
		p, r, d = append(p, float64(s.Purity)), append(r, float64(s.R2)), append(d, float64(s.MeanCornerDist))
		used = append(used, steps[i])
	}
	if len(p) == 0 {
		return 0, Stat{}, Stat{}, Stat{}, nil, false
	}
	return k, StatOf(p), StatOf(r), StatOf(d), used, true
}
