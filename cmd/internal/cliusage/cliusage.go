package cliusage

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windtunnel/sessions/runconfig"
)

// Error marks a bad command line (windtunnel exits 2 on one): Err says what was wrong.
type Error struct{ Err error }

func (u Error) Error() string { return u.Err.Error() }
func (u Error) Unwrap() error { return u.Err }

// Errorf formats a usage Error.
func Errorf(format string, a ...any) error { return Error{fmt.Errorf(format, a...)} }

// CommandName is c's path without the program's name ("run", "" for the root), the prefix
// of its errors (run prints "windtunnel: " before every one).
func CommandName(c *cobra.Command) string {
	if !c.HasParent() {
		return ""
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

// The messages pflag v1.0.5 gives for a bad command line (it has no error types).
var (
	reUnknownFlag  = regexp.MustCompile(`^unknown flag: --(.+)$`)
	reUnknownShort = regexp.MustCompile(`^unknown shorthand flag: '(.)' in -(.*)$`)
	reInvalidValue = regexp.MustCompile(`^invalid argument (".*") for "(?:-[^,]+, )?--([^"]+)" flag: (.*)$`)
	reNeedsValue   = regexp.MustCompile(`^flag needs an argument: (?:'(.)' in -|-?-)(.+)$`)
)

// FlagError rewrites a flag-parsing error of c as a usage error that reads as the project's
// own: the command's name once, the flag, and what was meant — the closest flag for an
// unknown one ("run: unknown flag --step (did you mean --steps?)"), what a value must be for
// a bad one ("run: --steps abc: want a whole number"). On the root a word before the first
// flag is an unknown command.
func FlagError(c *cobra.Command, err error) error {
	if !c.HasParent() {
		if args := c.Flags().Args(); len(args) > 0 {
			return UnknownCommand(c, args[0])
		}
	}
	prefix := ""
	if n := CommandName(c); n != "" {
		prefix = n + ": "
	}
	msg := err.Error()
	var names []string
	visit := func(fl *pflag.Flag) {
		if !fl.Hidden {
			names = append(names, fl.Name)
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	hint := func(name string) string {
		if s := runconfig.Closest(name, names); s != "" {
			return " (did you mean --" + s + "?)"
		}
		return " (" + c.CommandPath() + " --help lists the flags)"
	}
	if m := reUnknownFlag.FindStringSubmatch(msg); m != nil {
		name, _, _ := strings.Cut(m[1], "=")
		return Errorf("%sunknown flag --%s%s", prefix, name, hint(name))
	}
	if m := reUnknownShort.FindStringSubmatch(msg); m != nil {
		// -steps reads as the shorthands s, t, e...: suggest the long flag it resembles.
		word, _, _ := strings.Cut(m[2], "=")
		return Errorf("%sunknown flag -%s%s", prefix, word, hint(word))
	}
	if m := reInvalidValue.FindStringSubmatch(msg); m != nil {
		value, uerr := strconv.Unquote(m[1])
		if uerr != nil {
			value = m[1]
		}
		want := "a valid value"
		if fl := c.Flags().Lookup(m[2]); fl != nil {
			want = ValueWant(fl.Value.Type())
		}
		if strings.Contains(m[3], "out of range") {
			want += " in range"
		}
		return Errorf("%s--%s %s: want %s", prefix, m[2], strconv.Quote(value), want)
	}
	if m := reNeedsValue.FindStringSubmatch(msg); m != nil {
		if m[1] != "" { // a shorthand
			return Errorf("%s-%s needs a value", prefix, m[1])
		}
		return Errorf("%s--%s needs a value", prefix, m[2])
	}
	return Errorf("%s%s", prefix, msg)
}

// ValueWant describes the values a pflag type takes.
func ValueWant(typ string) string {
	switch typ {
	case "int", "int64", "int32":
		return "a whole number"
	case "uint64", "uint", "uint32":
		return "a whole number ≥ 0"
	case "float64", "float32":
		return "a number"
	case "bool":
		return "true or false"
	case "duration":
		return "a duration such as 500ms, 3s or 2m"
	case "intSlice":
		return "whole numbers separated by commas"
	case "stringSlice", "stringArray":
		return "text"
	}
	return "a " + typ
}

// UnknownCommand is the usage error for a command name root does not have, with the
// closest one.
func UnknownCommand(root *cobra.Command, name string) error {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			names = append(names, c.Name())
		}
	}
	if s := runconfig.Closest(name, names); s != "" {
		return Errorf("unknown command %q (did you mean %s?)", name, s)
	}
	return Errorf("unknown command %q (%s --help lists the commands)", name, root.Name())
}

// MisspeltSubcommand is the usage error for a command whose first argument is no file and
// reads as a misspelt subcommand of it (`sweep statu DIR`: did you mean sweep status?); nil
// otherwise.
func MisspeltSubcommand(c *cobra.Command, args []string) error {
	if len(args) == 0 || len(c.Commands()) == 0 {
		return nil
	}
	if _, err := os.Stat(args[0]); err == nil {
		return nil
	}
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	if s := runconfig.Closest(args[0], names); s != "" {
		return Errorf("%s: unknown command %q (did you mean %s %s?)", CommandName(c), args[0], CommandName(c), s)
	}
	return nil
}
