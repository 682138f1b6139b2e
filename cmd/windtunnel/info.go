package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"windtunnel/lab/runconfig"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/index"

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
			in, err := index.ReadInfo(args[0])
			if err != nil {
				return err
			}
			in.Config = effectiveJSON(in.Config)
			if asJSON {
				return json.NewEncoder(stdout).Encode(in)
			}
			_, err = io.WriteString(stdout, in.Text())
			return err
		},
	}
	jsonFlag(c.Flags(), &asJSON, "one JSON object")
	c.Flags().BoolVar(&asConfig, "config", false, "print the recorded configuration as a file for run --config (TOML; YAML with --format yaml)")
	c.Flags().StringVar(&format, "format", "toml", "the `FORMAT` of the --config file: toml or yaml")
	return c
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

// writeSessionConfig writes the stored configuration of the session at path as a file
// `run --config` reads back to the same configuration: TOML, or YAML for format "yaml".
func writeSessionConfig(w io.Writer, path, format string) error {
	if format != "toml" && format != "yaml" {
		return usagef("--format %q: want toml or yaml", format)
	}
	cfg, m, err := derived.ReadSessionConfig(path)
	if err != nil {
		return fmt.Errorf("info: %w", err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The configuration of %s (%s %s, %d steps), as recorded.\n",
		strings.ReplaceAll(sessions.SafeText(path), "\n", " "), sessions.SafeText(m.Task), sessions.SafeText(m.Model), cfg.Steps)
	b.WriteString("# `windtunnel run --config FILE` runs it again; flags given replace its values. A zero size\n" +
		"# or an empty setting stands for the default (`windtunnel info` shows the values the run used).\n")
	if err := runconfig.Write(&b, cfg, format); err != nil {
		return fmt.Errorf("info: %s: %w", path, err)
	}
	_, err = w.Write(b.Bytes())
	return err
}
