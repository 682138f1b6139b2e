package main

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// readmeCommandList returns the lines of README.md's command list (the indented block
// under "## Commands"), each continuation line joined to the line of its command.
func readmeCommandList(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## Commands\n")
	if !ok {
		t.Fatal("README.md has no ## Commands section")
	}
	var lines []string
	started := false
	for _, l := range strings.Split(rest, "\n") {
		switch {
		case strings.HasPrefix(l, "    windtunnel"):
			lines, started = append(lines, strings.TrimSpace(l)), true
		case started && strings.HasPrefix(l, "    ") && strings.TrimSpace(l) != "":
			lines[len(lines)-1] += " " + strings.TrimSpace(l)
		case started && strings.TrimSpace(l) != "":
			return lines
		}
	}
	return lines
}

// TestReadmeCommandList: every command of the tree (cobra's help and completion too) has a
// line in README.md's command list, every line names a command, and every flag a line
// names is one that command takes.
func TestReadmeCommandList(t *testing.T) {
	root := newRoot(io.Discard, io.Discard)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	lines := readmeCommandList(t)
	if len(lines) < 10 {
		t.Fatalf("README's command list has %d lines:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	byName := map[string]*cobra.Command{}
	for _, c := range root.Commands() {
		if c.Hidden {
			continue
		}
		byName[c.Name()] = c
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l+" ", "windtunnel "+c.Name()+" ")
		}
		if !found {
			t.Errorf("README.md's command list lacks `windtunnel %s` (%s)", c.Name(), c.Short)
		}
	}
	flagRe := regexp.MustCompile(`(?:^|[\s\[|])--([a-z][a-z0-9-]*)`)
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 || strings.HasPrefix(f[1], "(") {
			continue // the bare program
		}
		c, ok := byName[f[1]]
		if !ok {
			t.Errorf("README lists `windtunnel %s`, which is no command", f[1])
			continue
		}
		if len(f) > 2 { // a subcommand (`windtunnel sweep status DIR`) takes its own flags
			for _, sub := range c.Commands() {
				if sub.Name() == f[2] {
					c = sub
				}
			}
		}
		c.InitDefaultHelpFlag()
		for _, m := range flagRe.FindAllStringSubmatch(l, -1) {
			if c.Flags().Lookup(m[1]) == nil && c.InheritedFlags().Lookup(m[1]) == nil {
				t.Errorf("README's `windtunnel %s` names --%s, which it does not take", c.Name(), m[1])
			}
		}
	}
}

// TestFlagValueNames: no flag's help quotes text in backquotes that pflag would show as
// its value's name (a name with spaces, as "--config windtunnel info --config").
func TestFlagValueNames(t *testing.T) {
	root := newRoot(io.Discard, io.Discard)
	for _, c := range root.Commands() {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if name, _ := pflag.UnquoteUsage(fl); strings.ContainsAny(name, " -") {
				t.Errorf("%s --%s shows its value as %q", c.Name(), fl.Name, name)
			}
		})
	}
}

// TestReadmeSynopsisDefaults: where README.md's command list shows a flag with one literal
// value in brackets (`[--seeds 1]`, `[--preset quick]`), that value is the flag's default
// (it showed `compare … [--seeds 3]` where the default is 1); placeholders (`[--out DIR]`),
// lists and choices are not values.
func TestReadmeSynopsisDefaults(t *testing.T) {
	root := newRoot(io.Discard, io.Discard)
	byName := map[string]*cobra.Command{}
	for _, c := range root.Commands() {
		byName[c.Name()] = c
	}
	opt := regexp.MustCompile(`\[--([a-z][a-z0-9-]*) ([^\]\s|,.]*[a-z0-9][^\]\s|,]*)\]`)
	checked := 0
	for _, l := range readmeCommandList(t) {
		f := strings.Fields(l)
		c, ok := byName[f[1]]
		if !ok || len(f) < 2 {
			continue
		}
		if len(f) > 2 {
			for _, sub := range c.Commands() {
				if sub.Name() == f[2] {
					c = sub
				}
			}
		}
		for _, m := range opt.FindAllStringSubmatch(l, -1) {
			fl := c.Flags().Lookup(m[1])
			if fl == nil || strings.ToUpper(m[2]) == m[2] && strings.ContainsAny(m[2], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				continue // a placeholder, or a flag TestReadmeCommandList reports
			}
			checked++
			if d, err := time.ParseDuration(m[2]); err == nil && d.String() == fl.DefValue {
				continue // 5m for 5m0s
			}
			if m[2] != fl.DefValue {
				t.Errorf("README's `windtunnel %s` shows [--%s %s]; its default is %q", c.Name(), m[1], m[2], fl.DefValue)
			}
		}
	}
	if checked == 0 {
		t.Error("no [--flag value] checked in README's command list")
	}
}

// TestReadmeGoVersion: the Go the README asks for is the one go.mod needs.
func TestReadmeGoVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range regexp.MustCompile(`Go ≥ ([0-9][0-9.]*[0-9])`).FindAllSubmatch(readme, -1) {
		if string(got[1]) != string(m[1]) {
			t.Errorf("README asks for Go ≥ %s; go.mod needs %s", got[1], m[1])
		}
	}
}
