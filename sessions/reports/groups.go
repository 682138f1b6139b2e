package reports

import (
	"encoding/json"
	"fmt"
	"strings"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// cfgGroup is the runs of one configuration under the rule of sessions/derived (seeds of one
// configuration; the worker count, BLAS, cadences and geometry size aside), with what tells
// it from the other configurations of the same runs.
type cfgGroup struct {
	runs []Run
	// label is the name its runs were given (derived.CommonName), else the group's values
	// of the fields that differ between the groups ("steps 3000"), "" when there is one
	// group; differs lists derived.Differences against each
	// other group ("steps: 3000 vs 300").
	label, differs string
}

// configGroups splits runs (of one claim's task and model) by configuration, in the order of
// their first run. No runs give one empty group, so a claim still gets its not-measured row.
func configGroups(runs []Run) []cfgGroup {
	if len(runs) == 0 {
		return []cfgGroup{{}}
	}
	keys := make([]string, len(runs))
	for i, r := range runs {
		keys[i] = r.Score.Key
		if keys[i] == "" { // not read through derived.ReadSessionRun: a group of its own
			keys[i] = fmt.Sprintf("\x00%d %s", i, r.Path)
		}
	}
	idx := derived.GroupIndices(keys)
	out := make([]cfgGroup, len(idx))
	cfgs := make([]json.RawMessage, len(idx))
	named := make([]string, len(idx))
	for j, g := range idx {
		var names []string
		for _, i := range g {
			out[j].runs = append(out[j].runs, runs[i])
			names = append(names, runs[i].Labels.Name)
		}
		cfgs[j] = json.RawMessage(keys[g[0]]) // a key is the canonical configuration
		named[j] = sessions.SafeText(derived.CommonName(names))
	}
	if len(idx) < 2 {
		out[0].label = named[0]
		return out
	}
	labels, err := derived.Labels(cfgs)
	for j := range out {
		out[j].label = fmt.Sprintf("configuration %d", j+1)
		if err == nil {
			out[j].label = labels[j]
		}
		if named[j] != "" {
			out[j].label = named[j]
		}
		var parts []string
		for k := range out {
			if k == j {
				continue
			}
			ds, err := derived.Differences(cfgs[j], cfgs[k])
			if err != nil || len(ds) == 0 {
				continue
			}
			s := make([]string, len(ds))
			for n, d := range ds {
				s[n] = d.String()
			}
			parts = append(parts, strings.Join(s, ", "))
		}
		out[j].differs = strings.Join(parts, " / ")
	}
	return out
}

// mark names the group in a row built from its runs: the label after the claim, what
// differs from the other configurations after the reason.
func (g cfgGroup) mark(row Row) Row {
	if g.label == "" {
		return row
	}
	row.Claim += " [" + g.label + "]"
	if g.differs != "" {
		row.Reason += "; one of several configurations, not pooled (" + g.differs + ")"
	}
	return row
}
