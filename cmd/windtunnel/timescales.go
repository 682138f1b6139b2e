package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windtunnel/backends/gemm"
	"windtunnel/lab/timescales"
	"windtunnel/models/arch"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"
	"windtunnel/tui/look"
)

// timescalesFlags are the settings of `windtunnel timescales`.
type timescalesFlags struct {
	seeds    int
	seedList []uint
	steps    int
	lr       float64
	valueLR  float64
	length   int
	workers  int
	blas     string
	asJSON   bool
}

func newTimescalesCmd(stdout, stderr io.Writer) *cobra.Command {
	var f timescalesFlags
	c := &cobra.Command{
		Use:   "timescales",
		Short: "Run Paper II's two-timescale experiment as the authors did: the baseline against W_V at 10× the learning rate",
		Long: "timescales runs the experiment of Paper II's script (experiments/paper2_gradient/em_vs_sgd_multiseed.py):\n" +
			"a sticky Markov chain over 8 symbols (self-transition 0.3, the others ∝ 1/circular distance), inputs\n" +
			"x_t = μ_{y_{t−1}} + N(0, I) in 20 dimensions, one sequence of 2,000 per seed; a bare single attention head\n" +
			"(W_Q, W_K 20×10, W_V 20×15, W_O 15×8, N(0, 0.1²)) trained by full-batch gradient descent on the mean\n" +
			"cross-entropy for 1,000 steps: the baseline at 0.01 on every matrix, the EM-like arm at 0.1 on W_V. Each\n" +
			"arm's steps are the first step whose loss (recorded before the update) is below the target, the mean\n" +
			"over seeds of the baseline's final loss (all the steps if never). It prints both arms' steps (mean ± sd\n" +
			"over seeds, and per seed), the speed-up, and the final losses beside H_min, the chain's conditional\n" +
			"entropy. The seeds are the authors', but they drive PyTorch's generator here: the sequences and initial\n" +
			"weights are the bench's own draws from the same distributions.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config(cmd.Flags())
			if err != nil {
				return err
			}
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			tty := isTerminal(stderr)
			cfg.Progress = timescalesProgress(stderr, tty, time.Now())
			res, err := timescales.Run(ctx, cfg)
			if tty {
				fmt.Fprintln(stderr) // end the line rewritten in place
			}
			if err != nil {
				return err
			}
			if f.asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", " ")
				return enc.Encode(res)
			}
			_, err = io.WriteString(stdout, sessions.SafeLines(res.Text())) // paths are anyone's
			return err
		},
	}
	fs := c.Flags()
	fs.IntVar(&f.seeds, "seeds", len(timescales.AuthorsSeeds), "the first N of the authors' seeds 42, 2024, 1337, 7777, 9999")
	fs.UintSliceVar(&f.seedList, "seed-list", nil, "these seeds instead, e.g. 1,2,3")
	fs.IntVar(&f.steps, "steps", timescales.Steps, "full-batch updates per arm")
	fs.Float64Var(&f.lr, "lr", timescales.LR, "the learning rate of every matrix (the EM-like arm's W_V: times --value-lr)")
	fs.Float64Var(&f.valueLR, "value-lr", timescales.ValueLR, "the EM-like arm's multiplier on W_V's learning rate")
	fs.IntVar(&f.length, "length", timescales.Length, "symbols drawn per seed (length−1 predictions)")
	fs.IntVar(&f.workers, "workers", 0, "arms trained at once, one goroutine each (default: all cores)")
	runconfig.BindBLAS(fs, &f.blas)
	jsonFlag(fs, &f.asJSON, "the result as one JSON object, with every loss curve (what report reads as DIR/"+derived.TimescalesFile+")")
	return c
}

// config checks the flags and builds the experiment's configuration.
func (f *timescalesFlags) config(fs *pflag.FlagSet) (timescales.Config, error) {
	c := timescales.DefaultConfig()
	switch {
	case fs.Changed("seeds") && fs.Changed("seed-list"):
		return c, usagef("--seeds and --seed-list: give one")
	case f.seeds < 1 || f.seeds > len(timescales.AuthorsSeeds):
		return c, usagef("--seeds %d: want 1..%d (the authors' seeds; --seed-list for others)", f.seeds, len(timescales.AuthorsSeeds))
	case fs.Changed("seed-list") && len(f.seedList) == 0:
		return c, usagef("--seed-list is empty")
	case f.workers < 0:
		return c, usagef("--workers %d: want ≥ 0 (0: all cores)", f.workers)
	}
	c.Seeds = c.Seeds[:f.seeds]
	if fs.Changed("seed-list") {
		c.Seeds = c.Seeds[:0]
		for _, s := range f.seedList {
			c.Seeds = append(c.Seeds, uint64(s))
		}
	}
	c.Steps, c.LR, c.ValueLR, c.Length = f.steps, f.lr, f.valueLR, f.length
	c.Workers = f.workers
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	switch f.blas {
	case "auto", "go", "openblas", "gonum":
	default:
		return c, usagef("--blas %q: want auto, go, openblas or gonum", f.blas)
	}
	blas := f.blas
	c.Backend = func() (gemm.Backend, error) { return gemm.Open(blas) }
	if err := c.Validate(); err != nil {
		var fe *arch.FieldError
		if errors.As(err, &fe) {
			if name, ok := timescalesFlagNames[fe.Field]; ok {
				return c, usagef("--%s %v: %s", name, fe.Value, fe.Reason)
			}
		}
		return c, usageError{err}
	}
	return c, nil
}

// timescalesFlagNames names the flag that sets each timescales.Config field.
var timescalesFlagNames = map[string]string{"Seeds": "seed-list", "Steps": "steps", "LR": "lr", "ValueLR": "value-lr", "Length": "length"}

// timescalesProgress prints the experiment's progress on w, as run prints a run's: on a
// terminal one line rewritten in place (at most every 100 ms, and at each arm's end), else a
// line at each arm's end: "timescales: 3/10 arms, 3,000/10,000 steps, 4.2 s, ETA 10s".
func timescalesProgress(w io.Writer, tty bool, start time.Time) func(timescales.Progress) {
	var last time.Time
	arms := 0
	return func(p timescales.Progress) {
		ended := p.Arms > arms
		arms = p.Arms
		if !ended && (!tty || time.Since(last) < 100*time.Millisecond) {
			return
		}
		last = time.Now()
		el := time.Since(start)
		eta := "ETA —"
		if p.Steps > 0 {
			eta = "ETA " + (time.Duration(float64(el) * float64(p.TotalSteps-p.Steps) / float64(p.Steps))).Round(time.Second).String()
		}
		line := fmt.Sprintf("timescales: %d/%d arms, %s/%s steps, %.1f s, %s", p.Arms, p.TotalArms,
			look.Count(p.Steps), look.Count(p.TotalSteps), el.Seconds(), eta)
		if tty {
			fmt.Fprintf(w, "\r\033[K%s", line)
		} else {
			fmt.Fprintln(w, line)
		}
	}
}
