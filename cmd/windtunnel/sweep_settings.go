package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"windtunnel/lab/sweep"
	"windtunnel/sessions"
	"windtunnel/sessions/figures"
)

// settingsView is the settings-against-results view of `sweep status`: the table
// (--settings, sorted by --sort, --reverse) and the parallel-coordinates figure (--plot).
type settingsView struct {
	table         bool
	sort          string
	reverse       bool
	plot          string
	width, height int
}

// flags registers the view's flags.
func (v *settingsView) flags(fs *pflag.FlagSet) {
	fs.BoolVar(&v.table, "settings", false, "show each point's swept flags against its results (a sortable table)")
	fs.StringVar(&v.sort, "sort", "", "with --settings: the column to sort by (index, state, name, a swept flag or a metric; default the sweep's metric, best first)")
	fs.BoolVar(&v.reverse, "reverse", false, "with --settings: sort the other way")
	fs.StringVar(&v.plot, "plot", "", "draw the swept flags against the sweep's metric as parallel coordinates into FILE (.png, .svg or .pdf)")
	fs.IntVar(&v.width, "width", figures.DefaultWidth, "with --plot: the figure's width in pixels")
	fs.IntVar(&v.height, "height", figures.DefaultHeight, "with --plot: the figure's height in pixels")
}

// wanted reports whether a flag of the view was given.
func (v settingsView) wanted() bool {
	return v.table || v.plot != "" || v.sort != "" || v.reverse
}

// sweepSettings prints the settings table (as JSON: the points in their order) and draws
// the figure.
func sweepSettings(ctx context.Context, dir string, v settingsView, asJSON bool, stdout, stderr io.Writer) error {
	format := strings.TrimPrefix(filepath.Ext(v.plot), ".")
	if v.plot != "" && !figures.ValidFormat(format) {
		return usagef("--plot %s: want a file ending in .%s", v.plot, strings.Join(figures.Formats(), ", ."))
	}
	if v.width < 64 || v.width > 8192 || v.height < 64 || v.height > 8192 {
		return usagef("--width %d --height %d out of range: want 64..8192 pixels", v.width, v.height)
	}
	m, err := sweep.Read(dir)
	if err != nil {
		return usageError{Err: err}
	}
	rep := m.ReadStatus(ctx, func(err error) {
		fmt.Fprintf(stderr, "windtunnel sweep: %v: states from the sessions alone\n", err)
	})
	key := v.sort
	if key == "" {
		key = m.Grid.Goal().Name
	}
	if err := m.SortPoints(rep.Points, key, v.reverse); err != nil {
		return usagef("--sort: %v", err)
	}
	if v.plot != "" {
		axes, rows, goal := m.Coordinates(rep.Points)
		title := fmt.Sprintf("sweep %s: settings against %s (%s)", filepath.Base(m.Dir()), goal.Name, goal.Goal)
		if err := figures.Parallel(title, axes, rows, goal.Goal, v.plot, figures.Options{Format: format, Width: v.width, Height: v.height}); err != nil {
			return err
		}
	}
	switch {
	case asJSON:
		return json.NewEncoder(stdout).Encode(rep)
	case v.table || v.plot == "":
		_, err = io.WriteString(stdout, sessions.SafeLines(m.SettingsText(rep.Points)))
		return err
	}
	fmt.Fprintln(stdout, sessions.SafeText(v.plot))
	return nil
}
