package lab

import (
	"context"
	"math"
	"testing"
	"windtunnel/sessions/runconfig"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// runSnapshots trains c and returns every snapshot that carries geometry.
func runSnapshots(t *testing.T, c runconfig.Config) ([]sessions.Record, Result) {
	t.Helper()
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	var snaps []sessions.Record
	tr.Attach(&collector{onRecord: func(r sessions.Record) {
		if r.Snapshot != nil && r.Snapshot.ProbeN > 0 {
			snaps = append(snaps, r)
		}
	}})
	res, err := tr.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snaps, res
}

func TestGeometrySnapshots(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 600 steps with three geometry snapshots")
	}
	t.Parallel()
	c := tiny("transformer")
	c.Steps, c.ProbeEvery, c.GeometryN = 600, 200, 32
	snaps, res := runSnapshots(t, c)
	if len(snaps) != 3 {
		t.Fatalf("%d geometry snapshots, want 3 (steps 200, 400, 600)", len(snaps))
	}
	for i, r := range snaps {
		sn := r.Snapshot
		if r.Step != 200*(i+1) || sn.ProbeN != 32 {
			t.Fatalf("snapshot %d at step %d on %d sequences", i, r.Step, sn.ProbeN)
		}
		if len(sn.KeyOrthogonality) != 2 || len(sn.KeyOrthogonality[0]) != 2 || len(sn.AttentionMass) != 2 || len(sn.QKAlignment) != 2 {
			t.Fatalf("snapshot %d: layer × head shapes %v %v", i, sn.KeyOrthogonality, sn.AttentionMass)
		}
		for _, row := range sn.KeyOrthogonality {
			for _, v := range row {
				if !(v >= 0 && v <= 1) {
					t.Errorf("key orthogonality %g outside [0, 1]", v)
				}
			}
		}
		if !(sn.KeyOrthogonalityRandom > 0 && sn.KeyOrthogonalityRandom < 1) {
			t.Errorf("random baseline %g", sn.KeyOrthogonalityRandom)
		}
		m := sn.Manifold
		if m == nil || len(m.Share) != 3 || m.Share[0] < m.Share[1] || m.Share[0]+m.Share[1]+m.Share[2] > 1+1e-9 {
			t.Fatalf("snapshot %d: manifold %+v", i, m)
		}
		if len(m.Points) != len(m.Entropy) || len(m.Points) == 0 {
			t.Errorf("manifold has %d points and %d entropies", len(m.Points), len(m.Entropy))
		}
		if len(sn.Ablation) != 2*2+4 {
			t.Errorf("ablation table has %d rows, want 8 (4 heads, 2 attention, 2 MLP)", len(sn.Ablation))
		}
		f := sn.Frame
		if f == nil || len(f.Points) != i+1 {
			t.Fatalf("snapshot %d: frame %+v", i, f)
		}
		last := f.Points[i]
		for l, d := range last.ToLatest {
			if math.Abs(float64(d)) > 1e-6 {
				t.Errorf("snapshot %d: the latest frame's distance to itself is %g at layer %d", i, d, l)
			}
		}
		if i == 0 && !math.IsNaN(float64(last.Drift[0])) {
			t.Errorf("first snapshot has a drift %g", last.Drift[0])
		} else if i > 0 && !(last.Drift[0] >= 0 && last.Drift[0] <= 2) {
			t.Errorf("snapshot %d drift %g outside [0, 2]", i, last.Drift[0])
		}
		if i > 0 && float64(f.Points[0].ToLatest[0]) <= 0 {
			t.Errorf("snapshot %d: the first frame is at distance %g from the latest", i, f.Points[0].ToLatest[0])
		}
		checkDerived(t, sn, 2, 2)
		checkJLens(t, sn, i+1)
	}
	if res.GeometryS <= 0 {
		t.Errorf("geometry time %g", res.GeometryS)
	}
	t.Logf("geometry %.2f s, eval %.2f s of %.2f s", res.GeometryS, res.EvalS, res.WallS)
}

// checkJLens checks a transformer snapshot's J-lens record (V=8 classes at width 32: a
// frame of rank 8, null 8/32; the 6 key positions with a later position, 0, 2, …, 10) and
// the ratio series in its frame history of n points.
func checkJLens(t *testing.T, sn *sessions.Snapshot, n int) {
	t.Helper()
	j := sn.JLens
	if !j.Current() {
		t.Fatal("no J-lens record of the current statistic")
	}
	if len(j.Sites) != 2 || j.Sites[0] != -1 || j.Sites[1] != 0 || j.Width != 32 || j.FrameRank != 8 || j.Rank != diagnostics.JLensRank {
		t.Fatalf("J-lens sites %v, width %d, ranks %d/%d", j.Sites, j.Width, j.FrameRank, j.Rank)
	}
	P := len(j.Positions)
	if P != 6 || j.Positions[5] != 10 {
		t.Fatalf("J-lens positions %v, want 0, 2, …, 10", j.Positions)
	}
	if math.Abs(float64(j.Null)-0.25) > 1e-12 || len(j.Frame) != 32*8 || len(j.Basis) != 2*P || len(j.Basis[0]) != 32*8 {
		t.Fatalf("J-lens null %g, frame basis %d values, %d bases", j.Null, len(j.Frame), len(j.Basis))
	}
	for si, o := range j.Overlap {
		if !(o >= 0 && o <= 1) {
			t.Errorf("J-lens overlap %g outside [0, 1]", o)
		}
		if mean := derived.MeanNum(j.PositionOverlap[si]); math.Abs(mean-float64(o)) > 1e-12 {
			t.Errorf("site %d: overlap %g is not the mean %g of its positions", si, o, mean)
		}
	}
	if _, ok := derived.FrameJLens(sn.Frame.Points); !ok {
		t.Fatal("no J-lens ratio in the frame history")
	}
	for k, p := range sn.Frame.Points {
		if len(p.JLens) != 2 || !(p.BitErrorSample > 0) {
			t.Fatalf("frame point %d: J-lens ratios %v, bit error (b) %g", k, p.JLens, p.BitErrorSample)
		}
	}
	// The newest point is measured against its own frame: the record's ratio.
	last := sn.Frame.Points[n-1].JLens
	for si := range last {
		if want := float64(j.Overlap[si] / j.Null); math.Abs(float64(last[si])-want) > 1e-6 {
			t.Errorf("site %d: latest frame point's ratio %g, the record's %g", si, last[si], want)
		}
	}
}

func TestGeometryWithoutAttention(t *testing.T) {
	c := tiny("mlp")
	c.Steps, c.ProbeEvery, c.GeometryN = 200, 100, 16
	snaps, _ := runSnapshots(t, c)
	if len(snaps) != 2 {
		t.Fatalf("%d snapshots, want 2", len(snaps))
	}
	sn := snaps[1].Snapshot
	if sn.KeyOrthogonality != nil || sn.AttentionMass != nil || sn.QKAlignment != nil {
		t.Errorf("an MLP snapshot has attention diagnostics: %+v", sn)
	}
	if sn.Manifold == nil || len(sn.Ablation) == 0 {
		t.Errorf("an MLP snapshot lacks the manifold or the ablation table: %+v", sn)
	}
	for _, e := range sn.Ablation {
		if e.Unit != "layer" || e.Head != -1 {
			t.Errorf("MLP ablation row %+v", e)
		}
	}
	if sn.HeadDelta != nil || sn.CostliestHead != nil || sn.Costliest == nil {
		t.Errorf("an MLP snapshot: head table %v, costliest head %v, costliest %v", sn.HeadDelta, sn.CostliestHead, sn.Costliest)
	}
	checkDerived(t, sn, 0, 0)
}

// checkDerived checks that the values derived at snapshot time (head table, costliest
// unit and head, settle steps) are what diagnostics computes from the recorded table and
// frame history.
func checkDerived(t *testing.T, sn *sessions.Snapshot, layers, heads int) {
	t.Helper()
	var all, onlyHeads []diagnostics.Effect
	for _, e := range sn.Ablation {
		d := diagnostics.Effect{Unit: e.Unit, Layer: e.Layer, Head: e.Head, DeltaBits: e.DeltaBits, DeltaKL: e.DeltaKL}
		all = append(all, d)
		if e.Unit == diagnostics.UnitHead {
			onlyHeads = append(onlyHeads, d)
		}
	}
	if heads > 0 {
		want := diagnostics.HeadTable(all, layers, heads)
		if len(sn.HeadDelta) != layers {
			t.Fatalf("head table has %d layers, want %d", len(sn.HeadDelta), layers)
		}
		for l, row := range want {
			for h, v := range row {
				if got := float64(sn.HeadDelta[l][h]); got != v && !(math.IsNaN(got) && math.IsNaN(v)) {
					t.Errorf("head table L%d H%d = %g, want %g", l, h, got, v)
				}
			}
		}
	}
	same := func(name string, got *diagnostics.Effect, effects []diagnostics.Effect) {
		w, ok := diagnostics.Worst(effects)
		switch {
		case !ok && got != nil:
			t.Errorf("%s %+v, want none", name, *got)
		case ok && (got == nil || *got != diagnostics.Effect{Unit: w.Unit, Layer: w.Layer, Head: w.Head, DeltaBits: w.DeltaBits, DeltaKL: w.DeltaKL}):
			t.Errorf("%s %v, want %+v", name, got, w)
		}
	}
	same("costliest", sn.Costliest, all)
	same("costliest head", sn.CostliestHead, onlyHeads)
	f := sn.Frame
	if f == nil || f.Settle == nil {
		t.Fatalf("no settle steps in the frame %+v", f)
	}
	var steps []int
	var frame, bitError, rho []float64
	for _, p := range f.Points {
		steps = append(steps, p.Step)
		sum, n := 0.0, 0
		for _, v := range p.ToLatest {
			if !math.IsNaN(float64(v)) {
				sum, n = sum+float64(v), n+1
			}
		}
		frame = append(frame, sum/float64(n)) // 0/0 = NaN without layers
		bitError = append(bitError, math.Log2(max(p.BitError, 1e-4)))
		rho = append(rho, 1-float64(p.PC1Abs))
	}
	at := func(series []float64) int {
		s, ok := diagnostics.SettleStep(steps, series, 0.1)
		if !ok {
			return -1
		}
		return s
	}
	want := sessions.Settle{Band: 0.1, Frame: at(frame), BitError: at(bitError), Rho: at(rho)}
	if got := *f.Settle; got != want {
		t.Errorf("settle %+v, want %+v", got, want)
	}
}

// TestDerivedSynthetic checks the derivations on a table and a history built by hand: the
// frame settles at step 300 (layer means 0.9, 0.5, 0.05, 0.02, 0; a NaN layer skipped),
// the bit error has not settled (it moved at the last point), ρ at its first point.
func TestDerivedSynthetic(t *testing.T) {
	nan := sessions.Num(math.NaN())
	pts := []sessions.FramePoint{
		{Step: 100, ToLatest: []sessions.Num{0.8, 1.0}, BitError: 0.9, PC1Abs: 0.5},
		{Step: 200, ToLatest: []sessions.Num{0.5, nan}, BitError: 0.5, PC1Abs: 0.5},
		{Step: 300, ToLatest: []sessions.Num{0.05, 0.05}, BitError: 0.3, PC1Abs: 0.5},
		{Step: 400, ToLatest: []sessions.Num{0.02, 0.02}, BitError: 0.2, PC1Abs: 0.5},
		{Step: 500, ToLatest: []sessions.Num{0, 0}, BitError: 0.01, PC1Abs: 0.5},
	}
	want := sessions.Settle{Band: 0.1, Frame: 300, BitError: -1, Rho: 100}
	if got := settle(pts); *got != want {
		t.Errorf("settle %+v, want %+v", *got, want)
	}
	effects := []diagnostics.Effect{
		{Unit: "head", Layer: 0, Head: 1, DeltaBits: 0.2},
		{Unit: "head", Layer: 1, Head: 0, DeltaBits: 0.1},
		{Unit: "attn", Layer: 0, Head: -1, DeltaBits: 0.7},
	}
	var sn sessions.Snapshot
	setAblation(&sn, effects, 2, 2)
	if len(sn.Ablation) != 3 || sn.Ablation[2].Unit != "attn" {
		t.Errorf("ablation %+v", sn.Ablation)
	}
	if !math.IsNaN(float64(sn.HeadDelta[0][0])) || sn.HeadDelta[0][1] != 0.2 || sn.HeadDelta[1][0] != 0.1 {
		t.Errorf("head table %v", sn.HeadDelta)
	}
	if sn.Costliest == nil || sn.Costliest.Unit != "attn" || sn.CostliestHead == nil || sn.CostliestHead.Head != 1 {
		t.Errorf("costliest %+v, costliest head %+v", sn.Costliest, sn.CostliestHead)
	}
	sn = sessions.Snapshot{}
	setAblation(&sn, nil, 0, 0)
	if sn.HeadDelta != nil || sn.Costliest != nil || sn.CostliestHead != nil {
		t.Errorf("derived values of an empty table: %+v", sn)
	}
}

// TestPrecisionSettlesOnLogScale: a bit error that falls from 4.3 bits to 0.07 by step 3000
// and keeps halving to 0.012 by step 18000 has not settled at step 3000 (a linear 10% band,
// 0.43 bits, would say it had), while the frame series that stops moving at 11000 has.
func TestPrecisionSettlesOnLogScale(t *testing.T) {
	bits := map[int]float64{1000: 4.3, 2000: 0.5, 3000: 0.07, 6000: 0.05, 9000: 0.035, 12000: 0.025, 15000: 0.017, 18000: 0.012}
	var pts []sessions.FramePoint
	for _, st := range []int{1000, 2000, 3000, 6000, 9000, 12000, 15000, 18000} {
		f := 0.0
		if st < 11000 {
			f = 1 - float64(st)/11000
		}
		pts = append(pts, sessions.FramePoint{Step: st, ToLatest: []sessions.Num{sessions.Num(f)}, BitError: bits[st], PC1Abs: 0.9})
	}
	got := settle(pts)
	if got.Frame != 12000 {
		t.Errorf("frame settled at %d, want 12000", got.Frame)
	}
	if got.BitError >= 0 && got.BitError <= 3000 {
		t.Errorf("bit error settled at %d: the linear-range artefact", got.BitError)
	}
	steps := []int{1000, 2000, 3000, 6000, 9000, 12000, 15000, 18000}
	var lin []float64
	for _, st := range steps {
		lin = append(lin, bits[st])
	}
	if s, ok := diagnostics.SettleStep(steps, lin, derived.SettleBand); !ok || s != 3000 {
		t.Errorf("linear criterion settles at %d (%v), want 3000: the test no longer shows the artefact", s, ok)
	}
}
