package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
)

// lsRow is one run as ls lists it.
type lsRow struct {
	// State is running (or paused), done, stopped, interrupted (stopped by a signal, or
	// killed: the session has no final record) or failed.
	State string `json:"state"`
	Task  string `json:"task"`
	Model string `json:"model"`
	Step  int    `json:"step"`
	Steps int    `json:"steps"`
	// BitError is bit error (a) at the newest evaluation of the whole model (null: none).
	BitError *float64 `json:"bit_error_position"`
	// Note qualifies the state: "no answer" for a session whose control socket is still
	// there but did not answer in time (a run that is alive but busy, or hung).
	Note string `json:"note,omitempty"`
	// Pid and Socket are a live run's process and control socket.
	Pid      int       `json:"pid,omitempty"`
	Socket   string    `json:"socket,omitempty"`
	Path     string    `json:"path"`
	Modified time.Time `json:"modified"`
	// Metrics are the scores of the newest evaluation of the whole model (null: none yet);
	// Config the configuration as stored.
	Metrics *lsMetrics      `json:"last_eval"`
	Config  json.RawMessage `json:"config,omitempty"`
}

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
			"`windtunnel info --config` writes them). Numbers compare as numbers, the rest as text.\n" +
			"--sort KEY orders by one of them, ascending (--reverse: descending), runs without it last;\n" +
			"the table gains its column. Example: ls --where task=hmm --where 'steps>=1000' --sort bit_error",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if days < 0 || math.IsNaN(days) {
				return usagef("--days %v: want ≥ 0", days)
			}
			var conds []lsCondition
			for _, w := range where {
				c, err := parseWhere(w)
				if err != nil {
					return err
				}
				conds = append(conds, c)
			}
			if sortKey != "" {
				if err := checkLsKey("--sort", sortKey); err != nil {
					return err
				}
			}
			all, err := listRuns(cmd.Context(), dir, time.Duration(days*float64(24*time.Hour)), stderr)
			if err != nil {
				return err
			}
			rows := filterRows(all, conds)
			sortRows(rows, sortKey, reverse)
			if asJSON {
				if rows == nil {
					rows = []lsRow{}
				}
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			if len(rows) == 0 && len(all) > 0 {
				_, err := fmt.Fprintf(stdout, "none of the %d runs listed matches %s\n", len(all), describeWhere(conds))
				return err
			}
			return printRuns(stdout, rows, dir, days, sortKey)
		},
	}
	fs := c.Flags()
	jsonFlag(fs, &asJSON, "the runs as a JSON array")
	fs.StringVar(&dir, "dir", "runs", "folder of recent sessions (searched recursively)")
	fs.Float64Var(&days, "days", 7, "list sessions modified in the last N days")
	fs.StringArrayVar(&where, "where", nil, "keep the runs whose `KEY=VALUE` (or !=, <, >, <=, >=); repeat for more conditions")
	fs.StringVar(&sortKey, "sort", "", "order by `KEY`: a row field, a metric (bit_error, kl_bits, …) or a configuration key")
	fs.BoolVar(&reverse, "reverse", false, "reverse the order (with --sort: descending)")
	return c
}

// listRuns returns the live runs, then the sessions under dir modified within age that
// are not live, newest first. Sessions that do not open are reported on warn and skipped.
func listRuns(ctx context.Context, dir string, age time.Duration, warn io.Writer) ([]lsRow, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	sockets, err := relay.SocketDir()
	if err != nil {
		return nil, fmt.Errorf("ls: %w", err)
	}
	live, err := relay.List(ctx, sockets)
	if err != nil {
		return nil, fmt.Errorf("ls: %w", err)
	}
	var rows []lsRow
	var liveFiles []os.FileInfo
	for _, r := range live {
		h := r.Hello
		row := lsRow{State: "running", Task: h.Meta.Task, Model: h.Meta.Model, Step: h.Step, Steps: h.Meta.Steps,
			Pid: h.Pid, Socket: r.Socket, Path: h.Meta.Path, BitError: finite(float64(h.BitError)), Config: h.Meta.Config}
		row.Metrics = sessionMetrics(h.Meta.Path)
		if h.State == sessions.Paused {
			row.State = "paused"
		}
		if fi, err := os.Stat(h.Meta.Path); err == nil {
			row.Modified = fi.ModTime().UTC()
			liveFiles = append(liveFiles, fi)
		}
		rows = append(rows, row)
	}
	var recent []lsRow
	cutoff := time.Now().Add(-age)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != dir || !os.IsNotExist(err) {
				fmt.Fprintf(warn, "windtunnel: ls: %s\n", sessions.SafeText(err.Error()))
			}
			return nil
		}
		if d.IsDir() || filepath.Ext(path) != ".wtlab" {
			return nil
		}
		fi, err := d.Info()
		if err != nil || fi.ModTime().Before(cutoff) {
			return nil
		}
		for _, lf := range liveFiles {
			if os.SameFile(fi, lf) {
				return nil
			}
		}
		row, err := sessionRow(path)
		if err != nil {
			fmt.Fprintf(warn, "windtunnel: ls: %s\n", sessions.SafeText(err.Error()))
			return nil
		}
		row.Modified = fi.ModTime().UTC()
		recent = append(recent, row)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ls: %w", err)
	}
	sort.SliceStable(recent, func(i, j int) bool { return recent[i].Modified.After(recent[j].Modified) })
	return append(rows, recent...), nil
}

// sessionRow describes a session file that no live run is writing.
func sessionRow(path string) (lsRow, error) {
	r, err := sessions.Open(path)
	if err != nil {
		return lsRow{}, err
	}
	defer r.Close()
	m := r.Meta()
	row := lsRow{State: "interrupted", Task: m.Task, Model: m.Model, Steps: m.Steps, Path: path, Config: validJSON(m.Config)}
	if abs, err := filepath.Abs(path); err == nil {
		row.Path = abs
	}
	last, ok, err := r.At(-1)
	if err != nil {
		return lsRow{}, err
	}
	if ok {
		row.Step = last.Step
		switch last.State {
		case sessions.Done:
			row.State = "done"
		case sessions.Failed:
			row.State = "failed"
		case sessions.Stopped:
			if last.Message != "interrupted" {
				row.State = "stopped"
			}
		}
	}
	// relay.List removed the sockets nobody listens on: one still named and present
	// belongs to a run that did not answer in time.
	if fi, err := os.Lstat(m.Socket); m.Socket != "" && err == nil && fi.Mode()&os.ModeSocket != 0 {
		row.State, row.Note, row.Socket = "running", "no answer", m.Socket
	}
	evals, err := r.Evals(-1, 0)
	if err != nil {
		return lsRow{}, err
	}
	if r, ok := sessions.LastWhole(evals); ok {
		row.BitError = finite(r.Eval.BitErrorPosition)
		row.Metrics = metricsOf(r.Eval)
	}
	return row, nil
}

// metricsOf are the row's metrics of an evaluation.
func metricsOf(e *sessions.Eval) *lsMetrics {
	return &lsMetrics{BitErrorPosition: finite(e.BitErrorPosition), BitErrorSample: finite(e.BitErrorSample),
		KLBits: finite(e.KLBits), TVD: finite(e.TVD), Accuracy: finite(e.Accuracy)}
}

// sessionMetrics reads the metrics of a live run's newest whole-model evaluation from its
// session (nil when it has none or cannot be read).
func sessionMetrics(path string) *lsMetrics {
	r, err := sessions.Open(path)
	if err != nil {
		return nil
	}
	defer r.Close()
	evals, err := r.Evals(-1, 0)
	if err != nil {
		return nil
	}
	if rec, ok := sessions.LastWhole(evals); ok {
		return metricsOf(rec.Eval)
	}
	return nil
}

// validJSON is b when it is valid JSON (a session's stored configuration, written by
// whoever made the file), else nil.
func validJSON(b json.RawMessage) json.RawMessage {
	if !json.Valid(b) {
		return nil
	}
	return b
}

// describeWhere is the conditions as a reader would write them.
func describeWhere(conds []lsCondition) string {
	parts := make([]string, len(conds))
	for i, c := range conds {
		parts[i] = "--where " + strconv.Quote(c.String())
	}
	return strings.Join(parts, " ")
}

// finite returns a pointer to x, or nil when x is not a finite number.
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// printRuns prints the runs as aligned columns, with a column for sortKey when the table
// has none.
func printRuns(w io.Writer, rows []lsRow, dir string, days float64, sortKey string) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintf(w, "no live runs, and no sessions in %s from the last %g days\n", dir, days)
		return err
	}
	wd, _ := os.Getwd()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	extra := sortKey != "" && !lsShown(sortKey)
	head := "STATE\tTASK\tMODEL\tSTEP\tBIT ERROR (a)\tPID\t"
	if extra {
		head += sessions.SafeText(strings.ToUpper(sortKey)) + "\t"
	}
	fmt.Fprintln(tw, head+"SESSION")
	for _, r := range rows {
		be, pid := "-", "-"
		if r.BitError != nil {
			be = fmt.Sprintf("%.4f", *r.BitError)
		}
		if r.Pid > 0 {
			pid = fmt.Sprint(r.Pid)
		}
		state := r.State
		if r.Note != "" {
			state += " (" + r.Note + ")"
		}
		path := r.Path
		if rel, err := filepath.Rel(wd, path); err == nil && wd != "" && !strings.HasPrefix(rel, "..") {
			path = rel
		}
		col := ""
		if extra {
			col = "-"
			if v, ok := r.field(sortKey); ok {
				col = sessions.SafeText(fieldText(v))
			}
			col += "\t"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\t%s%s\n", sessions.SafeText(state), sessions.SafeText(r.Task), sessions.SafeText(r.Model),
			r.Step, r.Steps, be, pid, col, sessions.SafeText(path))
	}
	return tw.Flush()
}
