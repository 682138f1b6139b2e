//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/models/llm"
	"windtunnel/sessions"
)

// TestOutputLinksRefused (issue 50 item 6): a report.md, a figure or a results.json planted
// as a symbolic link in an output folder was followed and the file it points to
// overwritten. Now every output the program writes into a folder the user names (plot's
// figures, report's report.md and figures, llm's results.json, figures and report.md, run's
// --predictions) refuses a link there, naming it, and leaves its target and the link as
// they were.
func TestOutputLinksRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs llm on a tiny model and a short run")
	}
	t.Parallel()
	const victimText = "precious\n"
	model := writeTinyLLM(t, llm.GPTNeoX)
	sessionDir := t.TempDir()
	steps := quickMLPSteps(t)
	writeQuickMLP(t, filepath.Join(sessionDir, "bijection-mlp-s1.wtlab"), sessions.Record{Step: steps, State: sessions.Done,
		Eval: &sessions.Eval{BitErrorPosition: 1.1073, BitErrorSample: 1.1073, Accuracy: 0.5}})
	for _, c := range []struct {
		name string
		link string // the planted link, in the output folder
		args func(out string) []string
	}{
		{"plot figure", "table.svg", func(out string) []string {
			return []string{"plot", "../../tui/testdata/fixture.wtlab", "--out", out, "--format", "svg"}
		}},
		{"report.md", "report.md", func(out string) []string { return []string{"report", sessionDir, "--out", out} }},
		{"report fig/", "fig", func(out string) []string { return []string{"report", sessionDir, "--out", out} }},
		{"llm results.json", "results.json", func(out string) []string { return []string{"llm", model, "--out", out, "--per-k", "2"} }},
		{"llm report.md", "report.md", func(out string) []string { return []string{"llm", model, "--out", out, "--per-k", "2"} }},
		{"llm figure", "llm-keys.png", func(out string) []string { return []string{"llm", model, "--out", out, "--per-k", "2"} }},
		{"run --predictions", "pred.jsonl", func(out string) []string {
			return append([]string{"run", "--headless", "--steps", "5", "--out", filepath.Join(out, "s.wtlab"), "--predictions", filepath.Join(out, "pred.jsonl")}, tinyRun...)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte(victimText), 0o600); err != nil {
				t.Fatal(err)
			}
			target := victim
			if c.link == "fig" { // a folder link: its target a folder of someone's files
				target = filepath.Dir(victim)
				defer func() {
					if ents, _ := os.ReadDir(target); len(ents) != 1 {
						t.Errorf("files were written into the linked folder: %d entries", len(ents))
					}
				}()
			}
			link := filepath.Join(out, c.link)
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			code, _, errs := runCLI(c.args(out)...)
			if code == 0 || !strings.Contains(errs, link) || !strings.Contains(errs, "symbolic link") {
				t.Errorf("exit %d, %q; want an error that %s is a symbolic link", code, errs, link)
			}
			if b, err := os.ReadFile(victim); err != nil || string(b) != victimText {
				t.Errorf("the link's target now holds %.40q (%v), want it untouched", b, err)
			}
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the planted link was removed or replaced: %v", err)
			}
		})
	}
}
