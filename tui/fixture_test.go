package tui

import (
	"flag"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"windtunnel/sessions"
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
	fxEvery    = 50
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
func fxBitError(s int) float64 { return 0.05 + 1.95*math.Exp(-float64(s-fxEvery)/110) }

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

// fxSnapshot is the attention entropy at step s: near uniform at first, then early layers
// stay broad while later ones focus.
func fxSnapshot(s int) *sessions.Snapshot {
	ae := make([][]float64, fxLayers)
	for l := range ae {
		ae[l] = make([]float64, fxHeads)
		for h := range ae[l] {
			target := 3.6 - 0.9*float64(l) - 0.25*float64(h)
			ae[l][h] = target + (4.3-target)*math.Exp(-float64(s)/150) + 0.03*math.Sin(float64(s+7*l+3*h))
		}
	}
	return &sessions.Snapshot{AttentionEntropy: ae}
}

// writeFixture records the synthetic run with sessions.Create and a Writer: a record per
// step, an evaluation and snapshot every fxEvery steps, a pause and resume at fxPause, a
// head switched off with an ablated evaluation at fxAblateAt and a final done record.
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
	l := sessions.NewLive(r.Meta(), func(e sessions.Event) error {
		*sent = append(*sent, e)
		return nil
	}, nil)
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
