package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"windtunnel/lab/timescales"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"
)

func newTimescalesCmd(stdout, stderr io.Writer) *cobra.Command {
	var f timescales.Settings
	var asJSON bool
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
			f.SeedsGiven, f.SeedListGiven = cmd.Flags().Changed("seeds"), cmd.Flags().Changed("seed-list")
			cfg, err := f.Config()
			if err != nil {
				return usageError{Err: err}
			}
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			tty := isTerminal(stderr)
			cfg.Progress = timescales.ProgressPrinter(stderr, tty, time.Now())
			res, err := timescales.Run(ctx, cfg)
			if tty {
				fmt.Fprintln(stderr) // end the line rewritten in place
			}
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", " ")
				return enc.Encode(res)
			}
			_, err = io.WriteString(stdout, sessions.SafeLines(res.Text())) // paths are anyone's
			return err
		},
	}
	fs := c.Flags()
	fs.IntVar(&f.Seeds, "seeds", len(timescales.AuthorsSeeds), "the first N of the authors' seeds 42, 2024, 1337, 7777, 9999")
	fs.UintSliceVar(&f.SeedList, "seed-list", nil, "these seeds instead, e.g. 1,2,3")
	fs.IntVar(&f.Steps, "steps", timescales.Steps, "full-batch updates per arm")
	fs.Float64Var(&f.LR, "lr", timescales.LR, "the learning rate of every matrix (the EM-like arm's W_V: times --value-lr)")
	fs.Float64Var(&f.ValueLR, "value-lr", timescales.ValueLR, "the EM-like arm's multiplier on W_V's learning rate")
	fs.IntVar(&f.Length, "length", timescales.Length, "symbols drawn per seed (length−1 predictions)")
	fs.IntVar(&f.Workers, "workers", 0, "arms trained at once, one goroutine each (default: all cores)")
	runconfig.BindBLAS(fs, &f.BLAS)
	jsonFlag(fs, &asJSON, "the result as one JSON object, with every loss curve (what report reads as DIR/"+derived.TimescalesFile+")")
	return c
}
