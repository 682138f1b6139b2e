package main

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"

	"windtunnel/lab/probe"
	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
)

func newProbeCmd(stdout io.Writer) *cobra.Command {
	var (
		step      int
		asJSON    bool
		geometryN int
		jlensN    int
		blas      string
		noiseSets int
		noiseN    int
	)
	c := &cobra.Command{
		Use:   "probe FILE",
		Short: "Load a session's checkpoint and print its geometry: focus, key orthogonality, value manifold, ablation table",
		Long: "probe loads the checkpoint at or before --step (default: the last) of a session, rebuilds the model\n" +
			"from the session's configuration and computes the diagnostics of docs/usage.md: Geometry on the run's probe set:\n" +
			"bit error, attention focus, key orthogonality against random, the value manifold and the ablation table.\n" +
			"With --noise-sets K it instead scores the checkpoint on K independent probe sets of --noise-n sequences\n" +
			"and prints each set's bit error and their mean and standard deviation: what one probe set of that size resolves.",
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("step") {
				step = -1 // the last checkpoint
			}
			if err := probe.Check(step, geometryN, jlensN); err != nil {
				return usageError{Err: err}
			}
			if noiseSets != 0 {
				if err := probe.CheckNoise(noiseSets, noiseN); err != nil {
					return usageError{Err: err}
				}
				rep, err := probe.Noise(args[0], step, noiseN, noiseSets, blas)
				if err != nil {
					return err
				}
				if asJSON {
					return json.NewEncoder(stdout).Encode(rep)
				}
				_, err = io.WriteString(stdout, sessions.SafeLines(rep.Text()))
				return err
			}
			rep, err := probe.Session(args[0], step, geometryN, jlensN, blas)
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(stdout).Encode(rep)
			}
			_, err = io.WriteString(stdout, sessions.SafeLines(rep.Text())) // the path is anyone's
			return err
		},
	}
	c.Flags().IntVar(&step, "step", 0, "use the checkpoint at or before this step (default: the last)")
	jsonFlag(c.Flags(), &asJSON, "one JSON object")
	c.Flags().IntVar(&geometryN, "geometry-n", 0, "probe sequences for the geometry and ablation table (default: the run's, or 64)")
	c.Flags().IntVar(&jlensN, "jlens-n", 0, "of those, the sequences the J-lens stacks (default: the run's, or 32; the authors use 256, with --geometry-n 256)")
	c.Flags().IntVar(&noiseSets, "noise-sets", 0, "instead score the checkpoint on this many independent probe sets (2..1000) and print the spread of their bit errors")
	c.Flags().IntVar(&noiseN, "noise-n", 512, "--noise-sets: sequences in each probe set")
	runconfig.BindBLAS(c.Flags(), &blas)
	return c
}
