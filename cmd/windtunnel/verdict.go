package main

import (
	"fmt"
	"io"
	"windtunnel/lab/launch"

	"windtunnel/lab"
)

// printExit prints the run's end on w: its state, steps and time, the final bit errors and
// KL, the verdict, and the session file.
func printExit(w io.Writer, task string, res lab.Result, session string) {
	s := res.Scores
	verdict := "no final evaluation"
	if v, ok := launch.FinalVerdict(task, res); ok {
		verdict = v.String()
	}
	fmt.Fprintf(w, "windtunnel: %s after %d steps (%.1f s): bit error (a) %.4f (b) %.4f, KL %.4f bits; %s\nwindtunnel: session %s\n",
		res.Last.State, res.Steps, res.WallS, s.BitErrorPosition, s.BitErrorSample, s.KLBits, verdict, session)
}
