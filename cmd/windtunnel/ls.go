package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"time"
	"windtunnel/sessions/index"

	"github.com/spf13/cobra"

	"windtunnel/sessions"
)

func newLsCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		asJSON, reverse bool
		dir, sortKey    string
		days            float64
		where           []string
	)
	c := &cobra.Command{
		Use:   "ls",
		Short: "List live runs (from their control sockets) and recent sessions",
		Long: "ls lists this user's live runs, found from their control sockets, and the sessions in --dir\n" +
			"modified in the last --days days: task, model, step, bit error (a), state (running, paused,\n" +
			"done, stopped, interrupted, failed), pid of a live run, session path.\n\n" +
			"--where KEY=VALUE (or !=, <, >, <=, >=; repeat it: every condition must hold) keeps the runs\n" +
			"whose KEY matches: a row field (state, task, model, step, steps, pid, path, note, modified), a\n" +
			"metric of the newest whole-model evaluation (bit_error, which is bit error (a), bit_error_sample,\n" +
			"kl_bits, tvd, accuracy) or a key of the stored configuration (seed, lr, transformer.layers, as\n" +
			"`windtunnel info --config` writes them). A numeric key takes a finite number (NaN, an infinity\n" +
			"or one out of range is an error) and compares as numbers; the rest compare as text.\n" +
			"--sort KEY orders by one of them, ascending (--reverse: descending), runs without it last;\n" +
			"the table gains its column. Example: ls --where task=hmm --where 'steps>=1000' --sort bit_error",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if days < 0 || math.IsNaN(days) {
				return usagef("--days %v: want ≥ 0", days)
			}
			var conds []index.Condition
			for _, w := range where {
				c, err := index.ParseWhere(w)
				if err != nil {
					return usageError{Err: err}
				}
				conds = append(conds, c)
			}
			if sortKey != "" {
				if err := index.CheckKey("--sort", sortKey); err != nil {
					return usageError{Err: err}
				}
			}
			if err := sessions.CheckFolder(dir); err != nil && (cmd.Flags().Changed("dir") || !errors.Is(err, fs.ErrNotExist)) {
				return usagef("ls: --dir %v", err)
			}
			warn := func(err error) { fmt.Fprintf(stderr, "windtunnel: ls: %s\n", sessions.SafeText(err.Error())) }
			all, err := index.List(cmd.Context(), index.Options{Dir: dir, Age: time.Duration(days * float64(24*time.Hour)), Skip: warn})
			if err != nil {
				return fmt.Errorf("ls: %w", err)
			}
			rows := index.Filter(all, conds)
			index.Sort(rows, sortKey, reverse)
			if asJSON {
				if rows == nil {
					rows = []index.Run{}
				}
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			if len(rows) == 0 && len(all) > 0 {
				_, err := fmt.Fprintf(stdout, "none of the %d runs listed matches %s\n", len(all), index.DescribeWhere(conds))
				return err
			}
			return printRuns(stdout, rows, dir, days, sortKey)
		},
	}
	fs := c.Flags()
	jsonFlag(fs, &asJSON, "the runs as a JSON array")
	fs.StringVar(&dir, "dir", sessions.RunsDir, "folder of recent sessions (searched recursively)")
	fs.Float64Var(&days, "days", 7, "list sessions modified in the last N days")
	fs.StringArrayVar(&where, "where", nil, "keep the runs whose `KEY=VALUE` (or !=, <, >, <=, >=); repeat for more conditions")
	fs.StringVar(&sortKey, "sort", "", "order by `KEY`: a row field, a metric (bit_error, kl_bits, …) or a configuration key")
	fs.BoolVar(&reverse, "reverse", false, "reverse the order (with --sort: descending)")
	return c
}

// printRuns prints the runs as a table (index.WriteTable), or says there are none.
func printRuns(w io.Writer, rows []index.Run, dir string, days float64, sortKey string) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintf(w, "no live runs, and no sessions in %s from the last %g days\n", sessions.SafeText(dir), days)
		return err
	}
	wd, _ := os.Getwd()
	return index.WriteTable(w, rows, sortKey, wd)
}
