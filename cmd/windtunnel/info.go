package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"windtunnel/sessions/runconfig"

	"github.com/spf13/cobra"

	"windtunnel/lab"
	"windtunnel/sessions"
)

func newInfoCmd(stdout io.Writer) *cobra.Command {
	var (
		asJSON, asConfig bool
		format           string
	)
	c := &cobra.Command{
		Use:   "info FILE",
		Short: "Print a session's configuration, step range and last metrics",
		Long: "info prints a session's run, step range, checkpoints, last metrics and configuration (resolved:\n" +
			"the task's sizes and target with their defaults, the model's own block). --config prints the\n" +
			"configuration as recorded instead, as a TOML (or --format yaml) file that `windtunnel run\n" +
			"--config FILE` reads back to the same configuration.",
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case asConfig && asJSON:
				return usagef("--config and --json: give one (the configuration file, or the whole report as JSON)")
			case cmd.Flags().Changed("format") && !asConfig:
				return usagef("--format applies to --config only")
			case asConfig:
				return writeSessionConfig(stdout, args[0], format)
			}
			in, err := readInfo(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(stdout).Encode(in)
			}
			var b strings.Builder
			printInfo(&b, in)
			_, err = io.WriteString(stdout, b.String())
			return err
		},
	}
	jsonFlag(c.Flags(), &asJSON, "one JSON object")
	c.Flags().BoolVar(&asConfig, "config", false, "print the recorded configuration as a file for run --config (TOML; YAML with --format yaml)")
	c.Flags().StringVar(&format, "format", "toml", "the `FORMAT` of the --config file: toml or yaml")
	return c
}

// sessionInfo is what `windtunnel info` prints.
type sessionInfo struct {
	Path        string         `json:"path"`
	Bytes       int64          `json:"bytes"`
	Task        string         `json:"task"`
	Model       string         `json:"model"`
	Params      int            `json:"params"`
	Device      string         `json:"device"`
	Version     string         `json:"version"`
	Host        string         `json:"host"`
	Created     time.Time      `json:"created"`
	FirstStep   int            `json:"first_step"`
	LastStep    int            `json:"last_step"`
	PlanSteps   int            `json:"planned_steps"`
	Records     int            `json:"records"`
	Events      int            `json:"events"`
	Checkpoints []int          `json:"checkpoints"`
	State       string         `json:"state"`
	Last        *sessions.Eval `json:"last_eval,omitempty"`
	// LastLoss and WallS are null when not finite (a diverged run's loss).
	LastLoss sessions.Num `json:"last_loss"`
	WallS    sessions.Num `json:"wall_s"`
	// Config is the configuration resolved for display (lab.Effective): the task's tunnel
	// sizes and target with defaults applied, the model's own block. A session whose stored
	// configuration does not resolve shows it as stored.
	Config json.RawMessage `json:"config"`
}

func readInfo(path string) (sessionInfo, error) {
	r, err := sessions.Open(path)
	if err != nil {
		return sessionInfo{}, err
	}
	defer r.Close()
	m := r.Meta()
	in := sessionInfo{Path: path, Task: m.Task, Model: m.Model, Params: m.Params, Device: m.Device, Version: m.Version,
		Host: m.Host, Created: m.Created, PlanSteps: m.Steps, Config: effectiveJSON(m.Config)}
	if st, err := os.Stat(path); err == nil {
		in.Bytes = st.Size()
	}
	in.FirstStep, in.LastStep, _ = r.Span()
	if in.Records, err = r.Count(); err != nil {
		return in, err
	}
	ev, err := r.Events(-1)
	if err != nil {
		return in, err
	}
	in.Events = len(ev)
	if in.Checkpoints, err = r.Checkpoints(); err != nil {
		return in, err
	}
	last, ok, err := r.At(-1)
	if err != nil {
		return in, err
	}
	if ok {
		in.State, in.LastLoss, in.WallS = string(last.State), sessions.Num(last.Loss), sessions.Num(last.WallS)
	}
	evs, err := r.Evals(-1, 0)
	if err != nil {
		return in, err
	}
	if r, ok := sessions.LastWhole(evs); ok {
		in.Last = r.Eval
	}
	return in, nil
}

// effectiveJSON is a session's stored configuration resolved for display (lab.Effective),
// or as stored when it is not a valid configuration of this version.
func effectiveJSON(stored json.RawMessage) json.RawMessage {
	var cfg runconfig.Config
	if json.Unmarshal(stored, &cfg) != nil || cfg.Validate() != nil {
		return stored
	}
	e, err := lab.EffectiveOf(cfg)
	if err != nil {
		return stored
	}
	b, err := json.Marshal(e)
	if err != nil {
		return stored
	}
	return b
}

func printInfo(w *strings.Builder, in sessionInfo) {
	fmt.Fprintf(w, "session   %s (%d bytes)\n", in.Path, in.Bytes)
	fmt.Fprintf(w, "run       %s %s, %d parameters, %s, windtunnel %s on %s, %s\n", in.Task, in.Model, in.Params, in.Device, in.Version, in.Host, in.Created.Format(time.RFC3339))
	fmt.Fprintf(w, "steps     %d..%d of %d planned, %d records, %d operator events, state %s, %.1f s\n", in.FirstStep, in.LastStep, in.PlanSteps, in.Records, in.Events, in.State, in.WallS)
	fmt.Fprintf(w, "checkpts  %v\n", in.Checkpoints)
	fmt.Fprintf(w, "last      loss %.5f", in.LastLoss)
	if e := in.Last; e != nil {
		fmt.Fprintf(w, "  bit error (a) %.5f  (b) %.5f  KL %.5f bits  TVD %.5f  accuracy %.4f", e.BitErrorPosition, e.BitErrorSample, e.KLBits, e.TVD, e.Accuracy)
	}
	fmt.Fprintln(w)
	var cfg bytes.Buffer
	if json.Indent(&cfg, in.Config, "          ", "  ") == nil { // in the order written
		fmt.Fprintf(w, "config    %s\n", cfg.Bytes())
	}
}
