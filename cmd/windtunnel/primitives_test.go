package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions/reports"
)

// TestPrimitivesEndToEnd runs a tiny primitives table (the MLP on bijection and recall, one
// seed, a few steps) in a fresh folder: the table, its JSON, the report and its figures are
// written, the table's figure and each task's curves among them; a second invocation trains nothing and writes the same table.
func TestPrimitivesEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two short runs")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "prim")
	args := []string{"primitives", "--tasks", "bijection,recall", "--models", "mlp", "--seeds", "1", "--steps", "8", "--out", dir}
	code, out, errs := runCLI(args...)
	if code != 0 {
		t.Fatalf("primitives: exit %d\n%s\n%s", code, out, errs)
	}
	for _, s := range []string{"| belief accumulation | bijection | mlp |", "| random-access binding | recall | mlp |", "✗ 0/1", "1.107", "3.1 %"} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
	for _, name := range []string{reports.PrimitivesTable, reports.PrimitivesJSON, reports.FileName} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	if figs, _ := filepath.Glob(filepath.Join(dir, "fig", "*.png")); len(figs) == 0 {
		t.Errorf("no figure in %s/fig", dir)
	}
	if md, err := os.ReadFile(filepath.Join(dir, reports.PrimitivesTable)); err != nil || !strings.Contains(string(md), "](fig/primitives.png)") {
		t.Errorf("the table does not show its figure (%v)", err)
	}
	for _, name := range []string{"primitives.png", "primitives-bijection.png", "primitives-recall.png"} {
		if fi, err := os.Stat(filepath.Join(dir, "fig", name)); err != nil || fi.Size() == 0 {
			t.Errorf("fig/%s not written: %v", name, err)
		}
	}
	if md, err := os.ReadFile(filepath.Join(dir, reports.PrimitivesTable)); err != nil || !strings.Contains(string(md), "](fig/primitives-recall.png)") {
		t.Errorf("the table does not show the recall curves (%v)", err)
	}
	var js struct {
		Cells []struct {
			Task, Verdict string
			Steps         int
			PassStep      int `json:"pass_step"`
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, reports.PrimitivesJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Cells) != 2 || js.Cells[0].Task != "bijection" || js.Cells[0].Verdict != "✗" || js.Cells[0].Steps != 8 || js.Cells[0].PassStep != -1 {
		t.Errorf("cells: %+v", js.Cells)
	}
	code, out2, errs2 := runCLI(args...)
	if code != 0 || !strings.Contains(errs2, "all 2 points done") || strings.Contains(errs2, "training") {
		t.Fatalf("second primitives: exit %d, want nothing trained:\n%s", code, errs2)
	}
	if out2 != out {
		t.Errorf("the second table differs:\n%s\nvs\n%s", out, out2)
	}
	if code, _, errs := runCLI("primitives", "--budget", "huge"); code != 2 || !strings.Contains(errs, "--budget") {
		t.Errorf("--budget huge: exit %d, %q", code, errs)
	}
}

// TestPrimitivesPartial: a grid interrupted with runs left still writes the table of the runs
// finished, says it is partial and ends with the interruption's error; --no-train writes the
// same table, training nothing, and exits 0.
func TestPrimitivesPartial(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a short run")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "prim")
	args := []string{"primitives", "--tasks", "bijection", "--models", "mlp", "--steps", "8", "--out", dir}
	if code, out, errs := runCLI(append(args, "--seeds", "1")...); code != 0 {
		t.Fatalf("primitives: exit %d\n%s\n%s", code, out, errs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the second seed never starts
	var out, errs bytes.Buffer
	f := primitivesFlags{budget: "quick", seeds: 2, out: dir, jobs: 1, tasks: "bijection", models: "mlp", steps: 8}
	err := runPrimitives(ctx, f, &out, &errs)
	if err == nil || !strings.Contains(err.Error(), "interrupted after 1 of 2 runs") {
		t.Fatalf("err %v, want the interruption\n%s", err, errs.String())
	}
	md, rerr := os.ReadFile(filepath.Join(dir, reports.PrimitivesTable))
	if rerr != nil || !strings.Contains(string(md), "partial: 1 of 2 runs finished") || !strings.Contains(string(md), "| bijection | mlp |") {
		t.Errorf("the partial table (%v):\n%s", rerr, md)
	}
	if !strings.Contains(out.String(), "| belief accumulation | bijection | mlp |") {
		t.Errorf("the partial table was not printed:\n%s", out.String())
	}
	// --no-train: the same table, nothing trained, no failure.
	code, out2, errs2 := runCLI("primitives", "--tasks", "bijection", "--models", "mlp", "--steps", "8", "--out", dir, "--seeds", "2", "--no-train")
	if code != 0 || strings.Contains(errs2, "training") || out2 != out.String() {
		t.Errorf("--no-train: exit %d, want 0, nothing trained and the same table:\n%s\n%s", code, out2, errs2)
	}
	if code, _, errs := runCLI("primitives", "--tasks", "hmm", "--models", "mlp", "--steps", "8", "--out", filepath.Join(t.TempDir(), "new"), "--no-train"); code != 1 || !strings.Contains(errs, "no table yet") {
		t.Errorf("--no-train on a new folder: exit %d, %q", code, errs)
	}
}
