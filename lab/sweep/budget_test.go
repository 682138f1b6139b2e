package sweep

import (
	"slices"
	"strings"
	"testing"
)

// TestBudgetGrids: each task's grid carries its schedule as flags, the joined points are
// numbered in order and named as a compare grid's, and --steps replaces the schedule.
func TestBudgetGrids(t *testing.T) {
	quick, err := BudgetNamed("quick")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		steps    int
		wantArgs map[string][]string // point name → flags it must carry
		lacks    []string            // flags no point carries
	}{
		{"schedules", 0, map[string][]string{
			"bijection-mlp-seed=1": {"--task=bijection", "--preset=quick", "--steps=1500", "--eval-every=125", "--probe-every=750", "--seed=1"},
			"hmm-lstm-seed=2":      {"--task=hmm", "--steps=900", "--eval-every=75", "--probe-every=450", "--seed=2"},
			"recall-mlp-seed=2":    {"--task=recall", "--steps=10000", "--eval-every=250", "--probe-every=5000"},
		}, nil},
		{"steps given", 8, map[string][]string{
			"hmm-mlp-seed=1": {"--task=hmm", "--steps=8", "--seed=1"},
		}, []string{"--eval-every", "--probe-every"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var parts [][]Point
			for _, g := range quick.Grids([]string{"bijection", "hmm", "recall"}, []string{"mlp", "lstm"}, tc.steps, 2) {
				ps, err := g.Points()
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, ps)
			}
			points, err := JoinPoints(parts...)
			if err != nil {
				t.Fatal(err)
			}
			if len(points) != 12 {
				t.Fatalf("%d points, want 3 tasks × 2 models × 2 seeds = 12", len(points))
			}
			byName := map[string]Point{}
			for i, p := range points {
				if p.Index != i {
					t.Errorf("point %s has index %d at %d", p.Name, p.Index, i)
				}
				byName[p.Name] = p
				for _, flag := range tc.lacks {
					if strings.Contains(strings.Join(p.Args, " "), flag) {
						t.Errorf("point %s carries %s: %v", p.Name, flag, p.Args)
					}
				}
			}
			for name, want := range tc.wantArgs {
				p, ok := byName[name]
				if !ok {
					t.Fatalf("no point %s among %v", name, byName)
				}
				for _, a := range want {
					if !slices.Contains(p.Args, a) {
						t.Errorf("point %s lacks %s: %v", name, a, p.Args)
					}
				}
			}
		})
	}
	if _, err := JoinPoints([]Point{{Name: "a"}}, []Point{{Name: "a"}}); err == nil {
		t.Error("two points named a joined")
	}
	if _, err := BudgetNamed("huge"); err == nil || !strings.Contains(err.Error(), "quick or precision") {
		t.Errorf("BudgetNamed(huge): %v", err)
	}
	p, _ := BudgetNamed("precision")
	if want := "preset laptop; recall 50000 steps (evaluated every 500, a snapshot every 5000)"; p.Preset != "laptop" || len(p.Tasks) != 1 || p.Describe() != want {
		t.Errorf("precision: %+v %q", p, p.Describe())
	}
}

// TestStepWork: the quick budget's step costs, by which the ETA weighs its points, are in the
// order and about the ratios the end-to-end timing measured (2026-11-29, one worker a run:
// the transformer's hmm step 220–228 ms, its bijection step 80–81, its recall step 27–31):
// hmm ≈ 2.8× bijection and ≈ 8× recall; within a factor 1.5 of each.
func TestStepWork(t *testing.T) {
	quick, err := BudgetNamed("quick")
	if err != nil {
		t.Fatal(err)
	}
	work := map[string]float64{}
	for _, g := range quick.Grids([]string{"bijection", "hmm", "recall"}, []string{"transformer"}, 0, 1) {
		ps, err := g.CheckedPoints()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.Work <= 0 {
				t.Fatalf("point %s: work %g", p.Name, p.Work)
			}
			work[strings.SplitN(p.Name, "-", 2)[0]] = p.Work
		}
	}
	for _, c := range []struct {
		over, under string
		measured    float64
	}{{"hmm", "bijection", 2.8}, {"hmm", "recall", 8}} {
		r := work[c.over] / work[c.under]
		if r < c.measured/1.5 || r > c.measured*1.5 {
			t.Errorf("work %s / %s = %.2f, measured %.1f", c.over, c.under, r, c.measured)
		}
	}
}
