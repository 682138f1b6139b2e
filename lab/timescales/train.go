package timescales

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"windtunnel/backends/gemm"
	"windtunnel/backends/par"
	"windtunnel/models"
	"windtunnel/models/arch"
	"windtunnel/sessions/derived"
)

// AuthorsSeeds are the seeds of the authors' script, in its order (--seeds N takes the first N).
var AuthorsSeeds = []uint64{42, 2024, 1337, 7777, 9999}

// The authors' schedule: Steps full-batch updates at LR on every matrix, and the EM-like
// arm's W_V at ValueLR times that.
const (
	Steps   = 1000
	LR      = 0.01
	ValueLR = 10.0
)

// Note is what the result says about its draws.
const Note = "the authors' set-up (task, single head, full-batch gradient descent, seeds, metric); " +
	"the data and initial weights are the bench's own draws (PCG) from the same distributions: " +
	"the authors' seeds drive PyTorch's generator, which Go does not reproduce"

// Config is one run of the experiment.
type Config struct {
	Seeds   []uint64
	Steps   int
	LR      float64
	ValueLR float64
	// Length is the number of symbols drawn per seed.
	Length int
	// Workers is how many arms (two per seed) train at once, each on one goroutine (0: 1).
	Workers int
	// Backend returns a new matrix-multiply backend for one worker (gemm backends keep
	// scratch and are not shared between goroutines).
	Backend func() (gemm.Backend, error)
	// Progress, when set, is told how far the run is: every progressEvery steps of an arm
	// and at each arm's end. It is called one call at a time, from the training goroutines.
	Progress func(Progress)
}

// Progress is how far a Run is: the steps trained of all the arms', and the arms ended.
type Progress struct {
	Steps, TotalSteps int
	Arms, TotalArms   int
}

// progressEvery is how many steps of an arm pass between Progress calls.
const progressEvery = 50

// DefaultConfig is the authors' run: their seeds, 1,000 steps, 0.01 and 10× on W_V, 2,000
// symbols, on the project's float32 GEMM.
func DefaultConfig() Config {
	return Config{Seeds: append([]uint64(nil), AuthorsSeeds...), Steps: Steps, LR: LR, ValueLR: ValueLR,
		Length: Length, Workers: 1, Backend: func() (gemm.Backend, error) { return gemm.Go(), nil }}
}

// Validate reports the first setting out of range as a *arch.FieldError naming the field.
func (c Config) Validate() error {
	bad := func(field string, v any, want string) error {
		return &arch.FieldError{Field: field, Value: v, Reason: "want " + want}
	}
	switch {
	case len(c.Seeds) == 0 || len(c.Seeds) > maxSeeds:
		return bad("Seeds", len(c.Seeds), "1..1000 seeds")
	case c.Steps < 1 || c.Steps > maxSteps:
		return bad("Steps", c.Steps, "1..1000000")
	case !(c.LR > 0 && c.LR <= 100):
		return bad("LR", c.LR, "(0, 100]")
	case !(c.ValueLR > 0 && c.ValueLR <= 1000):
		return bad("ValueLR", c.ValueLR, "(0, 1000]")
	case c.Length < 2 || c.Length > maxLength:
		return bad("Length", c.Length, "2..100000")
	case c.Backend == nil:
		return fmt.Errorf("timescales: no matrix-multiply backend")
	}
	return nil
}

// The bounds of Config (a sequence of 100,000 needs 2×block×100,000 floats of scratch and
// runs about 2,500× as long as the authors' 2,000).
const (
	maxSeeds  = 1000
	maxSteps  = 1_000_000
	maxLength = 100_000
)

// Rates returns the learning rates of W_Q, W_K, W_V and W_O for an arm: lr on all four, the
// value multiplier on W_V.
func Rates(lr, valueMult float64) [4]float64 { return [4]float64{lr, lr, lr * valueMult, lr} }

// Train runs steps of full-batch gradient descent on h from p (updated in place) at the
// given rates per matrix (Q, K, V, O), all four from one gradient. It returns the loss
// before each update and the loss after the last; a loss that is not finite is an error.
func Train[T models.Float](ctx context.Context, h *Head[T], p Params[T], rates [4]float64, steps int) (losses []float64, final float64, err error) {
	return train(ctx, h, p, rates, steps, nil)
}

// train is Train, calling tick (when set) after every progressEvery steps.
func train[T models.Float](ctx context.Context, h *Head[T], p Params[T], rates [4]float64, steps int, tick func(int)) (losses []float64, final float64, err error) {
	losses = make([]float64, steps)
	for s := range steps {
		if s%progressEvery == 0 && s > 0 && tick != nil {
			tick(progressEvery)
		}
		if s%50 == 0 && ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		l := h.LossGrad(p)
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return nil, 0, fmt.Errorf("timescales: loss %v before update %d (lower the learning rates)", l, s)
		}
		losses[s] = l
		g := h.Grad().Matrices()
		for i, w := range p.Matrices() {
			r := T(rates[i])
			for j := range w {
				w[j] -= r * g[i][j]
			}
		}
	}
	final = h.Loss(p)
	if math.IsNaN(final) || math.IsInf(final, 0) {
		return nil, 0, fmt.Errorf("timescales: final loss %v (lower the learning rates)", final)
	}
	return losses, final, nil
}

// Run trains both arms on every seed, float32 as the authors' PyTorch, and summarises them
// (derived.Timescales.Summarise). Arms are independent: Workers of them train at once.
func Run(ctx context.Context, c Config) (derived.Timescales, error) {
	if err := c.Validate(); err != nil {
		return derived.Timescales{}, err
	}
	start := time.Now()
	p, mu := Transition(Symbols, SelfProb), Means()
	res := derived.Timescales{Kind: derived.TimescalesKind, Note: Note, Seeds: append([]uint64(nil), c.Seeds...),
		Steps: c.Steps, Length: c.Length, LR: c.LR, ValueLR: c.ValueLR, HMin: ConditionalEntropy(p, Symbols),
		PerSeed: make([]derived.TimescalesSeed, len(c.Seeds))}
	for i, seed := range c.Seeds {
		res.PerSeed[i].Seed = seed
	}
	workers := max(1, min(c.Workers, 2*len(c.Seeds)))
	bes := make([]gemm.Backend, workers)
	for i := range bes {
		be, err := c.Backend()
		if err != nil {
			return derived.Timescales{}, fmt.Errorf("timescales: %w", err)
		}
		bes[i] = be
	}
	errs := make([]error, 2*len(c.Seeds))
	var progMu sync.Mutex
	prog := Progress{TotalSteps: 2 * len(c.Seeds) * c.Steps, TotalArms: 2 * len(c.Seeds)}
	report := func(steps, arms int) {
		if c.Progress == nil {
			return
		}
		progMu.Lock()
		defer progMu.Unlock()
		prog.Steps, prog.Arms = prog.Steps+steps, prog.Arms+arms
		c.Progress(prog)
	}
	par.Pool{Workers: workers}.Each(2*len(c.Seeds), func(w, job int) {
		i, em := job/2, job%2 == 1
		seed := c.Seeds[i]
		d, err := Draw(seed, c.Length, p, mu)
		if err != nil {
			errs[job] = err
			return
		}
		h, err := NewHead[float32](bes[w], d)
		if err != nil {
			errs[job] = err
			return
		}
		name, rates, arm := "baseline", Rates(c.LR, 1), &res.PerSeed[i].Baseline
		if em {
			name, rates, arm = "EM-like", Rates(c.LR, c.ValueLR), &res.PerSeed[i].EM
		}
		ticked := 0
		losses, final, err := train(ctx, h, InitParams[float32](seed), rates, c.Steps, func(n int) { ticked += n; report(n, 0) })
		if err != nil {
			errs[job] = fmt.Errorf("%w (seed %d, %s arm)", err, seed, name)
			return
		}
		arm.Losses, arm.Final = losses, final
		report(c.Steps-ticked, 1)
	})
	for _, err := range errs {
		if err != nil {
			return derived.Timescales{}, err
		}
	}
	res.Summarise()
	res.WallS = time.Since(start).Seconds()
	return res, nil
}
