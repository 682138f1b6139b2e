package figures

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPCAxis: numbers on a linear axis, on a log one when they span a factor of 20 or more,
// each of a few distinct values labelled; text as sorted categories, evenly spaced.
func TestPCAxis(t *testing.T) {
	const tol = 1e-9
	for _, c := range []struct {
		vals   []string
		v      string
		want   float64
		labels string
	}{
		{[]string{"1", "2", "3"}, "2", 0.5, "1 2 3"},
		{[]string{"1e-4", "1e-3", "1e-2"}, "1e-3", 0.5, "0.0001 0.001 0.01"},
		{[]string{"mlp", "lstm", "transformer"}, "mlp", 0.5, "lstm mlp transformer"},
		{[]string{"4", "4"}, "4", 0.5, "4"},
		{[]string{"a", "b"}, "c", math.NaN(), "a b"},
	} {
		a := pcAxisOf("x", c.vals)
		var labels []string
		for _, tk := range a.ticks {
			labels = append(labels, tk.Label)
		}
		got := a.at(c.v)
		if !(math.Abs(got-c.want) < tol || math.IsNaN(got) && math.IsNaN(c.want)) || strings.Join(labels, " ") != c.labels {
			t.Errorf("%v: %s at %v, labels %q; want %v, %q", c.vals, c.v, got, labels, c.want, c.labels)
		}
	}
}

// TestParallel: a figure of two settings and the metric at both sizes (written to
// $WT_FIG_DIR too, to look at), rows without a number for the metric left out, the best
// drawn last; no setting or no row is an error.
func TestParallel(t *testing.T) {
	axes := []string{"lr", "model", "kl_bits"}
	var rows [][]string
	for i, lr := range []string{"1e-4", "3e-4", "1e-3", "3e-3", "1e-2"} {
		for j, m := range []string{"transformer", "mamba", "lstm"} {
			kl := 0.05 + math.Abs(float64(i)-2.5)*0.4 + float64(j)*0.3
			rows = append(rows, []string{lr, m, fmt.Sprint(kl)})
		}
	}
	rows = append(rows, []string{"1e-3", "mlp", "NaN"})
	dir := t.TempDir()
	if d := os.Getenv("WT_FIG_DIR"); d != "" {
		dir = d
	}
	for _, sz := range [][2]int{{480, 300}, {960, 600}} {
		path := filepath.Join(dir, fmt.Sprintf("parallel-%dx%d.png", sz[0], sz[1]))
		if err := Parallel("sweep runs/lr: settings against kl_bits (minimize)", axes, rows, "minimize", path, Options{Width: sz[0], Height: sz[1]}); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Fatalf("%s: %v", path, err)
		}
	}
	if f, err := parallelFigure("t", axes, rows, "minimize"); err != nil || len(f.panels) != 2 || f.name != "sweep-parallel" {
		t.Fatalf("figure %+v, %v", f, err)
	}
	if _, err := parallelFigure("t", []string{"kl_bits"}, [][]string{{"1"}}, "minimize"); err == nil {
		t.Error("no setting: no error")
	}
	if _, err := parallelFigure("t", axes, [][]string{{"1", "a", "NaN"}}, "minimize"); err == nil {
		t.Error("no row with the metric: no error")
	}
}
