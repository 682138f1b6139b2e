package derived

import (
	"strings"
	"testing"

	"windtunnel/diagnostics"
	"windtunnel/sessions/runconfig"
)

// TestCompareTableConfigurations: runs of one task and model in two configurations (one
// 3,000-step run, three 300-step seeds) make two cells, each with its own seeds and pass
// count, named by what differs; the seeds of one configuration pool.
func TestCompareTableConfigurations(t *testing.T) {
	quick, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	run := func(steps int, seed uint64, workers int, a float64) RunScore {
		c := quick
		c.Model, c.Steps, c.Seed, c.Workers = "transformer", steps, seed, workers
		key, err := KeyOf(c)
		if err != nil {
			t.Fatal(err)
		}
		return RunScore{Task: "bijection", Model: "transformer", Seed: seed, Params: 100, Key: key,
			Scores: diagnostics.Scores{BitErrorPosition: a}}
	}
	runs := []RunScore{run(3000, 1, 2, 0.05), run(300, 1, 2, 0.9), run(300, 2, 1, 1.0), run(300, 3, 4, 0.1)}
	cells := Table(runs, []string{"bijection"}, []string{"transformer"})
	if len(cells) != 2 {
		t.Fatalf("%d cells, want 2 (one per configuration)", len(cells))
	}
	if c := cells[0]; len(c.Seeds) != 1 || c.SeedsPassed != 1 || !c.Pass || c.Config != "steps 3000" {
		t.Errorf("3,000-step cell: seeds %v, %d passed, pass %v, config %q", c.Seeds, c.SeedsPassed, c.Pass, c.Config)
	}
	if c := cells[1]; len(c.Seeds) != 3 || c.SeedsPassed != 1 || c.Pass || c.Config != "steps 300" {
		t.Errorf("300-step cell: seeds %v, %d passed, pass %v, config %q", c.Seeds, c.SeedsPassed, c.Pass, c.Config)
	}
	if s, common := TableSeeds(cells); common || s != "per row" {
		t.Errorf("TableSeeds = %q, %v; want per row", s, common)
	}
	out := FormatTable(cells)
	for _, s := range []string{"pass 1/1", "FAIL 1/3", "[steps 3000; seeds 1]", "[steps 300; seeds 1..3]", "transformer 1/2 configurations"} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
}

func TestCompareSeedsLabel(t *testing.T) {
	for _, c := range []struct {
		in   []uint64
		want string
	}{{nil, "none"}, {[]uint64{3}, "3"}, {[]uint64{3, 1, 2}, "1..3"}, {[]uint64{1, 4, 7}, "1, 4, 7"}} {
		if got := SeedsLabel(c.in); got != c.want {
			t.Errorf("SeedsLabel(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
