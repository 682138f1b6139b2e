package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/tui/sshserve"
)

// TestBitErrorWording (issue 44 item 14): every place that says which bit error is which —
// the README and the documents under docs/, the dashboard's legend, compare's footer, the report — says the same: (a), per
// position, is the paper's headline; (b), per sample, is what the authors' code reports.
// compare's footer called (b) "the authors' headline" where the dashboard called (a) "the
// paper's headline".
func TestBitErrorWording(t *testing.T) {
	root := "../.."
	texts := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasSuffix(path, "_test.go") || !(strings.HasSuffix(path, ".go") || path == filepath.Join(root, "README.md") ||
			filepath.Dir(path) == filepath.Join(root, "docs") && strings.HasSuffix(path, ".md")) {
			return nil
		}
		b, err := os.ReadFile(path)
		texts[path] = strings.Join(strings.Fields(string(b)), " ") // sentences across lines
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for path, s := range texts {
		for _, bad := range []string{"authors' headline"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s says %q", path, bad)
			}
		}
		// "headline" said of a bit error names (a): the nearest (a) or (b) before it is (a).
		for i := strings.Index(s, "headline"); i >= 0; i = next(s, i) {
			before := strings.ReplaceAll(s[max(0, i-160):i], "(a) and (b)", "both") // names neither
			a, b := strings.LastIndex(before, "(a)"), strings.LastIndex(before, "(b)")
			if b > a {
				t.Errorf("%s calls (b) a headline: …%s…", path, s[max(0, i-160):min(len(s), i+20)])
			}
		}
	}
	for _, c := range []struct{ path, want string }{
		{"sessions/derived/table.go", "(a) is the per-position bit error, the paper's headline; (b)* the per-sample one, what the authors' code reports"},
		{"tui/help.go", "the paper's headline"},
		{"tui/help.go", "what the authors' retrain code reports"},
		{"sessions/reports/departures.go", "the paper's headline; the authors' code reports (b)"},
		{"docs/paper1.md", "(a) is the paper's headline, (b) what the authors' code reports"},
	} {
		if !strings.Contains(texts[filepath.Join(root, c.path)], c.want) {
			t.Errorf("%s does not say %q", c.path, c.want)
		}
	}
}

// next is the index of the next "headline" after i, or -1.
func next(s string, i int) int {
	j := strings.Index(s[i+1:], "headline")
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// TestReadmeSetup (issue 44 item 14): the README builds the binary before any command runs
// it, and docs/usage.md says where serve creates its host key — where sshserve.DefaultHostKey
// puts it, whatever --authorized-keys names (it said "beside the keys file").
func TestReadmeSetup(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	install, firstRun := strings.Index(readme, "go install ./cmd/windtunnel"), strings.Index(readme, "    windtunnel run")
	if install < 0 || firstRun < 0 || install > firstRun || !strings.Contains(readme, "$(go env GOPATH)/bin") {
		t.Errorf("the README runs windtunnel (at %d) before it installs it (at %d), or does not say where it lands", firstRun, install)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	p, err := sshserve.DefaultHostKey()
	if err != nil {
		t.Fatal(err)
	}
	usage, err := os.ReadFile("../../docs/usage.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := strings.Replace(p, home, "~", 1)
	if !strings.Contains(string(usage), "`"+documented+"`") || strings.Contains(string(usage), "beside the keys file") {
		t.Errorf("docs/usage.md does not say serve creates its host key in %s", documented)
	}
}
