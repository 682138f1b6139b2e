package derived

import (
	"cmp"
	"math"
	"strings"
	"testing"
	"time"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
	"windtunnel/tunnels"
)

// TestPrimitiveCellVerdict: ✗ when the seed mean fails at the end, slow when it first meets
// the line after SlowFraction of the steps, ✓ when by then; the first pass is where every
// seed has a value and their mean meets the line.
func TestPrimitiveCellVerdict(t *testing.T) {
	recall, _ := PrimitiveOf("recall")
	bij, _ := PrimitiveOf("bijection")
	curve := func(vs ...float64) []StepValue {
		out := make([]StepValue, len(vs))
		for i, v := range vs {
			out[i] = StepValue{Step: 100 * (i + 1), V: v}
		}
		return out
	}
	for _, c := range []struct {
		name     string
		p        Primitive
		pass     bool
		curves   [][]StepValue
		wantStep int
		want     string
	}{
		{"early", bij, true, [][]StepValue{curve(0.5, 0.1, 0.05, 0.04), curve(0.6, 0.12, 0.06, 0.05)}, 200, VerdictPass},
		{"at the half", bij, true, [][]StepValue{curve(0.5, 0.3, 0.1, 0.04)}, 300, VerdictPass},
		{"late", recall, true, [][]StepValue{curve(0.25, 0.25, 0.25, 0.95), curve(0.25, 0.25, 0.9, 0.97)}, 400, VerdictSlow},
		{"one seed early is not the mean", recall, true, [][]StepValue{curve(0.95, 0.95, 0.95, 0.95), curve(0.25, 0.25, 0.25, 0.95)}, 400, VerdictSlow},
		{"fails", bij, false, [][]StepValue{curve(2, 1.5, 1.2, 1.1)}, -1, VerdictFail},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := PrimitiveCellOf(Cell{Task: c.p.Task, Model: "mamba", Primitive: c.p, Pass: c.pass}, c.curves, 600, math.NaN())
			if got.PassStep != c.wantStep || got.Verdict != c.want || got.SlowAfter != 300 {
				t.Errorf("pass step %d verdict %q slow after %d; want %d %q 300", got.PassStep, got.Verdict, got.SlowAfter, c.wantStep, c.want)
			}
		})
	}
}

// TestPrimitivesTableText: the paper's level, the context-free level and the paper's
// verdict (slow for Mamba on recall) stand beside a cell.
func TestPrimitivesTableText(t *testing.T) {
	recall, _ := PrimitiveOf("recall")
	bij, _ := PrimitiveOf("bijection")
	cells := []PrimitiveCell{
		PrimitiveCellOf(Cell{Task: "recall", Model: "mamba", Primitive: recall, Seeds: []uint64{1, 2, 3}}, nil, 1000, 1.0/32),
		PrimitiveCellOf(Cell{Task: "bijection", Model: "lstm", Primitive: bij, Seeds: []uint64{1}}, nil, 1000, ContextFreeBits(20)),
	}
	s := FormatPrimitives(cells)
	for _, want := range []string{"97.8 % (slow) | slow |", "| 3.1 % |", "| 1.107 | 0.009 bits | ✓ |", "1..3"} {
		if !strings.Contains(s, want) {
			t.Errorf("table lacks %q:\n%s", want, s)
		}
	}
	if _, ok := PaperLevelOf("recall", "transformer"); ok {
		t.Errorf("recall transformer has no printed level")
	}
}

// TestSimplexOf pools the seeds' simplex measurements, skipping snapshots without one, and
// the table shows them under the paper's claim.
func TestSimplexOf(t *testing.T) {
	sx := func(p, r float64) *sessions.Snapshot {
		return &sessions.Snapshot{Simplex: &sessions.Simplex{States: 5, Purity: sessions.Num(p), R2: sessions.Num(r), MeanCornerDist: 0.5}}
	}
	if SimplexOf([]*sessions.Snapshot{nil, {}}, []int{1, 2}, nil) != nil {
		t.Errorf("no measurement, yet a SimplexStat")
	}
	s := SimplexOf([]*sessions.Snapshot{sx(0.9, 0.8), nil, sx(0.7, 0.6)}, []int{100, 200, 300}, nil)
	if s == nil || s.States != 5 || math.Abs(s.Purity.Mean-0.8) > 1e-12 || len(s.Steps) != 2 || s.Steps[1] != 300 || s.SymbolPurity != nil {
		t.Fatalf("pooled %+v", s)
	}
	withSym := sx(0.9, 0.8)
	withSym.Simplex.SymbolPurity = 0.6
	if s2 := SimplexOf([]*sessions.Snapshot{withSym, sx(0.7, 0.6)}, []int{1, 2}, nil); s2.SymbolPurity == nil || s2.SymbolPurity.Mean != 0.6 || len(s2.SymbolPurity.Values) != 1 {
		t.Errorf("purity against the symbol, one seed of two: %+v", s2.SymbolPurity)
	}
	hmm, _ := PrimitiveOf("hmm")
	c := PrimitiveCellOf(Cell{Task: "hmm", Model: "mamba", Primitive: hmm, Seeds: []uint64{1, 3}}, nil, 1500, math.NaN())
	c.Simplex = s
	out := FormatPrimitives([]PrimitiveCell{c})
	for _, want := range []string{"Belief simplex", "one cluster per hidden state", "| hmm | mamba | 2 | 100, 300 | 5 | 0.800±0.141 | 0.700±0.141 | 0.500±0.000 | 0.447 | — | — | not met | not reproduced | — |"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestSimplexOutcome: the claim's three outcomes against the untrained null, on fixtures at
// both sides of the lines (purity 0.8; corner distance ½·√(1 − 1/k) = 0.447 at k = 5 with
// the optimum unknown, and halfway from a known optimum's to the centre's), the line moved by
// the exact posterior's own corner distance.
func TestSimplexOutcome(t *testing.T) {
	for _, tc := range []struct{ k, optimum, want float64 }{
		{5, math.NaN(), 0.5 * math.Sqrt(0.8)},
		{5, 0, 0.5 * math.Sqrt(0.8)},
		{5, 0.6, 0.6 + 0.5*(math.Sqrt(0.8)-0.6)},
		{2, 0.2, 0.2 + 0.5*(math.Sqrt(0.5)-0.2)},
	} {
		if d := SimplexCornerLine(int(tc.k), tc.optimum); math.Abs(d-tc.want) > 1e-12 {
			t.Errorf("corner line at k = %g, optimum %g: %v, want %v", tc.k, tc.optimum, d, tc.want)
		}
	}
	far := &sessions.Simplex{States: 5, Purity: 0.97, R2: 1, MeanCornerDist: 0.62}
	at := func(p, d float64) *sessions.Snapshot {
		return &sessions.Snapshot{Simplex: &sessions.Simplex{States: 5, Purity: sessions.Num(p), R2: 0.9, MeanCornerDist: sessions.Num(d)},
			SimplexInit: &sessions.Simplex{States: 5, Purity: 0.26, R2: 0.07, MeanCornerDist: 0.86}}
	}
	// Beyond the corners' line (0.447), within the optimum's (0.62 + ½(0.894 − 0.62) = 0.757).
	s := SimplexOf([]*sessions.Snapshot{at(0.9, 0.70)}, []int{1}, []*sessions.Simplex{far})
	if !s.Meets || s.Init.Meets || s.Optimum == nil || math.Abs(s.Line()-0.757) > 1e-3 || SimplexOutcome(s) != Reproduced {
		t.Errorf("at 0.70 from the corners, the optimum at 0.62: meets %v, line %.4f, outcome %q", s.Meets, s.Line(), SimplexOutcome(s))
	}
	if s := SimplexOf([]*sessions.Snapshot{at(0.9, 0.70)}, []int{1}, nil); s.Meets || s.Optimum != nil {
		t.Errorf("the optimum unknown: judged against the corners themselves, yet meets %v", s.Meets)
	}
	if !strings.Contains(s.Rule(), "halfway from the exact posterior's own clusters, 0.620, to the simplex's centre, 0.894") {
		t.Errorf("rule %q", s.Rule())
	}
	snap := func(p, d, p0, d0 float64) *sessions.Snapshot {
		sn := &sessions.Snapshot{Simplex: &sessions.Simplex{States: 5, Purity: sessions.Num(p), R2: 0.9, MeanCornerDist: sessions.Num(d)}}
		if p0 >= 0 {
			sn.SimplexInit = &sessions.Simplex{States: 5, Purity: sessions.Num(p0), R2: 0.3, MeanCornerDist: sessions.Num(d0)}
		}
		return sn
	}
	tests := []struct {
		name      string
		snaps     []*sessions.Snapshot
		meets     bool
		nullMeets bool
		want      string
	}{
		{"trained at the corners, untrained not", []*sessions.Snapshot{snap(0.95, 0.2, 0.5, 0.7), snap(0.85, 0.3, 0.4, 0.8)}, true, false, Reproduced},
		{"both at the corners", []*sessions.Snapshot{snap(0.95, 0.2, 0.9, 0.3)}, true, true, ConsistentNotDiagnostic},
		{"no null recorded", []*sessions.Snapshot{snap(0.95, 0.2, -1, 0)}, true, false, ConsistentNotDiagnostic},
		{"pure but off the corners", []*sessions.Snapshot{snap(0.95, 0.5, 0.5, 0.7)}, false, false, NotReproduced},
		{"at the corners, impure (mean of seeds 0.79)", []*sessions.Snapshot{snap(0.78, 0.2, 0.5, 0.7), snap(0.80, 0.2, 0.5, 0.7)}, false, false, NotReproduced},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := SimplexOf(tc.snaps, make([]int, len(tc.snaps)), nil)
			if s.Meets != tc.meets || (s.Init != nil && s.Init.Meets != tc.nullMeets) {
				t.Errorf("meets %v (null %+v), want %v (null %v)", s.Meets, s.Init, tc.meets, tc.nullMeets)
			}
			if got := SimplexOutcome(s); got != tc.want {
				t.Errorf("outcome %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLengthsTable pools the seeds' length curves by K and shows them as a table with the
// training K marked; a cell without curves has no row.
func TestLengthsTable(t *testing.T) {
	curve := func(a20, a30, a50 float64) []sessions.LengthScore {
		return []sessions.LengthScore{{K: 20, Train: true, BitErrorPosition: sessions.Num(a20), KLBits: sessions.Num(a20 / 2)},
			{K: 50, BitErrorPosition: sessions.Num(a50), KLBits: sessions.Num(a50 / 2)}, {K: 30, BitErrorPosition: sessions.Num(a30), KLBits: sessions.Num(a30 / 2)}}
	}
	ls := LengthsOf([][]sessions.LengthScore{curve(0.04, 0.05, 0.08), curve(0.06, 0.07, 0.12)})
	tests := []struct {
		k     int
		train bool
		mean  float64
	}{{20, true, 0.05}, {30, false, 0.06}, {50, false, 0.10}}
	if len(ls) != len(tests) {
		t.Fatalf("%d lengths, want %d: %+v", len(ls), len(tests), ls)
	}
	for i, tc := range tests {
		if ls[i].K != tc.k || ls[i].Train != tc.train || math.Abs(ls[i].BitErrorA.Mean-tc.mean) > 1e-12 || math.Abs(ls[i].KL.Mean-tc.mean/2) > 1e-12 {
			t.Errorf("K %d: %+v, want train %v mean %g", tc.k, ls[i], tc.train, tc.mean)
		}
	}
	if LengthsOf(nil) != nil {
		t.Error("lengths without curves")
	}
	hmm, _ := PrimitiveOf("hmm")
	c := PrimitiveCellOf(Cell{Task: "hmm", Model: "lstm", Primitive: hmm, Seeds: []uint64{1, 2}}, nil, 900, math.NaN())
	c.Lengths = ls
	out := FormatPrimitives([]PrimitiveCell{c, {Cell: Cell{Task: "bijection", Model: "mlp"}}})
	for _, want := range []string{"| task | model | seeds | K = 20 (trained) | K = 30 | K = 50 |", "| hmm | lstm | 1..2 | 0.0500±0.0141 / 0.0250±0.0071 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| bijection | mlp | none |") {
		t.Errorf("a row for a cell without lengths:\n%s", out)
	}
}

// TestSimplexOptimum measures the exact posterior itself on an hmm run's geometry sequences
// and checks it against a direct computation: R² 1 (the posterior is its own read-out), each
// cluster's corner distance the distance of its points' mean posterior from its majority
// state's corner. On Paper I's HMM family the posteriors stay far from the corners (the
// belief's largest entry averages ≈ 0.45), so the optimum's clusters sit beyond the line
// ½·√(1 − 1/k) drawn from the corners themselves — a line no model could meet — and within
// the line drawn from the optimum. Tasks without hidden states have none.
func TestSimplexOptimum(t *testing.T) {
	if s, err := SimplexOptimum(runconfig.Config{Task: "bijection"}, 0); s != nil || err != nil {
		t.Errorf("bijection: %+v, %v; want none", s, err)
	}
	for _, seed := range []uint64{1, 2} {
		c, err := runconfig.Preset("quick", "hmm")
		if err != nil {
			t.Fatal(err)
		}
		c.Seed = seed
		s, err := SimplexOptimum(c, 0)
		if err != nil || s == nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		tn, err := tunnels.New(c.Task, c.Tunnel)
		if err != nil {
			t.Fatal(err)
		}
		b := c.GeometryBatch(tn)
		n, k := b.N*b.P, b.C
		if s.N != n || s.States != k || math.Abs(float64(s.R2)-1) > 1e-9 || s.Purity < 0.9 {
			t.Errorf("seed %d: %d points of %d states, R² %v, purity %v; want %d of %d, 1, ≥ 0.9", seed, s.N, s.States, s.R2, s.Purity, n, k)
		}
		labels, _ := diagnostics.KMeans(b.Posterior, n, k, k, seed)
		var sum float64
		var used int
		for c := range k {
			mean := make([]float64, k)
			votes := make([]int, k)
			m := 0
			for i, l := range labels {
				if l != c {
					continue
				}
				m++
				post := b.Posterior[i*k : (i+1)*k]
				votes[argmaxOf(post)]++
				for j, v := range post {
					mean[j] += v
				}
			}
			if m == 0 {
				continue
			}
			maj := argmaxOf(votes)
			var d2 float64
			for j := range mean {
				v := mean[j] / float64(m)
				if j == maj {
					v--
				}
				d2 += v * v
			}
			sum += math.Sqrt(d2)
			used++
		}
		if want := sum / float64(used); math.Abs(float64(s.MeanCornerDist)-want) > 1e-6 {
			t.Errorf("seed %d: corner distance %v, direct %v", seed, s.MeanCornerDist, want)
		}
		d := float64(s.MeanCornerDist)
		if d <= SimplexCornerLine(k, math.NaN()) || !SimplexMeets(float64(s.Purity), d, k, d) {
			t.Errorf("seed %d: the optimum's corner distance %.3f: want beyond the corners' line %.3f and meeting its own %.3f",
				seed, d, SimplexCornerLine(k, math.NaN()), SimplexCornerLine(k, d))
		}
	}
}

// TestSimplexOptimumBounded: the largest hmm a session's configuration may ask for (4,096
// geometry sequences of 512 observations over 20 states: 42 million posterior values) is
// measured on its first sequences only, at most maxOptimumValues values, in bounded time —
// a reader given someone else's session never spends minutes on it.
func TestSimplexOptimumBounded(t *testing.T) {
	c, err := runconfig.Preset("quick", "hmm")
	if err != nil {
		t.Fatal(err)
	}
	c.Tunnel.States, c.Tunnel.Symbols, c.Tunnel.K = tunnels.MaxStates, tunnels.MaxSymbols, tunnels.MaxK
	c.GeometryN, c.ProbeSize = 4096, 4096
	start := time.Now()
	s, err := SimplexOptimum(c, 0)
	if err != nil || s == nil {
		t.Fatalf("the largest hmm: %v", err)
	}
	if s.N*s.States > maxOptimumValues || s.N < tunnels.MaxK || s.States != tunnels.MaxStates {
		t.Errorf("%d points of %d states: want at most %d values, at least one sequence", s.N, s.States, maxOptimumValues)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	t.Logf("%d points of %d states in %v", s.N, s.States, time.Since(start))
}

// argmaxOf is the index of v's largest element (the first of equals).
func argmaxOf[T cmp.Ordered](v []T) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}
