package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"windtunnel/lab/sweep"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// TestCompareReuseAndFrom trains a small comparison on the sweep engine, runs it again
// (nothing is trained twice) and rebuilds the table from the folder with --from.
func TestCompareReuseAndFrom(t *testing.T) {
	if testing.Short() {
		t.Skip("trains four short runs")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cmp")
	args := []string{"compare", "--tasks", "bijection", "--models", "mlp,mlp-prefix", "--seeds", "2", "--steps", "12", "--out", dir}
	code, out, errs := runCLI(args...)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s\n%s", code, out, errs)
	}
	for _, s := range []string{"mlp 0/1", "(b)*", "paper", "FAIL 0/2"} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
	if !strings.Contains(errs, "4 runs (1 task × 2 models × 2 seeds") { // not "1 tasks"
		t.Errorf("the plan's counts:\n%s", errs)
	}
	if !strings.Contains(errs, "4/4 done") || !strings.Contains(errs, "bijection-mlp-prefix-seed=2 done") {
		t.Errorf("no progress of the points:\n%s", errs)
	}
	if _, err := sweep.Read(dir); err != nil {
		t.Errorf("the folder is not a sweep's: %v", err)
	}
	code, out2, errs2 := runCLI(args...)
	if code != 0 || !strings.Contains(errs2, "all 4 points done") || strings.Contains(errs2, "training") {
		t.Fatalf("second compare: exit %d, want nothing trained:\n%s", code, errs2)
	}
	if tail := func(s string) string { return s[strings.Index(s, "\n"):] }; tail(out) != tail(out2) {
		t.Errorf("reused table differs:\n%s\nvs\n%s", out, out2)
	}
	code, js, errs3 := runCLI("compare", "--from", dir, "--json")
	if code != 0 {
		t.Fatalf("compare --from: exit %d\n%s", code, errs3)
	}
	var v struct {
		Cells []struct {
			Task, Model string
			Seeds       []int
		}
	}
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cells) != 2 || v.Cells[0].Model != "mlp" || len(v.Cells[0].Seeds) != 2 || v.Cells[1].Model != "mlp-prefix" {
		t.Errorf("--from cells: %+v", v.Cells)
	}
	if code, _, errs := runCLI("compare", "--from", filepath.Join(dir, "none")); code != 2 || !strings.Contains(errs, "--from") {
		t.Errorf("--from a missing folder: exit %d, %q", code, errs)
	}
}

// TestCompareIsRun: a compare point is the run `windtunnel run` makes from the same flags
// (issue 41): the configuration compare plans for it is the one run builds (evaluated at
// run's cadence for its steps, the prefix MLP's input included), and compare --from over
// the two sessions shows one configuration, the two sessions one replicate whose copies
// agree. The sessions are written without training (sessiontest) from the configurations
// the two command lines would train.
func TestCompareIsRun(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "cmp")
	point := filepath.Join(dir, "bijection-mlp-seed=1.wtlab")
	cc := writePlanned(t, "compare", "--tasks", "bijection", "--models", "mlp", "--seeds", "1", "--steps", "24", "--out", dir)[point]
	ran := filepath.Join(dir, "run.wtlab")
	rc := writePlanned(t, "run", "--headless", "--model", "mlp", "--steps", "24", "--seed", "1", "--out", ran)[ran]
	if cc.Steps != 24 || cc.EvalEvery != rc.EvalEvery || cc.Steps != rc.Steps || cc.Model != rc.Model || cc.PrefixMLP != rc.PrefixMLP {
		t.Errorf("compare plans %d steps evaluated every %d (%s, %+v), run %d every %d (%s, %+v)",
			cc.Steps, cc.EvalEvery, cc.Model, cc.PrefixMLP, rc.Steps, rc.EvalEvery, rc.Model, rc.PrefixMLP)
	}
	read := func(path string) (sessions.Meta, []int) {
		r, err := sessions.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		evals, err := r.Evals(-1, 0)
		if err != nil {
			t.Fatal(err)
		}
		var steps []int
		for _, e := range evals {
			steps = append(steps, e.Step)
		}
		return r.Meta(), steps
	}
	cm, csteps := read(point)
	rm, rsteps := read(ran)
	if !slices.Equal(csteps, rsteps) || len(csteps) < 12 {
		t.Errorf("evaluated at steps %v by compare, %v by run", csteps, rsteps)
	}
	ck, err := derived.Key(cm)
	if err != nil {
		t.Fatal(err)
	}
	rk, err := derived.Key(rm)
	if err != nil {
		t.Fatal(err)
	}
	if ck != rk {
		d, _ := derived.Differences(cm.Config, rm.Config)
		t.Errorf("compare's and run's sessions are different configurations: %v", d)
	}
	// One configuration and one seed: the two sessions are copies of one replicate (issue
	// 49), counted once, and recorded alike they agree.
	code, js, errs := runCLI("compare", "--from", dir, "--json")
	var v struct {
		Cells []struct {
			Seeds  []int
			Copies []string
		}
	}
	if code != 0 || json.Unmarshal([]byte(js), &v) != nil || len(v.Cells) != 1 || len(v.Cells[0].Seeds) != 1 ||
		len(v.Cells[0].Copies) != 1 || !strings.Contains(v.Cells[0].Copies[0], "a copy of seed 1") || strings.Contains(v.Cells[0].Copies[0], "disagree") {
		t.Errorf("compare --from: exit %d, %s %s", code, js, errs)
	}
}
