package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareReuseAndFrom trains a small comparison, runs it again (every session is
// reused, nothing retrains) and rebuilds the table from the folder with --from.
func TestCompareReuseAndFrom(t *testing.T) {
	if testing.Short() {
		t.Skip("trains four short runs")
	}
	dir := filepath.Join(t.TempDir(), "cmp")
	args := []string{"compare", "--tasks", "bijection", "--models", "transformer,lstm", "--seeds", "2", "--steps", "12", "--out", dir}
	code, out, errs := runCLI(args...)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s\n%s", code, out, errs)
	}
	for _, s := range []string{"transformer 0/1", "(b)*", "paper", "FAIL 0/2"} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
	if !strings.Contains(errs, "runs left, about") {
		t.Errorf("no ETA in the progress:\n%s", errs)
	}
	code, out2, errs2 := runCLI(args...)
	if code != 0 || strings.Count(errs2, "(reused ") != 4 || strings.Contains(errs2, "steps)\n") {
		t.Fatalf("second compare: exit %d, want every run reused:\n%s", code, errs2)
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
	if len(v.Cells) != 2 || v.Cells[0].Model != "transformer" || len(v.Cells[0].Seeds) != 2 || v.Cells[1].Model != "lstm" {
		t.Errorf("--from cells: %+v", v.Cells)
	}
	if code, _, errs := runCLI("compare", "--from", filepath.Join(dir, "none")); code != 2 || !strings.Contains(errs, "--from") {
		t.Errorf("--from a missing folder: exit %d, %q", code, errs)
	}
}
