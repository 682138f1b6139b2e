package lab

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"windtunnel/sessions/runconfig"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
	"windtunnel/diagnostics"
	"windtunnel/models"
	"windtunnel/sessions"
	"windtunnel/tunnels"
)

// ErrDiverged is returned (wrapped) when the loss becomes NaN or infinite.
var ErrDiverged = errors.New("loss is not finite")

// Trainer runs one training run on its own goroutine. Everything it produces goes to its
// sinks (Attach); operator events come in through Send.
type Trainer struct {
	cfg     runconfig.Config
	tunnel  tunnels.Tunnel
	model   models.Model
	mode    tunnels.TargetMode
	backend gemm.Backend
	opt     optimizer
	sched   Schedule
	probe   []*tunnels.Batch
	q       []float64
	post    []float64
	events  chan sessions.Event
	layers  int // the attention layout, fixed at New (read by Send)
	heads   int
	step    int
	sinks   []Sink
	wall0   float64  // wall time already spent before a resume
	off     [][]bool // heads switched off by the operator
	geo     geometryState
	device  Device
	// path is where the step computes, chosen at New: read parameters through current.
	path computePath
	// maxLen is the model's position-table length; evalK the lengths K an hmm run is scored
	// at (nil: the training K only) and lengths the probe sets of those other than it.
	maxLen  int
	evalK   []int
	lengths []lengthProbe
	// evalBudget bounds the buffers of each evaluation graph (evalChunk), chunk is the
	// number of sequences a pass over the training-length probe set runs.
	evalBudget int64
	chunk      int
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
	// LastEval is the newest record sent with a whole-model evaluation (Eval nil: none).
	// For a run that ends with a final evaluation it is Last; for one that diverged it is
	// the last evaluation before the failure.
	LastEval sessions.Record
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

// eventQueue is how many operator events may wait for the next step.
const eventQueue = 64

// New builds the tunnel, model, optimiser and probe set of a configuration.
func New(cfg runconfig.Config) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	avail, source := AvailableMemoryFrom()
	if err := CheckMemoryIn(cfg, avail, source); err != nil {
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
	m, maxLen, err := buildModel(cfg, tn, opts)
	if err != nil {
		return nil, err
	}
	t := &Trainer{
		cfg: cfg, tunnel: tn, model: m, mode: mode, backend: be, device: dev, maxLen: maxLen,
		opt:    newOptimizer(cfg, workers),
		sched:  Schedule{Peak: cfg.LR, Warmup: cfg.Warmup, Total: cfg.Steps},
		events: make(chan sessions.Event, eventQueue),
	}
	t.layers, t.heads = m.Heads()
	if t.heads > 0 {
		t.off = make([][]bool, t.layers)
		for i := range t.off {
			t.off[i] = make([]bool, t.heads)
		}
	}
	hp := &hostPath{t: t, gpu: gpu}
	hp.markResident()
	t.path = hp
	if err := t.openResident(be); err != nil {
		return nil, err
	}
	if err := t.setupProbes(evalBudget); err != nil {
		return nil, err
	}
	return t, nil
}

// Model returns the model being trained (for the owner of the trainer goroutine only).
func (t *Trainer) Model() models.Model { return t.model }

// Tunnel returns the task.
func (t *Trainer) Tunnel() tunnels.Tunnel { return t.tunnel }

// Config returns the run's configuration.
func (t *Trainer) Config() runconfig.Config { return t.cfg }

// BLAS names the matrix-multiply backend in use.
func (t *Trainer) BLAS() string { return t.backend.Name() }

// ProbeBatches are the held-out probe sequences, in order.
func (t *Trainer) ProbeBatches() []*tunnels.Batch { return t.probe }

// emit hands a record to every sink.
func (t *Trainer) emit(r sessions.Record) {
	for _, s := range t.sinks {
		s.Record(r)
	}
}

// record hands an operator event, as it took effect, to every sink.
func (t *Trainer) record(e sessions.Event) {
	for _, s := range t.sinks {
		s.Event(e)
	}
}
