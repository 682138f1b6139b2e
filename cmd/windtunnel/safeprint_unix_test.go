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

// TestHostileNamesPrintedSafely (issue 50 item 5): a folder or file name is anyone's (a
// shell glob over a shared folder, a model folder downloaded) and may carry escape
// sequences; info, ls, plot, report and llm printed such names raw (a title set, a
// clipboard write through OSC 52). Now every one goes through sessions.SafeText.
func TestHostileNamesPrintedSafely(t *testing.T) {
	if testing.Short() {
		t.Skip("runs llm on a tiny model")
	}
	const evil = "evil\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07"
	base := t.TempDir()
	dir := filepath.Join(base, evil)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	session := filepath.Join(dir, "bijection-mlp-s1.wtlab")
	writeQuickMLP(t, session, sessions.Record{Step: quickMLPSteps(t), State: sessions.Done,
		Eval: &sessions.Eval{BitErrorPosition: 1.1073, BitErrorSample: 1.1073, Accuracy: 0.5}})
	model := filepath.Join(base, "model-"+evil)
	if err := os.Rename(writeTinyLLM(t, llm.GPTNeoX), model); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(base, "empty-"+evil)
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	for _, args := range [][]string{
		{"info", session},
		{"ls", "--dir", dir},
		{"ls", "--dir", filepath.Join(base, "missing-"+evil)}, // refused: no such folder
		{"ls", "--dir", empty},                                // no sessions in …
		{"plot", session, "--out", filepath.Join(base, "plots-"+evil), "--format", "svg"},
		{"report", dir, "--out", filepath.Join(base, "report-"+evil)},
		{"llm", model, "--out", filepath.Join(base, "llm-"+evil), "--experiments", "keys"},
	} {
		code, stdout, stderr := runCLI(args...)
		out := stdout + stderr
		if !strings.Contains(out, "evil") {
			t.Errorf("%s: exit %d, the name is not printed at all:\n%q", args[0], code, out)
		}
		if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x07") {
			t.Errorf("%s %s: exit %d, an escape sequence printed raw:\n%q", args[0], args[1], code, out)
		}
	}
}
