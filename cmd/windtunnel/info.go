package main

import (
	"encoding/json"
	"fmt"
	"io"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/index"

	"github.com/spf13/cobra"

	"windtunnel/lab"
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
			in.Config = lab.EffectiveJSON(in.Config)
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

// writeSessionConfig writes the stored configuration of the session at path as a file
// `run --config` reads back (derived.WriteSessionConfig): TOML, or YAML for format "yaml".
func writeSessionConfig(w io.Writer, path, format string) error {
	if format != "toml" && format != "yaml" {
		return usagef("--format %q: want toml or yaml", format)
	}
	if err := derived.WriteSessionConfig(w, path, format); err != nil {
		return fmt.Errorf("info: %w", err)
	}
	return nil
}
