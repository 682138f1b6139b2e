package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"windtunnel/models"
	"windtunnel/models/arch"
	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
	"windtunnel/tunnels"
)

// evaluationBits is everything an evaluation with a geometry snapshot produces: the
// recorded evaluation (lengths included), the snapshot (JSON writes each float exactly)
// and the distributions behind them.
func evaluationBits(t *testing.T, tr *Trainer) (string, [][]float64) {
	t.Helper()
	s, sn, err := tr.evaluate(false, true)
	if err != nil {
		t.Fatal(err)
	}
	ev := EvalRecord(s)
	if ev.Lengths, err = tr.EvaluateLengths(s); err != nil {
		t.Fatal(err)
	}
	if err := tr.Geometry(sn, s, false); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(struct {
		Eval     *sessions.Eval
		Snapshot *sessions.Snapshot
	}{ev, sn})
	if err != nil {
		t.Fatal(err)
	}
	qs := [][]float64{append([]float64(nil), tr.q...), append([]float64(nil), tr.geo.q...)}
	for _, lp := range tr.lengths {
		qs = append(qs, append([]float64(nil), lp.q...))
	}
	return string(js), qs
}

// TestChunkedEvaluationIdentical trains each model kind a few steps on an hmm run with
// three evaluated lengths and a geometry snapshot, then scores it with the probe sets in
// one pass each and in passes of 3 sequences (sets of 11 and 7: a shorter last pass), and
// requires the same bits: the scores, the lengths, the attention entropies, the geometry
// snapshot (focus, keys, QK map, manifold, J-lens, ablation table) and every
// distribution. A wider transformer on OpenBLAS (when installed) has its products split
// over two workers in the whole pass and not in the chunked one.
func TestChunkedEvaluationIdentical(t *testing.T) {
	t.Parallel()
	type tc struct {
		name string
		cfg  runconfig.Config
	}
	var cases []tc
	for _, kind := range arch.Kinds() {
		c := tinyHMM(kind)
		c.Steps, c.ProbeSize, c.GeometryN, c.ProbeEvery = 6, 11, 7, 0
		cases = append(cases, tc{"hmm/" + kind, c})
	}
	// (The tiny hmm prefix MLP's value manifold is degenerate: its geometry on bijection.)
	pre := tiny(arch.KindPrefixMLP)
	pre.BLAS, pre.Steps, pre.EvalEvery, pre.ProbeSize, pre.GeometryN, pre.Workers = "gonum", 6, 6, 11, 7, 2
	cases[len(cases)-1] = tc{"bijection/" + arch.KindPrefixMLP, pre}
	f64 := cases[0].cfg
	f64.Precision = "float64"
	cases = append(cases, tc{"hmm/transformer/float64", f64})
	wide := tiny("transformer")
	wide.Transformer = arch.TransformerConfig{Layers: 2, Heads: 4, Width: 64}
	wide.Steps, wide.EvalEvery, wide.ProbeSize, wide.GeometryN, wide.Workers = 4, 4, 253, 30, 2
	cases = append(cases, tc{"bijection/transformer/auto", wide})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := New(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tr.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := tr.setupProbes(math.MaxInt64 / 2); err != nil {
				t.Fatal(err)
			}
			if tr.chunk != c.cfg.ProbeSize {
				t.Fatalf("unbounded budget: chunk %d, want the whole set of %d", tr.chunk, c.cfg.ProbeSize)
			}
			whole, wq := evaluationBits(t, tr)
			spec := models.EffectiveSpec(tr.cfg.Spec(), tr.tunnel)
			per := inferBytesPerSeq(spec, int64(tr.tunnel.SeqLen()), floatBytes(tr.cfg))
			want := max(3, minChunk(spec, tr.tunnel))
			if err := tr.setupProbes(int64(want) * per); err != nil {
				t.Fatal(err)
			}
			if tr.chunk != want || len(tr.probe) != (c.cfg.ProbeSize+want-1)/want {
				t.Fatalf("chunk %d in %d batches, want %d", tr.chunk, len(tr.probe), want)
			}
			for _, lp := range tr.lengths {
				if lp.probe[0].N >= c.cfg.ProbeSize {
					t.Errorf("K=%d is scored in one pass of %d sequences", lp.k, lp.probe[0].N)
				}
			}
			chunked, cq := evaluationBits(t, tr)
			tol := 0.0 // bit for bit
			if strings.HasPrefix(tr.BLAS(), "openblas") {
				// OpenBLAS's kernels sum a row's products in an order that depends on where
				// the row falls in the call's tiles, so a row's float32 result moves with
				// the chunk by about an ulp.
				tol = chunkTolOpenBLAS
			}
			var worst float64
			for i := range wq {
				if len(wq[i]) != len(cq[i]) || len(wq[i]) == 0 {
					t.Fatalf("distributions %d: %d and %d values", i, len(wq[i]), len(cq[i]))
				}
				for j := range wq[i] {
					worst = max(worst, relDiff(wq[i][j], cq[i][j]))
				}
			}
			if worst > tol {
				t.Errorf("distributions differ by %.3g (relDiff; tolerance %g)", worst, tol)
			}
			if tol == 0 {
				if chunked != whole {
					t.Errorf("records differ:\nwhole   %.600s\nchunked %.600s", whole, chunked)
				}
				return
			}
			var w, c any
			if err := json.Unmarshal([]byte(whole), &w); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(chunked), &c); err != nil {
				t.Fatal(err)
			}
			rw := compareJSON(t, "", w, c, tol)
			t.Logf("%s: distributions within %.3g, records within %.3g (relDiff)", tr.BLAS(), worst, rw)
		})
	}
}

// chunkTolOpenBLAS is the difference (relDiff) TestChunkedEvaluationIdentical allows
// between a set scored whole and in chunks on OpenBLAS: float32 rounding carried through
// the diagnostics (the value manifold's coordinates move most, by a few 1e-7), far inside
// the 2e-3 of TestFloat32MatchesFloat64.
const chunkTolOpenBLAS = 1e-5

// relDiff is |a − b| relative to the larger magnitude, absolute below 1; 0 for equal bits.
func relDiff(a, b float64) float64 {
	if math.Float64bits(a) == math.Float64bits(b) {
		return 0
	}
	return math.Abs(a-b) / max(math.Abs(a), math.Abs(b), 1)
}

// compareJSON walks two decoded JSON values, fails where their structure or strings
// differ or numbers differ by more than tol relative (relDiff), and returns the largest
// relative difference.
func compareJSON(t *testing.T, path string, a, b any, tol float64) float64 {
	t.Helper()
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			t.Errorf("%s: %v and %v", path, a, b)
			return math.Inf(1)
		}
		worst := 0.0
		for k, v := range x {
			worst = max(worst, compareJSON(t, path+"."+k, v, y[k], tol))
		}
		return worst
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			t.Errorf("%s: %d values and %v", path, len(x), b)
			return math.Inf(1)
		}
		worst := 0.0
		for i := range x {
			worst = max(worst, compareJSON(t, fmt.Sprintf("%s[%d]", path, i), x[i], y[i], tol))
		}
		return worst
	case float64:
		y, ok := b.(float64)
		if !ok {
			t.Errorf("%s: %v and %v", path, a, b)
			return math.Inf(1)
		}
		d := relDiff(x, y)
		if d > tol {
			t.Errorf("%s: %v whole, %v chunked (%.3g apart)", path, x, y, d)
		}
		return d
	}
	if a != b {
		t.Errorf("%s: %v and %v", path, a, b)
	}
	return 0
}

// TestEvalChunk: at every preset and evaluated length the chunk fits the budget (or is
// minChunk, which may not), stays within [minChunk, probeChunk] and, on the CPU presets,
// divides the probe set; the probe set and the geometry subset share it (one graph shape).
func TestEvalChunk(t *testing.T) {
	for _, preset := range runconfig.PresetNames() {
		for _, task := range []string{"bijection", "hmm", "recall"} {
			cfg, err := runconfig.Preset(preset, task)
			if err != nil {
				t.Fatal(err)
			}
			tn, err := tunnels.New(cfg.Task, cfg.Tunnel)
			if err != nil {
				t.Fatal(err)
			}
			long, err := longestTunnel(cfg, tn)
			if err != nil {
				t.Fatal(err)
			}
			s := models.EffectiveSpec(cfg.Spec(), long)
			for _, tk := range evalTunnels(cfg, tn) {
				c := evalChunk(s, tk, cfg.ProbeSize, 4, evalBudget)
				mc := minChunk(s, tk)
				bytes := int64(c) * inferBytesPerSeq(s, int64(tk.SeqLen()), 4)
				// The paper's sizes leave no divisor of the set between minChunk and the
				// budget at some lengths: their last pass is shorter (one graph more).
				if c < mc || c > max(probeChunk, mc) || (c > mc && bytes > evalBudget) || (preset != runconfig.PresetPaper && cfg.ProbeSize%c != 0) {
					t.Errorf("%s %s T=%d: chunk %d (min %d) of %d takes %d MB", preset, task, tk.SeqLen(), c, mc, cfg.ProbeSize, bytes>>20)
				}
				if tk == tn {
					if g := evalChunk(s, tk, cfg.GeometryN, 4, evalBudget); g != c && g != cfg.GeometryN {
						t.Errorf("%s %s: the geometry's %d sequences run in chunks of %d, the probe set's in %d", preset, task, cfg.GeometryN, g, c)
					}
				}
				t.Logf("%s %s T=%d: chunk %d (min %d), %.1f MB", preset, task, tk.SeqLen(), c, mc, float64(bytes)/(1<<20))
			}
		}
	}
}
