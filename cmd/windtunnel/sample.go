package main

import (
	"bufio"
	"io"

	"github.com/spf13/cobra"

	"windtunnel/tunnels"
)

func newSampleCmd(stdout io.Writer) *cobra.Command {
	var tf tunnelFlags
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
			if err := tf.checkExplicit(cmd.Flags()); err != nil {
				return err
			}
			if n < 1 || n > 1_000_000 {
				return usagef("--n %d out of range: want 1..1000000", n)
			}
			t, err := tf.build()
			if err != nil {
				return err
			}
			if err := checkApplies(cmd.Flags(), tf.task, ""); err != nil {
				return err
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
	tf.register(c.Flags(), "bijection")
	tf.registerPreset(c.Flags())
	c.Flags().IntVar(&n, "n", 1, "number of sequences (1..1000000)")
	c.Flags().Uint64Var(&seed, "seed", 1, "stream seed")
	jsonFlag(c.Flags(), &asJSON, "JSON Lines, one object per sequence")
	c.Flags().BoolVar(&probe, "probe", false, "draw from the held-out probe set instead of the training stream")
	return c
}
