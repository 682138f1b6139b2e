package sessiontest

import (
	"math"
	"os"
	"time"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
)

// The shape of the dashboard's synthetic run (WriteDashboard).
const (
	DashSteps    = 600
	DashEvery    = 25 // an evaluation and an attention snapshot
	DashGeoEvery = 50 // a geometry snapshot (the lab's --probe-every)
	DashLayers   = 4
	DashHeads    = 4
	DashVocab    = 20 // bijection size: 19 scored positions
	DashPause    = 250
	DashAblateAt = 400
)

// DashMeta describes the synthetic run.
func DashMeta() sessions.Meta {
	return sessions.Meta{
		Task: "bijection", Model: "transformer", Params: 201344, Layers: DashLayers, Heads: DashHeads, Steps: DashSteps,
		Device: "cuda", DeviceName: "NVIDIA H100 80GB HBM3", Driver: "12.4", Version: "fixture", Host: "fixture-host",
		Created: time.Date(2026, 1, 15, 9, 30, 0, 0, time.UTC),
		Config:  []byte(`{"task":"bijection","vocab":20,"model":"transformer","layers":4,"heads":4,"d_model":64,"steps":600,"eval_every":50}`),
	}
}

// dashBitError is bit error (a) at step s: about 2 bits at the first evaluation, 0.05 at the end.
func dashBitError(s int) float64 { return 0.05 + 1.95*math.Exp(-float64(s-50)/110) }

// DashEval is the evaluation at step s, with ablated heads when given.
func DashEval(s int, ablated ...sessions.Head) *sessions.Eval {
	a := dashBitError(s)
	if len(ablated) > 0 {
		a += 0.35
	}
	n := DashVocab - 1
	model, bayes := make([]float64, n), make([]float64, n)
	for p := range n {
		bayes[p] = math.Log2(float64(DashVocab - p))
		model[p] = bayes[p] + a*(0.4+1.2*float64(p)/float64(n-1))
	}
	return &sessions.Eval{BitErrorPosition: a, BitErrorSample: 1.25*a + 0.02, KLBits: 0.6 * a, TVD: 0.15 * a,
		Accuracy: 1 - a/4, ModelEntropy: model, BayesEntropy: bayes, Ablated: ablated}
}

// DashProbeN is the number of probe sequences of the synthetic snapshots.
const DashProbeN = 256

// DashSnapshot is the snapshot at step s: attention entropy near uniform at first, then early
// layers stay broad while later ones focus; and every DashGeoEvery steps the geometry as the
// lab's probe takes it: evidence mass rising; key orthogonality falling
// below the random baseline (most in layer 0); a value manifold whose PC1 lines up with the
// posterior entropy as training goes on; the frame history (the attention pattern settles
// fast while bit error keeps falling); and an ablation table in which L1H2 costs most.
func DashSnapshot(s int) *sessions.Snapshot {
	ae := make([][]float64, DashLayers)
	mass := make([][]float64, DashLayers)
	ko := make([][]float64, DashLayers)
	for l := range ae {
		ae[l] = make([]float64, DashHeads)
		mass[l] = make([]float64, DashHeads)
		ko[l] = make([]float64, DashHeads)
		for h := range ae[l] {
			target := 3.6 - 0.9*float64(l) - 0.25*float64(h)
			ae[l][h] = target + (4.3-target)*math.Exp(-float64(s)/150) + 0.03*math.Sin(float64(s+7*l+3*h))
			mass[l][h] = Round(0.2+(0.55+0.08*float64(l)-0.03*float64(h))*(1-math.Exp(-float64(s)/120)), 4)
			kt := 0.058 + 0.004*float64(l) + 0.002*float64(h)
			if l == 0 {
				kt = 0.05 + 0.0015*float64(h)
			}
			ko[l][h] = Round(kt+(0.081-kt)*math.Exp(-float64(s)/200)+0.0008*math.Sin(float64(s+l+2*h)), 4)
		}
	}
	if s%DashGeoEvery != 0 {
		return &sessions.Snapshot{AttentionEntropy: ae}
	}
	m := manifold(s)
	snap := &sessions.Snapshot{
		AttentionEntropy: ae, AttentionMass: mass,
		KeyOrthogonality: ko, KeyOrthogonalityRandom: 0.082,
		QKAlignment: qkAlignment(s), QKPositions: qkPositions(),
		Manifold: m, Frame: frame(s), Ablation: ablation(s), ProbeN: DashProbeN, JLens: jlens(s),
	}
	deriveAblation(snap, DashLayers, DashHeads)
	WithFidelity(snap, s)
	return snap
}

// deriveAblation fills the snapshot's derived ablation fields from its table as the lab
// does: the head table, the costliest unit and the costliest head (diagnostics.HeadTable
// and Worst).
func deriveAblation(snap *sessions.Snapshot, layers, heads int) {
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

// WriteDashboard records the synthetic run with sessions.Create and a Writer: a record per
// step, an evaluation and snapshot every DashEvery steps (with geometry every DashGeoEvery), a
// pause and resume at DashPause, a head switched off with an ablated evaluation at DashAblateAt
// and a final done record.
func WriteDashboard(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	w, err := sessions.Create(path, DashMeta(), sessions.WriterOptions{})
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
	for s := 1; s <= DashSteps; s++ {
		r := rec(s)
		if s%DashEvery == 0 {
			r.Eval, r.Snapshot = DashEval(s), DashSnapshot(s)
		}
		w.Record(r)
		switch s {
		case DashPause:
			w.Event(sessions.Event{Step: s, WallS: wall, Kind: sessions.EventPause})
			p := r
			p.Eval, p.Snapshot, p.State, p.Message, p.StepsPerS = nil, nil, sessions.Paused, "paused by operator", 0
			w.Record(p)
			wall += 3
			w.Event(sessions.Event{Step: s, WallS: wall, Kind: sessions.EventResume})
		case DashAblateAt:
			hd := sessions.Head{Layer: 1, Head: 2}
			w.Event(sessions.Event{Step: s, WallS: wall, Kind: sessions.EventHead, Layer: hd.Layer, Head: hd.Head, On: false})
			a := r
			a.Snapshot, a.Eval = nil, DashEval(s, hd)
			w.Record(a)
		case DashSteps:
			d := r
			d.Eval, d.Snapshot, d.State, d.Message = nil, nil, sessions.Done, "600 steps"
			w.Record(d)
		}
	}
	return w.Close()
}
