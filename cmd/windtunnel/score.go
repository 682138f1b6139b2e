package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"windtunnel/sessions/runconfig"
	"windtunnel/tunnels"
	"windtunnel/tunnels/score"
)

func newScoreCmd(stdout io.Writer) *cobra.Command {
	var tf runconfig.Flags
	var logits, asJSON bool
	c := &cobra.Command{
		Use:   "score",
		Short: "Score an outside model's predictions (JSON Lines on stdin) against the exact posterior",
		Long: "score reads JSON Lines on stdin, one sequence a line: {\"tokens\": [...], \"model\": [[...], ...]},\n" +
			"the model's distribution over the task's classes at each scored position (probabilities, or\n" +
			"logits with --logits). It recomputes the exact posterior from the tokens and prints bit error (a)\n" +
			"and (b), KL, TVD, accuracy and the per-position curves. `run --predictions` and `sample --json`\n" +
			"lines (with a \"model\" field added) are accepted as they are. Without --task the first line's\n" +
			"\"task\" field names it.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := tf.CheckSizes(); err != nil {
				return usageError{Err: err}
			}
			task := ""
			if tf.Given("task") {
				task = tf.Task
				_, err := tf.Tunnel()
				if err == nil {
					err = tf.CheckApplies()
				}
				if err != nil {
					return usageError{Err: err}
				}
			}
			res, err := score.Stream(cmd.InOrStdin(), task, func(name string) (tunnels.Tunnel, error) {
				tf.Task = name
				t, err := tf.Tunnel()
				if err != nil {
					return nil, usageError{Err: err}
				}
				return t, nil
			}, logits)
			if err != nil {
				return err
			}
			w := bufio.NewWriter(stdout)
			if asJSON {
				if err := json.NewEncoder(w).Encode(res); err != nil {
					return fmt.Errorf("score: write: %w", err)
				}
			} else if err := res.Text(w); err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return fmt.Errorf("score: write: %w", err)
			}
			return nil
		},
	}
	runconfig.BindTask(c.Flags(), &tf, "")
	runconfig.BindSizePreset(c.Flags(), &tf)
	c.Flags().BoolVar(&logits, "logits", false, "the model rows are logits (softmax is applied), not probabilities")
	jsonFlag(c.Flags(), &asJSON, "the scores as one JSON object")
	return c
}
