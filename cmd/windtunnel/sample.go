package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

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
				return sampleJSON(w, t, stream, n)
			}
			return sampleTable(w, t, stream, n)
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

// sampleLine is one JSON Lines object of `sample --json`.
type sampleLine struct {
	Task  string `json:"task"`
	Index int    `json:"index"`
	tunnels.Sequence
}

func sampleJSON(w io.Writer, t tunnels.Tunnel, stream uint64, n int) error {
	enc := json.NewEncoder(w)
	var s tunnels.Sequence
	for i := 0; i < n; i++ {
		t.Fill(&s, stream, uint64(i))
		if err := enc.Encode(sampleLine{Task: t.Name(), Index: i, Sequence: s}); err != nil {
			return fmt.Errorf("sample: write: %w", err)
		}
	}
	return nil
}

func sampleTable(w io.Writer, t tunnels.Tunnel, stream uint64, n int) error {
	var s tunnels.Sequence
	for i := 0; i < n; i++ {
		t.Fill(&s, stream, uint64(i))
		fmt.Fprintf(w, "# %s sequence %d: %d tokens, %d scored positions, %d classes\n", t.Name(), i, len(s.Tokens), len(s.Positions), t.Classes())
		fmt.Fprintf(w, "tokens: %s\n", ints(s.Tokens))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "pos\ttoken\ttarget\tH bits\tposterior (nonzero: class=p)")
		for j, p := range s.Positions {
			var parts []string
			for c, v := range s.Posterior[j] {
				if v > 0 {
					parts = append(parts, fmt.Sprintf("%d=%.3f", c, v))
				}
			}
			post := strings.Join(parts, " ")
			if len(parts) > 8 {
				post = strings.Join(parts[:8], " ") + fmt.Sprintf(" … (%d classes)", len(parts))
			}
			fmt.Fprintf(tw, "%d\t%d\t%d\t%.4f\t%s\n", p, s.Tokens[p], s.Targets[j], s.EntropyBits[j], post)
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("sample: write: %w", err)
		}
		fmt.Fprintln(w)
	}
	return nil
}

func ints(xs []int) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, x)
	}
	return b.String()
}
