package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

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
				return listUserMetrics(args[0], asJSON, stdout)
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

// listUserMetrics prints the session's user metrics: a table of name, step and value, or
// JSON Lines (a value that is not a number as null).
func listUserMetrics(path string, asJSON bool, stdout io.Writer) error {
	r, err := sessions.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	ms, err := r.UserMetrics()
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		for _, m := range ms {
			if err := enc.Encode(map[string]any{"step": m.Step, "name": m.Name, "value": sessions.Num(m.Value)}); err != nil {
				return fmt.Errorf("metric: %w", err)
			}
		}
		return nil
	}
	if len(ms) == 0 {
		fmt.Fprintf(stdout, "%s: no metrics of your own recorded (windtunnel metric FILE --name NAME --step N --value X)\n", sessions.SafeText(path))
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTEP\tVALUE")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", m.Name, m.Step, strconv.FormatFloat(m.Value, 'g', 6, 64))
	}
	return tw.Flush()
}
