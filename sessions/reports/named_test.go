package reports

import (
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// TestConfigGroupsNamed: a configuration whose runs all carry one name is marked by it in
// the report's rows (one configuration too), in place of what differs; runs named apart
// keep the configuration's label.
func TestConfigGroupsNamed(t *testing.T) {
	run := func(key, name string) Run {
		return Run{SessionRun: derived.SessionRun{Score: derived.RunScore{Key: key}, Labels: sessions.Labels{Name: name}}}
	}
	for _, c := range []struct {
		name string
		runs []Run
		want []string
	}{
		{"one configuration named", []Run{run(`{"steps":300}`, "short"), run(`{"steps":300}`, "short")}, []string{"short"}},
		{"one configuration unnamed", []Run{run(`{"steps":300}`, ""), run(`{"steps":300}`, "")}, []string{""}},
		{"two, one named", []Run{run(`{"steps":300}`, "short"), run(`{"steps":600}`, "")}, []string{"short", "steps 600"}},
		{"two, named apart", []Run{run(`{"steps":300}`, "a"), run(`{"steps":300}`, "b"), run(`{"steps":600}`, "")},
			[]string{"steps 300", "steps 600"}},
	} {
		gs := configGroups(c.runs)
		var got []string
		for _, g := range gs {
			got = append(got, g.label)
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: labels %q, want %q", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: labels %q, want %q", c.name, got, c.want)
			}
		}
	}
}
