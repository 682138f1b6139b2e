package lab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"
	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"

	"windtunnel/sessions"
	"windtunnel/tunnels"
)

// tiny is a small bijection configuration that trains in seconds.
func tiny(model string) runconfig.Config {
	return runconfig.Config{
		Task: "bijection", Tunnel: tunnels.Config{V: 8}, Model: model,
		Transformer: arch.TransformerConfig{Layers: 2, Heads: 2, Width: 32},
		Steps:       2500, Batch: 32, LR: 3e-3, Warmup: 40, WeightDecay: 0.01, Clip: 1,
		ValueLR: 1, QKLR: 1, EvalEvery: 100, ProbeSize: 256, Seed: 1, BLAS: "auto",
	}
}

// collector is a Sink that keeps everything a run produces; onRecord, if set, sees each
// record as it is emitted (on the trainer goroutine).
type collector struct {
	records     []sessions.Record
	events      []sessions.Event
	checkpoints []*sessions.Checkpoint
	onRecord    func(sessions.Record)
}

func (c *collector) Record(r sessions.Record) {
	c.records = append(c.records, r)
	if c.onRecord != nil {
		c.onRecord(r)
	}
}
func (c *collector) Event(e sessions.Event)            { c.events = append(c.events, e) }
func (c *collector) Checkpoint(k *sessions.Checkpoint) { c.checkpoints = append(c.checkpoints, k) }

func train(t *testing.T, c runconfig.Config) Result {
	t.Helper()
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// trainUntil trains c and stops it at the first evaluation at its cadence (not an ablated
// one) where reached says the claim under test holds; the schedule stays c.Steps long. It
// returns the result, whose Scores are the final evaluation of the stopped model, and the
// curve of that evaluation's number (what, formatted) by step for the log.
func trainUntil(t *testing.T, c runconfig.Config, reached func(*sessions.Eval) bool, what func(*sessions.Eval) float64) (Result, []string) {
	t.Helper()
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	var curve []string
	tr.Attach(&collector{onRecord: func(r sessions.Record) {
		if r.Eval == nil || len(r.Eval.Ablated) > 0 || r.State != sessions.Training {
			return
		}
		curve = append(curve, fmt.Sprintf("%d:%.3f", r.Step, what(r.Eval)))
		if reached(r.Eval) {
			if err := tr.Send(sessions.Event{Kind: sessions.EventStop}); err != nil {
				t.Errorf("stop at step %d: %v", r.Step, err)
			}
		}
	}})
	res, err := tr.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res, curve
}

// TestTinyTransformerBeatsMLP trains a tiny transformer on bijection V=8 to the Bayes
// optimum (bit error (a) ≤ 0.05) in under a minute — it stops at the first evaluation there
// (step 1,000 of its 2,500-step schedule: (a) 0.061 at 800, 0.052 at 900, 0.040 at 1,000,
// measured) — and the capacity-matched per-position MLP (Paper I's baseline: no context),
// which must stay ≥ 5× worse. Without context the MLP's best is the uniform guess over the V
// values (uniformBitError, 0.8144 bits), which it reaches within a few hundred steps
// (0.8143 after 300 steps, 0.8144 after 2,500, measured) and is held to (±0.01): the 300-step run
// is the MLP at its floor, not an undertrained one. (The prefix MLP, which sees the context,
// is compared by `windtunnel compare`; see docs/paper1.md.)
func TestTinyTransformerBeatsMLP(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny transformer to ≤ 0.05 bits (1,000 steps) and an MLP for 300 steps")
	}
	t.Parallel()
	start := time.Now()
	bitErr := func(e *sessions.Eval) float64 { return e.BitErrorPosition }
	tf, curve := trainUntil(t, tiny("transformer"), func(e *sessions.Eval) bool { return e.BitErrorPosition <= 0.05 }, bitErr)
	el := time.Since(start)
	mc := tiny("mlp")
	mc.Steps = 300
	mlp := train(t, mc)
	floor := uniformBitError(mc.Tunnel.V)
	t.Logf("transformer: bit error (a) %.4f (b) %.4f KL %.4f in %d steps, %v; (a) by step %v", tf.Scores.BitErrorPosition, tf.Scores.BitErrorSample, tf.Scores.KLBits, tf.Steps, el, curve)
	t.Logf("MLP:         bit error (a) %.4f (b) %.4f KL %.4f in %d steps; uniform guess (a) %.4f", mlp.Scores.BitErrorPosition, mlp.Scores.BitErrorSample, mlp.Scores.KLBits, mlp.Steps, floor)
	if tf.Scores.BitErrorPosition > 0.05 {
		t.Errorf("transformer bit error (a) %.4f > 0.05", tf.Scores.BitErrorPosition)
	}
	if el > time.Minute {
		t.Errorf("transformer took %v, want < 1 minute", el)
	}
	if math.Abs(mlp.Scores.BitErrorPosition-floor) > 0.01 {
		t.Errorf("MLP bit error (a) %.4f after %d steps, want its floor, the uniform guess's %.4f ± 0.01", mlp.Scores.BitErrorPosition, mc.Steps, floor)
	}
	if mlp.Scores.BitErrorPosition < 5*tf.Scores.BitErrorPosition {
		t.Errorf("MLP bit error (a) %.4f is not ≥ 5× the transformer's %.4f", mlp.Scores.BitErrorPosition, tf.Scores.BitErrorPosition)
	}
}

// TestDeterministic checks that the same seed gives the same loss curve.
func TestDeterministic(t *testing.T) {
	c := tiny("transformer")
	c.Steps, c.EvalEvery, c.Workers = 20, 10, 2
	a, b := lossCurve(t, c), lossCurve(t, c)
	if len(a) != c.Steps || len(b) != c.Steps {
		t.Fatalf("got %d and %d losses, want %d", len(a), len(b), c.Steps)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("step %d: loss %v vs %v", i+1, a[i], b[i])
		}
	}
}

// TestDivergenceStops checks that a NaN loss stops the run with a clear error and keeps the
// last record: a NaN planted in the embedding makes the first loss NaN.
func TestDivergenceStops(t *testing.T) {
	c := tiny("transformer")
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	tr.Model().Params()[0].Value.Data().([]float32)[0] = float32(math.NaN())
	var sink collector
	tr.Attach(&sink)
	_, err = tr.Run(context.Background())
	if !errors.Is(err, ErrDiverged) {
		t.Fatalf("Run error %v, want ErrDiverged", err)
	}
	if len(sink.records) == 0 {
		t.Fatal("no record")
	}
	if last := sink.records[len(sink.records)-1]; last.State != sessions.Failed || !contains(last.Message, "NaN") {
		t.Errorf("last record %+v, want state failed with a message naming NaN", last)
	}
}

// TestCommands checks pause, head masking and stop sent while the trainer runs, and that
// each event is recorded as sent, at the step it took effect.
func TestCommands(t *testing.T) {
	c := tiny("transformer")
	c.Steps = 100000
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var sawPaused bool
	var ablated *sessions.Eval
	send := func(e sessions.Event) {
		if err := tr.Send(e); err != nil {
			t.Errorf("Send(%+v): %v", e, err)
		}
	}
	sent := []sessions.Event{
		{Kind: sessions.EventHead, Layer: 1, Head: 0, On: false},
		{Kind: sessions.EventPause},
		{Kind: sessions.EventStop},
	}
	sink := &collector{onRecord: func(r sessions.Record) {
		if r.Eval != nil && len(r.Eval.Ablated) > 0 {
			ablated = r.Eval
		}
		switch {
		case r.Step == 5 && r.State == sessions.Training && r.Eval == nil: // not the ablated evaluation
			send(sent[0])
			send(sent[1])
		case r.State == sessions.Paused:
			sawPaused = true
			send(sent[2])
		}
	}}
	tr.Attach(sink)
	var o struct {
		res Result
		err error
	}
	o.res, o.err = tr.Run(ctx)
	if o.err != nil {
		t.Fatal(o.err)
	}
	if len(sink.events) != len(sent) {
		t.Fatalf("recorded events %+v, want %d", sink.events, len(sent))
	}
	for i, e := range sink.events {
		if e.Step != 5 || e.WallS <= 0 {
			t.Errorf("event %d took effect at step %d, %g s; want step 5", i, e.Step, e.WallS)
		}
		e.Step, e.WallS = 0, 0
		if e != sent[i] {
			t.Errorf("recorded event %+v, sent %+v", e, sent[i])
		}
	}
	if !sawPaused {
		t.Error("no paused record")
	}
	if o.res.Last.State != sessions.Stopped {
		t.Errorf("final state %q, want stopped", o.res.Last.State)
	}
	if o.res.Steps > 10 {
		t.Errorf("trained %d steps after pause", o.res.Steps)
	}
	if ablated == nil || len(ablated.Ablated) != 1 || ablated.Ablated[0] != (sessions.Head{Layer: 1, Head: 0}) {
		t.Errorf("ablated evaluation %+v, want one with layer 1 head 0 off", ablated)
	}
	if m := tr.Model().HeadMask(); m[1][0] != 1 || m[0][0] != 1 {
		t.Errorf("head mask %v after the run: training and the final evaluation use every head", m)
	}
}

func TestSchedule(t *testing.T) {
	s := Schedule{Peak: 1, Warmup: 10, Total: 100}
	for _, c := range []struct {
		step int
		want float64
	}{{0, 0.1}, {9, 0.5 * (1 + math.Cos(math.Pi*0.09))}, {50, 0.5}, {100, 0}} {
		if got := s.At(c.step); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("At(%d) = %v, want %v", c.step, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	good := tiny("transformer")
	for _, c := range []struct {
		name  string
		mod   func(*runconfig.Config)
		field string
	}{
		{"model", func(c *runconfig.Config) { c.Model = "rnn" }, "Model"},
		{"steps", func(c *runconfig.Config) { c.Steps = 0 }, "Steps"},
		{"batch", func(c *runconfig.Config) { c.Batch = -1 }, "Batch"},
		{"lr", func(c *runconfig.Config) { c.LR = math.NaN() }, "LR"},
		{"decay", func(c *runconfig.Config) { c.WeightDecay = 2 }, "WeightDecay"},
		{"qk", func(c *runconfig.Config) { c.QKLR = 0 }, "QKLR"},
		{"eval", func(c *runconfig.Config) { c.EvalEvery = 0 }, "EvalEvery"},
		{"target", func(c *runconfig.Config) { c.Target = "soft" }, "Target"},
		{"blas", func(c *runconfig.Config) { c.BLAS = "mkl" }, "BLAS"},
		{"optimizer", func(c *runconfig.Config) { c.Optimizer = "adam" }, "Optimizer"},
		{"heads", func(c *runconfig.Config) { c.Transformer.Heads = 3 }, "Transformer.Heads"},
		{"mlp input", func(c *runconfig.Config) { c.PrefixMLP.Input = "suffix" }, "PrefixMLP.Input"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := good
			c.mod(&bad)
			err := bad.Validate()
			var fe *arch.FieldError
			if !errors.As(err, &fe) || fe.Field != c.field || !contains(err.Error(), c.field) {
				t.Errorf("Validate() = %v, want a field error on %s", err, c.field)
			}
		})
	}
	if err := good.Validate(); err != nil {
		t.Error(err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestFloat32MatchesFloat64 checks that the fast float32 kernels (rational tanh, polynomial
// exp, OpenBLAS sgemm) follow the exact float64 computation: the same seed gives the same
// loss curve over the first 100 steps within float32 tolerance.
func TestFloat32MatchesFloat64(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 100 steps twice")
	}
	t.Parallel()
	curve := func(prec string) []float64 {
		c := tiny("transformer")
		c.Steps, c.EvalEvery, c.Precision = 100, 100, prec
		return lossCurve(t, c)
	}
	f32, f64 := curve("float32"), curve("float64")
	worst := 0.0
	for i := range f64 {
		d := math.Abs(f32[i]-f64[i]) / f64[i]
		worst = math.Max(worst, d)
		if d > 2e-3 {
			t.Errorf("step %d: float32 loss %.6f, float64 %.6f", i+1, f32[i], f64[i])
		}
	}
	t.Logf("worst relative loss difference over %d steps: %.2g (first %.6f, last %.6f)", len(f64), worst, f64[0], f64[len(f64)-1])
}

// lossCurve trains c and returns the training loss of every step.
func lossCurve(t *testing.T, c runconfig.Config) []float64 {
	t.Helper()
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	var losses []float64
	tr.Attach(&collector{onRecord: func(r sessions.Record) {
		if r.State == sessions.Training {
			losses = append(losses, r.Loss)
		}
	}})
	if _, err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return losses
}
