package figures

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// TestGroupsTwoConfigurations: two 300-step seeds and one 600-step run (on another worker
// count, which does not count) are two configurations: two groups named apart, each with its
// own seeds, and a table split in two bands with their own verdicts.
func TestGroupsTwoConfigurations(t *testing.T) {
	src := t.TempDir()
	writeHMMRun(t, filepath.Join(src, "a-long.wtlab"), 1, 600, 4)
	writeHMMRun(t, filepath.Join(src, "b-short-1.wtlab"), 1, 300, 2)
	writeHMMRun(t, filepath.Join(src, "c-short-2.wtlab"), 2, 300, 1)
	runs, _, err := LoadPaths([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	g := Groups(runs)
	if len(g) != 2 || len(g[0].Runs) != 1 || len(g[1].Runs) != 2 {
		t.Fatalf("groups: %d, want 2 (1 and 2 runs): %+v", len(g), g)
	}
	if g[0].Name != "hmm-transformer-1" || g[0].Label != "steps 600" || g[1].Name != "hmm-transformer-2" || g[1].Label != "steps 300" {
		t.Errorf("groups named %q %q, %q %q", g[0].Name, g[0].Label, g[1].Name, g[1].Label)
	}
	files, err := Render(runs, t.TempDir(), Options{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"hmm-transformer-1-errors.svg": {"hmm transformer, steps 600: bit error and KL vs step (seed 1)"},
		"hmm-transformer-2-errors.svg": {"hmm transformer, steps 300: bit error and KL vs step (2 seeds)"},
		"table.svg":                    {"steps 600", "pass 1/1 seeds", "steps 300", "pass 2/2 seeds"},
	}
	for _, f := range files {
		// A title names the configuration by what differs, not by its file's number.
		if f.Name != "table.svg" && (!strings.Contains(f.Title, "steps ") || strings.Contains(f.Title, "hmm-transformer")) {
			t.Errorf("%s: title %q does not name the configuration by its steps", f.Name, f.Title)
		}
		b, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range want[f.Name] {
			if !bytes.Contains(b, []byte(s)) && !bytes.Contains(b, []byte(xmlEscape(s))) {
				t.Errorf("%s: no %q", f.Name, s)
			}
		}
		delete(want, f.Name)
	}
	for name := range want {
		t.Errorf("no %s written", name)
	}
	if b, _ := os.ReadFile(filepath.Join(filepath.Dir(files[0].Path), "table.svg")); bytes.Contains(b, []byte("3 seeds")) {
		t.Error("table pools the two configurations")
	}
}

// TestGroupsNamed: runs all given one name (windtunnel tag --name) are labelled by it in
// the titles and legends, in place of what differs; the grouping is unchanged.
func TestGroupsNamed(t *testing.T) {
	src := t.TempDir()
	writeHMMRun(t, filepath.Join(src, "a-long.wtlab"), 1, 600, 4)
	writeHMMRun(t, filepath.Join(src, "b-short-1.wtlab"), 1, 300, 2)
	writeHMMRun(t, filepath.Join(src, "c-short-2.wtlab"), 2, 300, 1)
	for _, f := range []string{"b-short-1.wtlab", "c-short-2.wtlab"} {
		if _, err := sessions.Relabel(filepath.Join(src, f), sessions.Edit{SetName: true, Name: "short schedule"}); err != nil {
			t.Fatal(err)
		}
	}
	runs, _, err := LoadPaths([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	g := Groups(runs)
	if len(g) != 2 || len(g[1].Runs) != 2 || g[0].Label != "steps 600" || g[1].Label != "short schedule" {
		t.Fatalf("groups: %+v", g)
	}
	if h := heading(g[1]); h != "hmm transformer, short schedule" {
		t.Errorf("heading %q", h)
	}
}
