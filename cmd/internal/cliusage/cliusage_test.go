package cliusage

import (
	"errors"
	"testing"

	"github.com/spf13/cobra"
)

// tree is a root with a run command (an int flag --steps, a bool --json, a duration
// --poll) and a sweep command with a status subcommand.
func tree() (root, run, sw *cobra.Command) {
	root = &cobra.Command{Use: "windtunnel"}
	run = &cobra.Command{Use: "run", Run: func(*cobra.Command, []string) {}}
	run.Flags().Int("steps", 100, "")
	run.Flags().Bool("json", false, "")
	run.Flags().Duration("poll", 0, "")
	sw = &cobra.Command{Use: "sweep", Run: func(*cobra.Command, []string) {}}
	sw.AddCommand(&cobra.Command{Use: "status", Run: func(*cobra.Command, []string) {}})
	root.AddCommand(run, sw)
	return root, run, sw
}

// TestFlagError rewrites pflag's own messages for bad command lines, each as a usage Error
// naming the command once: the closest flag for an unknown one, what a value must be.
func TestFlagError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--step", "3"}, "run: unknown flag --step (did you mean --steps?)"},
		{[]string{"--zzzz"}, "run: unknown flag --zzzz (windtunnel run --help lists the flags)"},
		{[]string{"-steps"}, "run: unknown flag -steps (did you mean --steps?)"},
		{[]string{"--steps", "abc"}, `run: --steps "abc": want a whole number`},
		{[]string{"--poll", "soon"}, `run: --poll "soon": want a duration such as 500ms, 3s or 2m`},
		{[]string{"--steps"}, "run: --steps needs a value"},
	} {
		_, run, _ := tree()
		err := run.ParseFlags(tc.args)
		if err == nil {
			t.Fatalf("%v parsed", tc.args)
		}
		got := FlagError(run, err)
		var u Error
		if got.Error() != tc.want || !errors.As(got, &u) {
			t.Errorf("%v: %q (usage error %v), want %q", tc.args, got, errors.As(got, &u), tc.want)
		}
	}
}

// TestCommands: an unknown command with and without a close one; a misspelt subcommand, and
// an argument that is a file or far from every subcommand (no error: the command reads it).
func TestCommands(t *testing.T) {
	root, _, sw := tree()
	if got := UnknownCommand(root, "rnu").Error(); got != `unknown command "rnu" (did you mean run?)` {
		t.Errorf("rnu: %q", got)
	}
	if got := UnknownCommand(root, "xyzzy").Error(); got != `unknown command "xyzzy" (windtunnel --help lists the commands)` {
		t.Errorf("xyzzy: %q", got)
	}
	if got := MisspeltSubcommand(sw, []string{"statu"}); got == nil || got.Error() != `sweep: unknown command "statu" (did you mean sweep status?)` {
		t.Errorf("statu: %v", got)
	}
	if got := MisspeltSubcommand(sw, []string{t.TempDir()}); got != nil {
		t.Errorf("a folder: %v", got)
	}
	if got := MisspeltSubcommand(sw, []string{"runs/a-sweep-folder"}); got != nil {
		t.Errorf("a name far from status: %v", got)
	}
	if CommandName(root) != "" || CommandName(sw.Commands()[0]) != "sweep status" {
		t.Errorf("names %q, %q", CommandName(root), CommandName(sw.Commands()[0]))
	}
}
