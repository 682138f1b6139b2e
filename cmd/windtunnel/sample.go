package main

import (
	"bufio"
	"io"

	"github.com/spf13/cobra"

	"windtunnel/sessions/runconfig"
	"windtunnel/tunnels"
)

func newSampleCmd(stdout io.Writer) *cobra.Command {
	var tf runconfig.Flags
	var n int
	var seed uint64
	var asJSON, probe bool
	c := &cobra.Command{
		Use:   "sample",
		Short: "Print a tunnel batch with its exact posteriors",
		Long: "sample draws sequences 0..n-1 of a tunnel's training stream for a seed (or of its held-out\n" +
			"probe set with --probe) and prints tokens, scored positions, targets, exact posteriors and\n" +
			"their entropies in bits: JSON Lines with --json, else a readable table.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if n < 1 || n > 1_000_000 {
				return usagef("--n %d out of range: want 1..1000000", n)
			}
			t, err := tf.Tunnel()
			if err == nil {
				err = tf.CheckApplies()
			}
			if err != nil {
				return usageError{Err: err}
			}
			stream := tunnels.TrainStream(seed)
			if probe {
				stream = tunnels.ProbeStream(seed)
			}
			w := bufio.NewWriter(stdout)
			defer w.Flush()
			if asJSON {
				return tunnels.WriteJSON(w, t, stream, n)
			}
			return tunnels.WriteTable(w, t, stream, n)
		},
	}
	runconfig.BindTask(c.Flags(), &tf, "bijection")
	runconfig.BindSizePreset(c.Flags(), &tf)
	c.Flags().IntVar(&n, "n", 1, "number of sequences (1..1000000)")
	c.Flags().Uint64Var(&seed, "seed", 1, "stream seed")
	jsonFlag(c.Flags(), &asJSON, "JSON Lines, one object per sequence")
	c.Flags().BoolVar(&probe, "probe", false, "draw from the held-out probe set instead of the training stream")
	return c
}
