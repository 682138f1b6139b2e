package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"

	"windtunnel/sessions"
	"windtunnel/sessions/figures"
	"windtunnel/tui/overlay"
)

// writeGroupRun writes a finished fake quick-preset session of the transformer on bijection
// trained for steps with seed on workers, whose final bit error (a) is bitA; it returns the
// session's Meta.
func writeGroupRun(t *testing.T, dir string, steps int, seed uint64, workers int, bitA float64) sessions.Meta {
	t.Helper()
	cfg, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model, cfg.Steps, cfg.Seed, cfg.Workers = "transformer", steps, seed, workers
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("bijection-transformer-%05d-s%d.wtlab", steps, seed)) // name order: 300 first
	meta := sessions.Meta{Task: "bijection", Model: "transformer", Params: 1000, Steps: steps, Layers: 4, Heads: 4, Config: raw}
	w, err := sessions.Create(path, meta, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []int{steps / 2, steps} {
		st := sessions.Training
		if step == steps {
			st = sessions.Done
		}
		w.Record(sessions.Record{Step: step, WallS: float64(step) / 100, State: st,
			Eval: &sessions.Eval{BitErrorPosition: bitA, BitErrorSample: bitA, KLBits: bitA / 2, Accuracy: 0.5}})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	meta.Path = path
	return meta
}

// groupFolder is one folder with two configurations: seeds 1 and 2 at 300 steps (one
// passing) and seed 1 at 3,000 steps on another worker count (passing).
func groupFolder(t *testing.T) (string, []sessions.Meta) {
	t.Helper()
	dir := t.TempDir()
	metas := []sessions.Meta{
		writeGroupRun(t, dir, 300, 1, 2, 0.9),
		writeGroupRun(t, dir, 300, 2, 1, 0.1),
		writeGroupRun(t, dir, 3000, 1, 4, 0.05),
	}
	return dir, metas
}

// TestGroupReadersAgree: compare --from, report, plot and the overlay each see the folder's
// two configurations as two groups with their own n (2 and 1) and pass counts.
func TestGroupReadersAgree(t *testing.T) {
	dir, metas := groupFolder(t)

	code, out, errs := runCLI("compare", "--from", dir)
	if code != 0 {
		t.Fatalf("compare --from: exit %d\n%s", code, errs)
	}
	for _, s := range []string{"seeds per row", "FAIL 1/2", "[steps 300; seeds 1..2]", "pass 1/1", "[steps 3000; seeds 1]"} {
		if !strings.Contains(out, s) {
			t.Errorf("compare --from lacks %q:\n%s", s, out)
		}
	}
	code, js, errs := runCLI("compare", "--from", dir, "--json")
	if code != 0 {
		t.Fatalf("compare --from --json: exit %d\n%s", code, errs)
	}
	var v struct{ Cells []derived.Cell }
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cells) != 2 || len(v.Cells[0].Seeds) != 2 || v.Cells[0].SeedsPassed != 1 || len(v.Cells[1].Seeds) != 1 || v.Cells[1].SeedsPassed != 1 {
		t.Errorf("compare --from cells: %+v", v.Cells)
	}

	rep := filepath.Join(t.TempDir(), "rep")
	if code, _, errs := runCLI("report", dir, "--out", rep); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(rep, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"(bijection) [steps 300]", "(n=2)", "1/2 seeds pass", "(bijection) [steps 3000]", "(n=1)", "1/1 seeds pass",
		"steps: 300 vs 3000"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("report lacks %q", s)
		}
	}
	if strings.Contains(string(b), "(n=3)") {
		t.Error("report pools the two configurations (n=3)")
	}

	plots := filepath.Join(t.TempDir(), "plots")
	code, pj, errs := runCLI("plot", dir, "--out", plots, "--json", "--format", "svg")
	if code != 0 {
		t.Fatalf("plot: exit %d\n%s", code, errs)
	}
	var files []figures.File
	if err := json.Unmarshal([]byte(pj), &files); err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, f := range files {
		titles[f.Name] = f.Title
	}
	// Titles name each configuration by what differs, then its seeds.
	if t1, t2 := titles["bijection-transformer-1-errors.svg"], titles["bijection-transformer-2-errors.svg"]; !strings.HasPrefix(t1, "bijection transformer, steps 300:") ||
		!strings.HasSuffix(t1, "(2 seeds)") || !strings.HasPrefix(t2, "bijection transformer, steps 3000:") || !strings.HasSuffix(t2, "(seed 1)") {
		t.Errorf("plot's groups: %v", titles)
	}
	if tb, err := os.ReadFile(filepath.Join(plots, "table.svg")); err != nil || !strings.Contains(string(tb), "FAIL 1/2 seeds") || !strings.Contains(string(tb), "pass 1/1 seeds") {
		t.Errorf("table.svg: %v; want a band per configuration (FAIL 1/2 seeds, pass 1/1 seeds)", err)
	}

	if got := overlay.Groups(metas); !reflect.DeepEqual(got, [][]int{{0, 1}, {2}}) {
		t.Errorf("overlay groups %v, want [[0 1] [2]]", got)
	}
}

// TestGroupOverlayMatchesPlot feeds one folder to the overlay's grouping and to plot's
// (figures.Groups) and checks they form the same groups of sessions.
func TestGroupOverlayMatchesPlot(t *testing.T) {
	dir, _ := groupFolder(t)
	// A fourth run differing only in the cadences and BLAS joins the 300-step group.
	writeGroupRun(t, dir, 300, 3, 8, 0.2)
	runs, _, err := figures.LoadPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var plotGroups [][]string
	for _, g := range figures.Groups(runs) {
		var ps []string
		for _, r := range g.Runs {
			ps = append(ps, r.Path)
		}
		plotGroups = append(plotGroups, ps)
	}
	metas := make([]sessions.Meta, len(runs))
	for i, r := range runs {
		metas[i] = r.Meta
		metas[i].Path = r.Path
	}
	var overlayGroups [][]string
	for _, g := range overlay.Groups(metas) {
		var ps []string
		for _, i := range g {
			ps = append(ps, runs[i].Path)
		}
		overlayGroups = append(overlayGroups, ps)
	}
	if !reflect.DeepEqual(plotGroups, overlayGroups) {
		t.Errorf("plot groups %q\noverlay groups %q", plotGroups, overlayGroups)
	}
	if len(plotGroups) != 2 || len(plotGroups[0]) != 3 || len(plotGroups[1]) != 1 {
		t.Errorf("groups %q, want 3 runs at 300 steps and 1 at 3000", plotGroups)
	}
}
