package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"windtunnel/sessions"
)

func newMetricCmd(stdout io.Writer) *cobra.Command {
	var name string
	var step int
	var value float64
	var stdin, asJSON bool
	c := &cobra.Command{
		Use:   "metric FILE [--name NAME --step N --value X | --stdin]",
		Short: "Record a metric of your own (a value at a step) in a run's session, or list those recorded",
		Long: "metric records scalars you compute yourself (from `windtunnel probe`, say) in a run's session, where\n" +
			"the dashboard charts them (the Loss pane, key u), plot draws them and export writes them (TensorBoard tags user/NAME).\n" +
			"--name --step --value records one value; --stdin reads JSON Lines, {\"step\": N, \"name\": \"…\", \"value\": X}\n" +
			"a line. A name is ASCII letters, digits and _ . - / (at most 64 bytes; at most 32 names a session); a\n" +
			"value given again at the same step replaces the old one. A live run's session takes them while it trains\n" +
			"(on the host it runs on). With neither, metric lists the values recorded.",
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			adding := cmd.Flags().Changed("name") || cmd.Flags().Changed("step") || cmd.Flags().Changed("value")
			var ms []sessions.UserMetric
			switch {
			case adding && stdin:
				return usagef("--stdin reads the values; leave out --name, --step and --value")
			case adding && !(cmd.Flags().Changed("name") && cmd.Flags().Changed("step") && cmd.Flags().Changed("value")):
				return usagef("recording one value takes --name, --step and --value")
			case adding:
				ms = []sessions.UserMetric{{Step: step, Name: name, Value: value}}
			case stdin:
				var err error
				if ms, err = sessions.ParseUserMetrics(cmd.InOrStdin()); err != nil {
					return usagef("--stdin: %v", err)
				}
			default:
				return sessions.WriteUserMetrics(stdout, args[0], asJSON)
			}
			if err := sessions.AddUserMetrics(args[0], ms); err != nil {
				return err
			}
			if !asJSON {
				fmt.Fprintf(stdout, "recorded %s in %s\n", sessions.Plural(len(ms), "value"), sessions.SafeText(args[0]))
			}
			return nil
		},
	}
	fs := c.Flags()
	fs.StringVar(&name, "name", "", "the metric's name (my/metric: letters, digits, _ . - /)")
	fs.IntVar(&step, "step", 0, "the training step the value belongs to")
	fs.Float64Var(&value, "value", 0, "the value")
	fs.BoolVar(&stdin, "stdin", false, "read values as JSON Lines on stdin: {\"step\": N, \"name\": \"NAME\", \"value\": X}")
	jsonFlag(fs, &asJSON, "the values recorded as JSON Lines (listing)")
	return c
}
