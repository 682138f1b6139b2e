package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windtunnel/lab/launch"
	"windtunnel/sessions"
	"windtunnel/sessions/index"
)

// labelFlags are run's --name, --tag and --note: what a person calls the run, stored in the
// session apart from its configuration (sessions.Labels), so they never change which runs
// are seeds of one configuration.
type labelFlags struct {
	name, note string
	tags       []string
}

func (l *labelFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&l.name, "name", "", "a `NAME` for the run, shown by ls and the pickers and used as its legend label (not a setting: `windtunnel tag` changes it later)")
	fs.StringSliceVar(&l.tags, "tag", nil, "tag the run (`TAG`; repeat it or separate with commas): ls --where tag=TAG finds it")
	fs.StringVar(&l.note, "note", "", "a free-text `NOTE` kept with the run (ls --json, info)")
}

// labels are the flags as the session's labels, checked (a bad one is a usage error).
func (l *labelFlags) labels() (sessions.Labels, error) {
	out, err := sessions.NewLabels(l.name, l.note, l.tags)
	if err != nil {
		return out, usagef("run: --name/--tag/--note: %v", err)
	}
	return out, nil
}

// apply stores the labels in the run's new session (nothing when none are given).
func (l *labelFlags) apply(run *launch.Run) error {
	ls, err := l.labels()
	if err != nil || ls.Empty() {
		return err
	}
	return run.Writer.SetLabels(ls)
}

func newTagCmd(stdout io.Writer) *cobra.Command {
	var e sessions.Edit
	var remove []string
	c := &cobra.Command{
		Use:   "tag RUN [TAG...]",
		Short: "Name, tag or annotate a run, live or finished, without touching its records",
		Long: "tag adds the TAGs to the run's labels, and with --name, --note and --remove changes its name and\n" +
			"note and drops tags; it prints the labels. RUN is a session file, or a prefix or unique part of a\n" +
			"live run's session name. Labels are kept in the session apart from its records and configuration:\n" +
			"ls shows them (--where tag=TAG, --where name=NAME), replay's overlay, plot and report use a run's\n" +
			"name as its label. A finished session is edited under its lock (refused while a run resumes it);\n" +
			"a live run's, beside its writer (a run on another host: tag it there).",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("%s takes a run (a session file) and the tags to add", commandName(c))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			if fi, err := os.Stat(path); err != nil || fi.IsDir() {
				run, perr := pickRun(cmd.Context(), path)
				if perr != nil {
					return usagef("tag: %s: neither a session file nor a live run (%v)", path, perr)
				}
				path = run.Hello.Meta.Path
			}
			fs := cmd.Flags()
			e.SetName, e.SetNote = fs.Changed("name"), fs.Changed("note")
			e.Add = args[1:]
			e.Remove = remove
			if err := (sessions.Labels{Name: e.Name, Tags: append(append([]string{}, e.Add...), e.Remove...), Note: e.Note}).Check(); err != nil {
				return usagef("tag: %v", err)
			}
			l, err := sessions.Relabel(path, e)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(stdout, index.LabelsLine(path, l))
			return err
		},
	}
	fs := c.Flags()
	fs.StringVar(&e.Name, "name", "", "set the run's `NAME` (\"\" clears it)")
	fs.StringVar(&e.Note, "note", "", "set the run's `NOTE` (\"\" clears it)")
	fs.StringSliceVar(&remove, "remove", nil, "drop the `TAG` (repeat it or separate with commas)")
	return c
}
