package lab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync/atomic"
	"time"

	"gorgonia.org/tensor"

	"windtunnel/backends/cuda"
	"windtunnel/backends/gemm"
	"windtunnel/diagnostics"
	"windtunnel/models"
	"windtunnel/sessions"
	"windtunnel/tunnels"
)

// CommandKind names what a Command asks of the trainer.
type CommandKind int

// The commands the trainer obeys between steps.
const (
	Pause CommandKind = iota
	Resume
	Stop
	SetHead
	RestoreHeads
)

// Command is an operator action; Layer, Head and On apply to SetHead. Head switches ablate
// heads in evaluations only (training always uses the whole model): after each switch, and
// at every evaluation while any head is off, the trainer also scores the ablated model and
// records it as an Eval whose Ablated lists the heads.
type Command struct {
	Kind        CommandKind
	Layer, Head int
	On          bool
}

// ErrDiverged is returned (wrapped) when the loss becomes NaN or infinite.
var ErrDiverged = errors.New("loss is not finite")

// Trainer runs one training run on its own goroutine.
type Trainer struct {
	cfg     Config
	tunnel  tunnels.Tunnel
	model   models.Model
	mode    tunnels.TargetMode
	backend gemm.Backend
	opt     *AdamW
	sched   Schedule
	probe   []*tunnels.Batch
	q       []float64
	post    []float64
	records chan sessions.Record
	cmds    chan Command
	drops   atomic.Int64
	step    int
	sinks   []Sink
	wall0   float64  // wall time already spent before a resume
	off     [][]bool // heads switched off by the operator
	geo     geometryState
	gpu     *cuda.Backend
	device  Device
}

// CommandOf turns a recorded operator event into a trainer command.
func CommandOf(e sessions.Event) (Command, error) {
	switch e.Kind {
	case sessions.EventPause:
		return Command{Kind: Pause}, nil
	case sessions.EventResume:
		return Command{Kind: Resume}, nil
	case sessions.EventStop:
		return Command{Kind: Stop}, nil
	case sessions.EventHead:
		return Command{Kind: SetHead, Layer: e.Layer, Head: e.Head, On: e.On}, nil
	case sessions.EventRestore:
		return Command{Kind: RestoreHeads}, nil
	}
	return Command{}, fmt.Errorf("lab: unknown command %q", e.Kind)
}

func (c Command) event(step int, wall float64) sessions.Event {
	e := sessions.Event{Step: step, WallS: wall, Layer: c.Layer, Head: c.Head, On: c.On}
	switch c.Kind {
	case Pause:
		e.Kind = sessions.EventPause
	case Resume:
		e.Kind = sessions.EventResume
	case Stop:
		e.Kind = sessions.EventStop
	case SetHead:
		e.Kind = sessions.EventHead
	case RestoreHeads:
		e.Kind = sessions.EventRestore
	}
	return e
}

// Result is the outcome of a run: the last evaluation and its inputs.
type Result struct {
	Steps  int
	WallS  float64
	Scores diagnostics.Scores
	// Q is the model's class distributions on the probe set, N×P×C.
	Q []float64
	// Last is the final record sent.
	Last sessions.Record
	// StepMs is the wall time of every training step (batch, forward, backward, update) in ms.
	StepMs []float64
	// EvalS is the wall time spent scoring the probe set (evaluations and ablated
	// evaluations), GeometryS the time spent in geometry snapshots (probe readouts,
	// diagnostics and the ablation table).
	EvalS, GeometryS float64
}

// MedianStepMs is the median training-step time, skipping the first three (warm-up) steps
// when there are more.
func (r Result) MedianStepMs() float64 {
	xs := r.StepMs
	if len(xs) > 3 {
		xs = xs[3:]
	}
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// New builds the tunnel, model, optimiser and probe set of a configuration.
func New(cfg Config) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tn, err := tunnels.New(cfg.Task, cfg.Tunnel)
	if err != nil {
		return nil, err
	}
	mode := tn.DefaultTarget()
	if cfg.Target != "" {
		mode, _ = tunnels.ParseTargetMode(cfg.Target)
	}
	be, err := gemm.Open(cfg.BLAS)
	if err != nil {
		return nil, fmt.Errorf("lab: %w", err)
	}
	workers := cfg.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	be = gemm.Parallel(be, workers)
	be, gpu, dev, err := openDevice(cfg, be, workers)
	if err != nil {
		return nil, err
	}
	opts := models.Options{Dtype: tensor.Float32, Backend: be, Workers: workers, Seed: cfg.Seed}
	if cfg.Precision == "float64" {
		opts.Dtype = tensor.Float64
	}
	var m models.Model
	switch cfg.Model {
	case "transformer":
		m, err = models.NewTransformer(cfg.Transformer, tn, opts)
	case "mlp":
		mc := cfg.MLP
		if mc.Width == 0 {
			mc = models.MatchMLP(models.TransformerParams(cfg.Transformer, tn, 0), tn, 0)
			mc.Input = cfg.MLP.Input
		}
		m, err = models.NewMLP(mc, tn, opts)
	case "lstm":
		lc := cfg.LSTM
		if lc.Width == 0 {
			lc = models.MatchLSTM(models.TransformerParams(cfg.Transformer, tn, 0), tn, 0)
		}
		m, err = models.NewLSTM(lc, tn, opts)
	case "mamba":
		mc := cfg.Mamba
		if mc.Width == 0 {
			mc = models.MatchMamba(models.TransformerParams(cfg.Transformer, tn, 0), tn, 0)
		}
		m, err = models.NewMamba(mc, tn, opts)
	}
	if err != nil {
		return nil, err
	}
	t := &Trainer{
		cfg: cfg, tunnel: tn, model: m, mode: mode, backend: be, gpu: gpu, device: dev,
		opt:     NewAdamW(cfg.WeightDecay, cfg.Clip),
		sched:   Schedule{Peak: cfg.LR, Warmup: cfg.Warmup, Total: cfg.Steps},
		records: make(chan sessions.Record, 256),
		cmds:    make(chan Command, 64),
	}
	if l, h := m.Heads(); h > 0 {
		t.off = make([][]bool, l)
		for i := range t.off {
			t.off[i] = make([]bool, h)
		}
	}
	t.residentWeights()
	t.opt.GroupLR = map[models.Group]float64{models.GroupValue: cfg.ValueLR, models.GroupQK: cfg.QKLR}
	const chunk = 256
	stream := tunnels.ProbeStream(cfg.Seed)
	for first := 0; first < cfg.ProbeSize; first += chunk {
		b := tunnels.NewBatch(tn, min(chunk, cfg.ProbeSize-first))
		b.Fill(tn, stream, uint64(first))
		t.probe = append(t.probe, b)
		t.post = append(t.post, b.Posterior...)
	}
	t.q = make([]float64, len(t.post))
	return t, nil
}

// Model returns the model being trained (for the owner of the trainer goroutine only).
func (t *Trainer) Model() models.Model { return t.model }

// Tunnel returns the task.
func (t *Trainer) Tunnel() tunnels.Tunnel { return t.tunnel }

// Config returns the run's configuration.
func (t *Trainer) Config() Config { return t.cfg }

// BLAS names the matrix-multiply backend in use.
func (t *Trainer) BLAS() string { return t.backend.Name() }

// Records is the stream of records; a slow reader loses records (counted by Drops) rather
// than stalling training.
func (t *Trainer) Records() <-chan sessions.Record { return t.records }

// Drops is the number of records not delivered because the reader was behind.
func (t *Trainer) Drops() int64 { return t.drops.Load() }

// Send queues a command; it reports false if the queue is full.
func (t *Trainer) Send(c Command) bool {
	select {
	case t.cmds <- c:
		return true
	default:
		return false
	}
}

func (t *Trainer) emit(r sessions.Record) {
	for _, s := range t.sinks {
		s.Record(r)
	}
	select {
	case t.records <- r:
	default:
		t.drops.Add(1)
	}
}

// Evaluate scores the whole model (no head ablated) on the probe set.
func (t *Trainer) Evaluate() (diagnostics.Scores, error) {
	s, _, err := t.evaluate(false, false)
	return s, err
}

// evaluate scores the model on the probe set with the operator's ablations applied or not,
// and reads a snapshot of its geometry when snap is set.
func (t *Trainer) evaluate(ablated, snap bool) (diagnostics.Scores, *sessions.Snapshot, error) {
	if ablated {
		if err := t.applyMask(true); err != nil {
			return diagnostics.Scores{}, nil, err
		}
		defer t.applyMask(false)
	}
	layers, heads := t.model.Heads()
	var acc [][]float64
	if snap && heads > 0 {
		acc = make([][]float64, layers)
		for l := range acc {
			acc[l] = make([]float64, heads)
		}
	}
	off := 0
	for _, b := range t.probe {
		n := b.N * b.P * b.C
		if err := t.model.Predict(t.tunnel, b, t.q[off:off+n]); err != nil {
			return diagnostics.Scores{}, nil, err
		}
		if acc != nil {
			if err := t.model.AttentionEntropy(t.tunnel, b, acc); err != nil {
				return diagnostics.Scores{}, nil, err
			}
		}
		off += n
	}
	s, err := diagnostics.Score(t.q, t.post, t.cfg.ProbeSize, len(t.tunnel.Positions()), t.tunnel.Classes())
	var sn *sessions.Snapshot
	if snap {
		sn = &sessions.Snapshot{}
		for l := range acc {
			for h := range acc[l] {
				acc[l][h] /= float64(t.cfg.ProbeSize)
			}
		}
		sn.AttentionEntropy = acc
	}
	return s, sn, err
}

// ablatedHeads lists the heads the operator has switched off.
func (t *Trainer) ablatedHeads() []sessions.Head {
	var hs []sessions.Head
	for l, row := range t.off {
		for h, off := range row {
			if off {
				hs = append(hs, sessions.Head{Layer: l, Head: h})
			}
		}
	}
	return hs
}

// applyMask switches the operator's ablated heads off (on = true) or every head back on.
func (t *Trainer) applyMask(on bool) error {
	for l, row := range t.off {
		for h, off := range row {
			if err := t.model.SetHeadMask(l, h, !(on && off)); err != nil {
				return err
			}
		}
	}
	return nil
}

// ablatedRecord scores the ablated model and returns the record to emit (nil when no head
// is off).
func (t *Trainer) ablatedRecord(base sessions.Record) (*sessions.Record, error) {
	hs := t.ablatedHeads()
	if len(hs) == 0 {
		return nil, nil
	}
	s, _, err := t.evaluate(true, false)
	if err != nil {
		return nil, err
	}
	r := base
	r.Snapshot = nil
	r.Eval = evalRecord(s)
	r.Eval.Ablated = hs
	return &r, nil
}

// ProbeBatches are the held-out probe sequences, in order.
func (t *Trainer) ProbeBatches() []*tunnels.Batch { return t.probe }

func evalRecord(s diagnostics.Scores) *sessions.Eval {
	return &sessions.Eval{
		BitErrorPosition: s.BitErrorPosition, BitErrorSample: s.BitErrorSample,
		KLBits: s.KLBits, TVD: s.TVD, Accuracy: s.Accuracy,
		ModelEntropy: append([]float64(nil), s.PerPosition.ModelEntropy...),
		BayesEntropy: append([]float64(nil), s.PerPosition.BayesEntropy...),
	}
}

// handle applies one command; it reports whether the run must stop.
func (t *Trainer) handle(c Command, paused *bool) (stop bool, err error) {
	switch c.Kind {
	case Pause:
		*paused = true
	case Resume:
		*paused = false
	case Stop:
		return true, nil
	case SetHead:
		if c.Layer < 0 || c.Layer >= len(t.off) || c.Head < 0 || c.Head >= len(t.off[c.Layer]) {
			return false, fmt.Errorf("no head %d.%d in this model", c.Layer, c.Head)
		}
		t.off[c.Layer][c.Head] = !c.On
	case RestoreHeads:
		for _, row := range t.off {
			for h := range row {
				row[h] = false
			}
		}
	}
	return false, nil
}

// Run trains until the step budget is spent, a Stop command arrives or ctx is done, and
// returns the final evaluation. The records channel is closed when Run returns. A
// checkpoint goes to the sinks every CheckpointEvery steps and at the end.
func (t *Trainer) Run(ctx context.Context) (Result, error) {
	defer close(t.records)
	batch := tunnels.NewBatch(t.tunnel, t.cfg.Batch)
	stream := tunnels.TrainStream(t.cfg.Seed)
	start := time.Now()
	wall := func() float64 { return t.wall0 + time.Since(start).Seconds() }
	var res Result
	res.Last = sessions.Record{Step: t.step, WallS: t.wall0, State: sessions.Training}
	paused := false
	rate, lastT, lastStep := 0.0, start, t.step
	state := sessions.Training
	lastCkpt := -1
	finish := func(state sessions.State, msg string) (Result, error) {
		s, sn, err := t.evaluate(false, true)
		if err != nil {
			return res, err
		}
		if t.geometryDue(t.step, true) {
			g0 := time.Now()
			if err := t.Geometry(sn, s.BitErrorPosition, true); err != nil {
				return res, err
			}
			res.GeometryS += time.Since(g0).Seconds()
		}
		res.Scores, res.Q, res.Steps = s, t.q, t.step
		res.WallS = wall()
		last := res.Last
		last.State, last.Message, last.Eval, last.Snapshot, last.WallS = state, msg, evalRecord(s), sn, res.WallS
		res.Last = last
		t.emit(last)
		if lastCkpt != t.step {
			t.saveCheckpoint(res.WallS)
		}
		return res, nil
	}
	for t.step < t.cfg.Steps {
		for {
			var c Command
			select {
			case <-ctx.Done():
				return finish(sessions.Stopped, "interrupted")
			case c = <-t.cmds:
			default:
				if !paused {
					goto train
				}
				select {
				case <-ctx.Done():
					return finish(sessions.Stopped, "interrupted")
				case c = <-t.cmds:
				}
			}
			stop, err := t.handle(c, &paused)
			if err != nil {
				res.Last.Message = err.Error()
			} else {
				t.event(c.event(t.step, wall()))
			}
			if stop {
				return finish(sessions.Stopped, "stopped by operator")
			}
			if paused && state != sessions.Paused {
				state = sessions.Paused
				r := res.Last
				r.State, r.Eval, r.Snapshot = state, nil, nil
				t.emit(r)
			}
			if err == nil && (c.Kind == SetHead || c.Kind == RestoreHeads) {
				r := res.Last
				r.Eval, r.Snapshot, r.State = nil, nil, state
				ab, err := t.ablatedRecord(r)
				if err != nil {
					return res, fmt.Errorf("lab: ablated evaluation at step %d: %w", t.step, err)
				}
				if ab == nil { // every head back on: show the whole model again
					s, _, err := t.evaluate(false, false)
					if err != nil {
						return res, fmt.Errorf("lab: evaluate at step %d: %w", t.step, err)
					}
					r.Eval = evalRecord(s)
					ab = &r
				}
				t.emit(*ab)
			}
		}
	train:
		if state == sessions.Paused {
			lastT, lastStep = time.Now(), t.step
		}
		state = sessions.Training
		t0 := time.Now()
		_, gmark := t.gpuSince(0)
		batch.Fill(t.tunnel, stream, uint64(t.step)*uint64(t.cfg.Batch))
		loss, err := t.model.TrainStep(t.tunnel, batch, t.mode)
		if err != nil {
			return res, fmt.Errorf("lab: step %d: %w", t.step+1, err)
		}
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			msg := fmt.Sprintf("loss is %v at step %d: training stopped (lower --lr?)", loss, t.step+1)
			r := res.Last
			r.State, r.Message, r.Eval, r.Snapshot = sessions.Failed, msg, nil, nil
			t.emit(r)
			res.Last = r
			res.Steps = t.step
			return res, fmt.Errorf("lab: %w: %s", ErrDiverged, msg)
		}
		lr := t.sched.At(t.step)
		gn := t.opt.Step(t.model.Params(), lr)
		if t.gpu != nil {
			t.gpu.Invalidate()
		}
		t.step++
		now := time.Now()
		gpuDt, _ := t.gpuSince(gmark)
		res.StepMs = append(res.StepMs, float64(now.Sub(t0).Microseconds())/1000)
		if dt := now.Sub(lastT).Seconds(); dt >= 0.5 {
			inst := float64(t.step-lastStep) / dt
			if rate == 0 {
				rate = inst
			} else {
				rate = 0.7*rate + 0.3*inst
			}
			lastT, lastStep = now, t.step
		} else if rate == 0 && t.step > lastStep {
			rate = float64(t.step-lastStep) / math.Max(now.Sub(start).Seconds(), 1e-9)
		}
		rec := sessions.Record{Step: t.step, WallS: wall(), Loss: loss, LR: lr, GradNorm: gn, StepsPerS: rate, State: state}
		if t.gpu != nil {
			rec.GPUShare = gpuDt.Seconds() / math.Max(now.Sub(t0).Seconds(), 1e-9)
		}
		var ab *sessions.Record
		if t.step%t.cfg.EvalEvery == 0 && t.step < t.cfg.Steps {
			e0 := time.Now()
			s, sn, err := t.evaluate(false, true)
			if err != nil {
				return res, fmt.Errorf("lab: evaluate at step %d: %w", t.step, err)
			}
			rec.Eval, rec.Snapshot = evalRecord(s), sn
			res.EvalS += time.Since(e0).Seconds()
			if t.geometryDue(t.step, false) {
				g0 := time.Now()
				if err := t.Geometry(sn, s.BitErrorPosition, true); err != nil {
					return res, fmt.Errorf("lab: geometry at step %d: %w", t.step, err)
				}
				res.GeometryS += time.Since(g0).Seconds()
			}
			if ab, err = t.ablatedRecord(rec); err != nil {
				return res, fmt.Errorf("lab: ablated evaluation at step %d: %w", t.step, err)
			}
		}
		res.Last = rec
		t.emit(rec)
		if ab != nil {
			t.emit(*ab)
		}
		if ce := t.cfg.CheckpointEvery; ce > 0 && t.step%ce == 0 && t.step < t.cfg.Steps {
			t.saveCheckpoint(rec.WallS)
			lastCkpt = t.step
		}
	}
	return finish(sessions.Done, "")
}

func (t *Trainer) event(e sessions.Event) {
	for _, s := range t.sinks {
		s.Event(e)
	}
}

// saveCheckpoint hands a copy of the parameters and optimiser state to the sinks.
func (t *Trainer) saveCheckpoint(wall float64) {
	if len(t.sinks) == 0 {
		return
	}
	c := t.checkpoint(wall, true)
	for _, s := range t.sinks {
		s.Checkpoint(c)
	}
}
