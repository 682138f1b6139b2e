package tui

import (
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// fixturePath is the recorded session every view test reads. It may be replaced by a real
// run's file: the tests derive what they expect from the feed, and `go test ./tui -update`
// rewrites the goldens.
const fixturePath = "testdata/fixture.wtlab"

var regenFixture = flag.Bool("regen-fixture", false, "rewrite "+fixturePath+" from the synthetic run")

func TestMain(m *testing.M) {
	flag.Parse()
	lipgloss.SetColorProfile(termenv.Ascii)
	if _, err := os.Stat(fixturePath); *regenFixture || os.IsNotExist(err) {
		if err := writeFixture(fixturePath); err != nil {
			fmt.Fprintln(os.Stderr, "writing the fixture:", err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// Shape of the synthetic run.
const (
	fxSteps    = 600
	fxEvery    = 25 // an evaluation and an attention snapshot
	fxGeoEvery = 50 // a geometry snapshot (the lab's --probe-every)
	fxLayers   = 4
	fxHeads    = 4
	fxVocab    = 20 // bijection size: 19 scored positions
	fxPause    = 250
	fxAblateAt = 400
)

// fxMeta describes the synthetic run.
func fxMeta() sessions.Meta {
	return sessions.Meta{
		Task: "bijection", Model: "transformer", Params: 201344, Layers: fxLayers, Heads: fxHeads, Steps: fxSteps,
		Device: "cuda", DeviceName: "NVIDIA H100 80GB HBM3", Driver: "12.4", Version: "fixture", Host: "fixture-host",
		Created: time.Date(2026, 1, 15, 9, 30, 0, 0, time.UTC),
		Config:  []byte(`{"task":"bijection","vocab":20,"model":"transformer","layers":4,"heads":4,"d_model":64,"steps":600,"eval_every":50}`),
	}
}

// fxBitError is bit error (a) at step s: about 2 bits at the first evaluation, 0.05 at the end.
func fxBitError(s int) float64 { return 0.05 + 1.95*math.Exp(-float64(s-50)/110) }

// fxEval is the evaluation at step s, with ablated heads when given.
func fxEval(s int, ablated ...sessions.Head) *sessions.Eval {
	a := fxBitError(s)
	if len(ablated) > 0 {
		a += 0.35
	}
	n := fxVocab - 1
	model, bayes := make([]float64, n), make([]float64, n)
	for p := range n {
		bayes[p] = math.Log2(float64(fxVocab - p))
		model[p] = bayes[p] + a*(0.4+1.2*float64(p)/float64(n-1))
	}
	return &sessions.Eval{BitErrorPosition: a, BitErrorSample: 1.25*a + 0.02, KLBits: 0.6 * a, TVD: 0.15 * a,
		Accuracy: 1 - a/4, ModelEntropy: model, BayesEntropy: bayes, Ablated: ablated}
}

// fxProbeN is the number of probe sequences of the synthetic snapshots.
const fxProbeN = 256

// fxSnapshot is the snapshot at step s: attention entropy near uniform at first, then early
// layers stay broad while later ones focus; and every fxGeoEvery steps the geometry as the
// lab's probe takes it: evidence mass rising; key orthogonality falling
// below the random baseline (most in layer 0); a value manifold whose PC1 lines up with the
// posterior entropy as training goes on; the frame history (the attention pattern settles
// fast while bit error keeps falling); and an ablation table in which L1H2 costs most.
func fxSnapshot(s int) *sessions.Snapshot {
	ae := make([][]float64, fxLayers)
	mass := make([][]float64, fxLayers)
	ko := make([][]float64, fxLayers)
	for l := range ae {
		ae[l] = make([]float64, fxHeads)
		mass[l] = make([]float64, fxHeads)
		ko[l] = make([]float64, fxHeads)
		for h := range ae[l] {
			target := 3.6 - 0.9*float64(l) - 0.25*float64(h)
			ae[l][h] = target + (4.3-target)*math.Exp(-float64(s)/150) + 0.03*math.Sin(float64(s+7*l+3*h))
			mass[l][h] = fxRound(0.2+(0.55+0.08*float64(l)-0.03*float64(h))*(1-math.Exp(-float64(s)/120)), 4)
			kt := 0.058 + 0.004*float64(l) + 0.002*float64(h)
			if l == 0 {
				kt = 0.05 + 0.0015*float64(h)
			}
			ko[l][h] = fxRound(kt+(0.081-kt)*math.Exp(-float64(s)/200)+0.0008*math.Sin(float64(s+l+2*h)), 4)
		}
	}
	if s%fxGeoEvery != 0 {
		return &sessions.Snapshot{AttentionEntropy: ae}
	}
	m := fxManifold(s)
	snap := &sessions.Snapshot{
		AttentionEntropy: ae, AttentionMass: mass,
		KeyOrthogonality: ko, KeyOrthogonalityRandom: 0.082,
		QKAlignment: fxQK(s), QKPositions: fxQKPositions(),
		Manifold: m, Frame: fxFrame(s), Ablation: fxAblation(s), ProbeN: fxProbeN, JLens: fxJLens(s),
	}
	fxDeriveAblation(snap, fxLayers, fxHeads)
	withFidelity(snap, s)
	return snap
}

// fxDeriveAblation fills the snapshot's derived ablation fields from its table as the lab
// does: the head table, the costliest unit and the costliest head (diagnostics.HeadTable
// and Worst).
func fxDeriveAblation(snap *sessions.Snapshot, layers, heads int) {
	all := make([]diagnostics.Effect, len(snap.Ablation))
	var headEffects []diagnostics.Effect
	for i, e := range snap.Ablation {
		all[i] = diagnostics.Effect{Unit: e.Unit, Layer: e.Layer, Head: e.Head, DeltaBits: e.DeltaBits, DeltaKL: e.DeltaKL}
		if e.Unit == diagnostics.UnitHead {
			headEffects = append(headEffects, all[i])
		}
	}
	table := diagnostics.HeadTable(all, layers, heads)
	snap.HeadDelta = make([][]sessions.Num, len(table))
	for l, row := range table {
		snap.HeadDelta[l] = make([]sessions.Num, len(row))
		for h, v := range row {
			snap.HeadDelta[l][h] = sessions.Num(v)
		}
	}
	effect := func(e diagnostics.Effect, ok bool) *diagnostics.Effect {
		if !ok {
			return nil
		}
		return &diagnostics.Effect{Unit: e.Unit, Layer: e.Layer, Head: e.Head, DeltaBits: e.DeltaBits, DeltaKL: e.DeltaKL}
	}
	snap.Costliest = effect(diagnostics.Worst(all))
	snap.CostliestHead = effect(diagnostics.Worst(headEffects))
}

// fxRound rounds v to dec decimals (short JSON).
func fxRound(v float64, dec int) float64 {
	p := math.Pow(10, float64(dec))
	return math.Round(v*p) / p
}

// fxNoise is a deterministic pseudo-random number in [-1, 1).
func fxNoise(i int) float64 {
	x := math.Sin(float64(i)*12.9898+78.233) * 43758.5453
	return 2*(x-math.Floor(x)) - 1
}

// fxQKPositions are the scored positions of the bijection probe: the value slots 1, 3, ….
func fxQKPositions() []int {
	pos := make([]int, fxVocab-1)
	for p := range pos {
		pos[p] = 2*p + 1
	}
	return pos
}

// fxQK is the query-key alignment map per layer: P scored positions × T = 2(V−1) key
// positions, null after the query; the keys of revealed values align more with training,
// more so in later layers.
func fxQK(s int) [][]sessions.Num {
	pos := fxQKPositions()
	t := 2 * (fxVocab - 1)
	prog := 1 - math.Exp(-float64(s)/150)
	out := make([][]sessions.Num, fxLayers)
	for l := range out {
		m := make([]sessions.Num, len(pos)*t)
		for r, q := range pos {
			for c := range t {
				v := math.NaN()
				if c <= q {
					align := 0.05 + 0.7*prog*float64(l+1)/fxLayers
					if c%2 == 0 { // a key token: less aligned
						align *= 0.3
					}
					v = fxRound(align+0.05*fxNoise(s*7919+l*1000+r*50+c), 2)
				}
				m[r*t+c] = sessions.Num(v)
			}
		}
		out[l] = m
	}
	return out
}

// fxManifold is the value manifold at step s: 8 probe sequences × 19 positions, each with
// the exact posterior entropy log2(V−p); PC1 follows the entropy more closely as training
// goes on, PC2 bends with it, PC3 is noise.
func fxManifold(s int) *sessions.Manifold {
	prog := 1 - math.Exp(-float64(s)/150)
	const seqs = 8
	n := fxVocab - 1
	var pts [][]float64
	var ent []float64
	hMean := 0.0
	for p := range n {
		hMean += math.Log2(float64(fxVocab-p)) / float64(n)
	}
	for q := range seqs {
		for p := range n {
			h := math.Log2(float64(fxVocab - p))
			i := s*1000 + q*100 + p
			x := -2.5*prog*(h-hMean) + (1.6*(1-prog)+0.7)*fxNoise(i)
			y := 0.6*prog*(h-hMean)*(h-hMean) - 0.4 + 0.7*fxNoise(i+17)
			z := 0.45 * fxNoise(i+31)
			pts = append(pts, []float64{fxRound(x, 3), fxRound(y, 3), fxRound(z, 3)})
			ent = append(ent, fxRound(h, 4))
		}
	}
	pc1 := make([]float64, len(pts))
	for i, pt := range pts {
		pc1[i] = pt[0]
	}
	return &sessions.Manifold{
		Share:    []float64{fxRound(0.3+0.35*prog, 4), fxRound(0.18-0.05*prog, 4), fxRound(0.09-0.03*prog, 4)},
		Pearson:  sessions.Num(fxRound(pearson(pc1, ent), 4)),
		Spearman: sessions.Num(fxRound(pearson(ranks(pc1), ranks(ent)), 4)),
		Points:   pts, Entropy: ent,
	}
}

// pearson is the correlation of xs and ys (NaN when undefined).
func pearson(xs, ys []float64) float64 {
	n := float64(len(xs))
	var mx, my float64
	for i := range xs {
		mx, my = mx+xs[i]/n, my+ys[i]/n
	}
	var sxy, sxx, syy float64
	for i := range xs {
		dx, dy := xs[i]-mx, ys[i]-my
		sxy, sxx, syy = sxy+dx*dy, sxx+dx*dx, syy+dy*dy
	}
	return sxy / math.Sqrt(sxx*syy)
}

// ranks are the ranks of xs, ties sharing their mean rank.
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	out := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			out[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return out
}

// fxFrame is the frame history up to step s: one point per snapshot so far. Layer l's
// attention pattern moves as exp(−step/(30+15l)), so its distance to the latest pattern
// vanishes early, while bit error falls as exp(−step/110) and the manifold keeps sharpening.
func fxFrame(s int) *sessions.Frame {
	pattern := func(step, l int) float64 { return math.Exp(-float64(step) / (30 + 15*float64(l))) }
	var f sessions.Frame
	for step := fxGeoEvery; step <= s; step += fxGeoEvery {
		drift := make([]sessions.Num, fxLayers)
		to := make([]sessions.Num, fxLayers)
		for l := range fxLayers {
			c := 0.6 - 0.1*float64(l)
			jitter := 0.004 * (1 + fxNoise(step*31+l))
			to[l] = sessions.Num(fxRound(c*math.Abs(pattern(step, l)-pattern(s, l))+jitter*float64(min(s-step, fxGeoEvery))/fxGeoEvery, 4))
			if step == fxGeoEvery {
				drift[l] = sessions.Num(math.NaN())
			} else {
				drift[l] = sessions.Num(fxRound(c*math.Abs(pattern(step, l)-pattern(step-fxGeoEvery, l))+jitter, 4))
			}
		}
		m := fxManifold(step)
		// The J-lens ratio (embedding output, after block 0) rises from chance and settles
		// early, as the authors' does.
		jl := []sessions.Num{sessions.Num(fxRound(1+1.4*(1-math.Exp(-float64(step)/60)), 3)),
			sessions.Num(fxRound(1+1.9*(1-math.Exp(-float64(step)/50)), 3))}
		a := fxBitError(step)
		f.Points = append(f.Points, sessions.FramePoint{Step: step, Drift: drift, ToLatest: to,
			BitError: fxRound(a, 4), BitErrorSample: fxRound(1.25*a+0.02, 4), PC1Abs: sessions.Num(math.Abs(float64(m.Spearman))),
			PC1Share: sessions.Num(m.Share[0]), JLens: jl})
	}
	f.Settle = fxSettle(f.Points, 0.1)
	return &f
}

// fxJLens is the J-lens record of the snapshot at step s: the quick width's null (20/64:
// ceiling 3.2, θ ≈ 1.51) and the ratios of the frame history's newest point; no bases.
func fxJLens(s int) *sessions.JLens {
	pts := fxFrame(s).Points
	last := pts[len(pts)-1].JLens
	null := 20.0 / 64
	return &sessions.JLens{Statistic: sessions.JLensStatistic, Sites: []int{-1, 0}, Positions: []int{0, 2, 4}, Width: 64, Rank: 8, FrameRank: 20,
		Seqs: 32, Null: sessions.Num(null), Overlap: []sessions.Num{last[0] * sessions.Num(null), last[1] * sessions.Num(null)}}
}

// fxSettle is when the frame (the mean over layers of ToLatest), bit error (a) on its log2
// scale, and 1 − |ρ| settled within band, as the lab
// records it (diagnostics.SettleStep; −1: not settled).
func fxSettle(pts []sessions.FramePoint, band float64) *sessions.Settle {
	steps := make([]int, len(pts))
	frame, bits, rho := make([]float64, len(pts)), make([]float64, len(pts)), make([]float64, len(pts))
	for i, pt := range pts {
		steps[i] = pt.Step
		sum, n := 0.0, 0
		for _, v := range pt.ToLatest {
			if f := float64(v); !math.IsNaN(f) && !math.IsInf(f, 0) {
				sum, n = sum+f, n+1
			}
		}
		frame[i] = math.NaN()
		if n > 0 {
			frame[i] = sum / float64(n)
		}
		bits[i] = derived.PrecisionScale(pt.BitError)
		rho[i] = 1 - float64(pt.PC1Abs) // NaN stays NaN
	}
	at := func(series []float64) int {
		if step, ok := diagnostics.SettleStep(steps, series, band); ok {
			return step
		}
		return -1
	}
	return &sessions.Settle{Band: band, Frame: at(frame), BitError: at(bits), Rho: at(rho)}
}

// fxAblation is the ablation table at step s: every head, and each layer's attention and
// MLP, with effects growing as the model comes to rely on them; L1H2 costs most.
func fxAblation(s int) []diagnostics.Effect {
	prog := 1 - math.Exp(-float64(s)/150)
	var out []diagnostics.Effect
	for l := range fxLayers {
		for h := range fxHeads {
			base := 0.01 + 0.025*float64((l*7+h*3)%5)
			if l == 1 && h == 2 {
				base = 0.45
			}
			d := fxRound(prog*base+0.004*fxNoise(s+l*10+h), 4)
			out = append(out, diagnostics.Effect{Unit: "head", Layer: l, Head: h, DeltaBits: d, DeltaKL: fxRound(0.6*d, 4)})
		}
		attn := fxRound(prog*(0.12+0.1*float64(l)), 4)
		mlp := fxRound(prog*(0.35-0.06*float64(l)), 4)
		out = append(out,
			diagnostics.Effect{Unit: "attn", Layer: l, Head: -1, DeltaBits: attn, DeltaKL: fxRound(0.6*attn, 4)},
			diagnostics.Effect{Unit: "mlp", Layer: l, Head: -1, DeltaBits: mlp, DeltaKL: fxRound(0.6*mlp, 4)})
	}
	return out
}

// writeFixture records the synthetic run with sessions.Create and a Writer: a record per
// step, an evaluation and snapshot every fxEvery steps (with geometry every fxGeoEvery), a
// pause and resume at fxPause, a head switched off with an ablated evaluation at fxAblateAt
// and a final done record.
func writeFixture(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	w, err := sessions.Create(path, fxMeta(), sessions.WriterOptions{})
	if err != nil {
		return err
	}
	wall := 0.0
	rec := func(s int) sessions.Record {
		sps := 20 + 2*math.Sin(float64(s)/17)
		wall += 1 / sps
		return sessions.Record{Step: s, WallS: wall, Loss: 0.9 + 2.1*math.Exp(-float64(s)/120) + 0.04*math.Sin(float64(s)*1.3),
			LR: 1e-3 * min(1, float64(s)/50), GradNorm: 0.5 + 1.5*math.Exp(-float64(s)/100), StepsPerS: sps,
			State: sessions.Training, GPUShare: 0.8}
	}
	for s := 1; s <= fxSteps; s++ {
		r := rec(s)
		if s%fxEvery == 0 {
			r.Eval, r.Snapshot = fxEval(s), fxSnapshot(s)
		}
		w.Record(r)
		switch s {
		case fxPause:
			w.Event(sessions.Event{Step: s, WallS: wall, Kind: sessions.EventPause})
			p := r
			p.Eval, p.Snapshot, p.State, p.Message, p.StepsPerS = nil, nil, sessions.Paused, "paused by operator", 0
			w.Record(p)
			wall += 3
			w.Event(sessions.Event{Step: s, WallS: wall, Kind: sessions.EventResume})
		case fxAblateAt:
			hd := sessions.Head{Layer: 1, Head: 2}
			w.Event(sessions.Event{Step: s, WallS: wall, Kind: sessions.EventHead, Layer: hd.Layer, Head: hd.Head, On: false})
			a := r
			a.Snapshot, a.Eval = nil, fxEval(s, hd)
			w.Record(a)
		case fxSteps:
			d := r
			d.Eval, d.Snapshot, d.State, d.Message = nil, nil, sessions.Done, "600 steps"
			w.Record(d)
		}
	}
	return w.Close()
}

// openFixture opens the recorded session read-only, as `windtunnel replay` does.
func openFixture(t testing.TB) *sessions.Reader {
	t.Helper()
	r, err := sessions.Open(fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// liveFixture copies the fixture's records and events up to step upTo into a live feed
// whose commands go to send (nil: recorded in the returned slice).
func liveFixture(t testing.TB, upTo int) (*sessions.Live, *[]sessions.Event) {
	t.Helper()
	r := openFixture(t)
	sent := new([]sessions.Event)
	l := sessions.NewLive(r.Meta(), sessions.ControlFunc(func(e sessions.Event) error {
		*sent = append(*sent, e)
		return nil
	}), nil)
	first, _, ok := r.Span()
	if !ok {
		t.Fatal("empty fixture")
	}
	recs, err := r.Records(first, upTo)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		l.Record(rec)
	}
	evs, err := r.Events(upTo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		l.Event(e)
	}
	return l, sent
}
