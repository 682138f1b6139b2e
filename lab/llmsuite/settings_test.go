package llmsuite

import (
	"slices"
	"strings"
	"testing"

	"windtunnel/models/llm"
)

func TestSettingsCheck(t *testing.T) {
	ok := Settings{Experiments: "manifold, sula", PerK: 50, Workers: 0, AxisLayer: 0, NullCopies: 2, Nulls: "none"}
	exps, nulls, err := ok.Check()
	if err != nil || !slices.Equal(exps, []string{"manifold", "sula"}) || nulls != nil {
		t.Fatalf("Check(%+v) = %v, %v, %v; want [manifold sula], no nulls", ok, exps, nulls, err)
	}
	for _, c := range []struct {
		edit func(*Settings)
		want string
	}{
		{func(s *Settings) { s.Experiments = "manifold,nope" }, `--experiments: unknown experiment "nope"`},
		{func(s *Settings) { s.PerK = 0 }, "--per-k 0 out of range: want 1..1000"},
		{func(s *Settings) { s.PerK = 1001 }, "--per-k 1001 out of range"},
		{func(s *Settings) { s.Workers = -1 }, "--workers -1 out of range: want 0..1024"},
		{func(s *Settings) { s.AxisLayer = -1 }, "--axis-layer -1: want a layer ≥ 1"},
		{func(s *Settings) { s.Nulls = "bogus" }, "--nulls: "},
		{func(s *Settings) { s.NullCopies = 0 }, "--null-copies 0 out of range: want 1..8"},
		{func(s *Settings) { s.NullCopies = 9 }, "--null-copies 9 out of range"},
	} {
		s := ok
		c.edit(&s)
		if _, _, err := s.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%+v) = %v, want an error containing %q", s, err, c.want)
		}
	}
}

func TestRunnable(t *testing.T) {
	all := []string{"manifold", "sula", "keys", "focus", "axis"}
	for _, c := range []struct {
		name          string
		layers, axis  int
		named         bool
		run           []string
		skipped, fail string
	}{
		{"deep model runs all", 6, 0, false, all, "", ""},
		{"one layer skips focus and axis", 1, 0, false, []string{"manifold", "sula", "keys"}, "focus not run: dynamic focusing", ""},
		{"one layer refuses them named", 1, 0, true, nil, "", "--experiments focus: dynamic focusing"},
		{"axis layer past the model", 4, 4, false, nil, "", "--axis-layer 4: the model has layers 0..3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run, skipped, err := Runnable(llm.Config{Layers: c.layers}, c.axis, all, c.named)
			if c.fail != "" {
				if err == nil || !strings.Contains(err.Error(), c.fail) {
					t.Fatalf("err %v, want one containing %q", err, c.fail)
				}
				return
			}
			if err != nil || !slices.Equal(run, c.run) {
				t.Fatalf("run %v, err %v; want %v", run, err, c.run)
			}
			if c.skipped != "" && (len(skipped) != 2 || !strings.HasPrefix(skipped[0], c.skipped)) {
				t.Errorf("skipped %q, want two, the first starting %q", skipped, c.skipped)
			}
			if c.skipped == "" && skipped != nil {
				t.Errorf("skipped %q, want none", skipped)
			}
		})
	}
}

func TestParseIDs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"1,2, 3", []int{1, 2, 3}, true},
		{"0", []int{0}, true},
		{"1,-2", nil, false},
		{"1,,2", nil, false},
		{"x", nil, false},
	} {
		got, err := ParseIDs(c.in)
		if (err == nil) != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("ParseIDs(%q) = %v, %v; want %v (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
}
