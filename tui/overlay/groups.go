package overlay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"windtunnel/backends/untrusted"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tui/look"
)

// overlayGroup is one series of the comparison chart: a single run, or the seeds of one
// configuration (the rule of sessions/derived), drawn as their mean with a ± one standard deviation band.
type overlayGroup struct {
	label   string
	members []int    // indices of the overlay's feeds, ascending
	seeds   []string // the members' seeds, for a seed group
}

// band reports whether the group is drawn as a mean and a band (several seeds).
func (g overlayGroup) band() bool { return len(g.members) > 1 }

// Keys of runFields that are not the lab configuration's own.
const (
	// derivedKey prefixes what the Meta says about the built model (parameter count, layers,
	// heads): it follows from the configuration, so it tells runs apart only when no
	// configuration field does (sessions without a recorded configuration).
	derivedKey = "meta."
	seedKey    = "seed"
)

// ignoredConfigKey reports the configuration fields a label leaves out: those that cannot
// change what is trained (derived.IgnoredFields: threads, BLAS, the evaluation, checkpoint
// and probe cadences, the geometry size; not the seed, which labels show) and the device,
// which the Meta states better (the configuration leaves the default out). Grouping is
// configClasses', which keeps the configuration's device.
func ignoredConfigKey(k string) bool {
	if k == "device" {
		return true
	}
	for _, f := range derived.IgnoredFields() {
		if f == k && f != seedKey {
			return true
		}
	}
	return false
}

// modelSection reports the configuration's per-model size objects: a run's label uses only
// the one of its own model (the others are unused defaults). The lab spells them as the
// model kinds with "-" as "_".
func modelSection(k string) bool {
	switch k {
	case "transformer", "lstm", "mamba", "mlp", "mlp_prefix":
		return true
	}
	return false
}

// bareKey reports the fields shown by value alone in a label ("cuda", not "device cuda").
func bareKey(k string) bool {
	switch k {
	case "task", "device", "target", "precision":
		return true
	}
	return false
}

// runFields flattens what describes a run into key → value: the lab configuration's
// fields (nested objects as dotted keys, numbers formatted compactly), but for those
// ignoredConfigKey names and other models' size sections; the Meta's task, model and
// device (and planned steps when the configuration lacks them); and under derivedKey the
// Meta's parameter count, layers and heads.
func runFields(m sessions.Meta) map[string]string {
	f := map[string]string{}
	var cfg map[string]any
	if len(m.Config) > 0 && untrusted.CheckJSON(m.Config) == nil {
		d := json.NewDecoder(bytes.NewReader(m.Config))
		d.UseNumber()
		if d.Decode(&cfg) != nil {
			cfg = nil
		}
	}
	own := strings.ReplaceAll(m.Model, "-", "_")
	for k, v := range cfg {
		if ignoredConfigKey(k) || (modelSection(k) && k != own) {
			continue
		}
		flattenField(f, k, v)
	}
	for k, v := range map[string]string{"task": m.Task, "model": m.Model, "device": m.Device} {
		if v != "" {
			f[k] = v
		}
	}
	if _, ok := f["steps"]; !ok && m.Steps > 0 {
		f["steps"] = strconv.Itoa(m.Steps)
	}
	if m.Params > 0 {
		f[derivedKey+"params"] = look.Count(m.Params)
	}
	if m.Layers > 0 {
		f[derivedKey+"layers"] = strconv.Itoa(m.Layers)
		f[derivedKey+"heads"] = strconv.Itoa(m.Heads)
	}
	return f
}

// flattenField adds v under key k, an object's fields under "k.field".
func flattenField(f map[string]string, k string, v any) {
	switch v := v.(type) {
	case map[string]any:
		for kk, vv := range v {
			flattenField(f, k+"."+kk, vv)
		}
	case json.Number:
		f[k] = compactNumber(v)
	case string:
		f[k] = v
	case nil:
		f[k] = "null"
	default: // bools and arrays as JSON
		b, _ := json.Marshal(v)
		f[k] = string(b)
	}
}

// compactNumber formats a configuration number for a label: integers as they are, small
// and large fractions as 3e-3, the rest as the shortest decimal (0.01, 0.5).
func compactNumber(n json.Number) string {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return strconv.FormatInt(i, 10)
	}
	v, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return string(n)
	}
	if a := max(v, -v); a != 0 && (a < 1e-2 || a >= 1e6) {
		s := strconv.FormatFloat(v, 'e', -1, 64) // 3e-03
		mant, exp, _ := strings.Cut(s, "e")
		neg := strings.HasPrefix(exp, "-")
		exp = strings.TrimLeft(exp, "+-0")
		if neg {
			exp = "-" + exp
		}
		return mant + "e" + exp
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// differingKeys returns the keys whose values differ between two runs that both have them
// (a key some runs lack, such as a field older sessions did not record, does not count for
// those): the configuration's, or the derived ones when no configuration field differs.
// They are ordered task, model, device, then by name, the seed last.
func differingKeys(fields []map[string]string) []string {
	values := map[string]map[string]bool{}
	for _, f := range fields {
		for k, v := range f {
			if values[k] == nil {
				values[k] = map[string]bool{}
			}
			values[k][v] = true
		}
	}
	var primary, derived []string
	for k, vs := range values {
		switch {
		case len(vs) < 2:
		case strings.HasPrefix(k, derivedKey):
			derived = append(derived, k)
		default:
			primary = append(primary, k)
		}
	}
	keys := primary
	if len(keys) == 0 {
		keys = derived
	}
	rank := func(k string) int {
		switch k {
		case "task":
			return 0
		case "model":
			return 1
		case "device":
			return 2
		case seedKey:
			return 4
		}
		return 3
	}
	sort.Slice(keys, func(i, j int) bool {
		if ri, rj := rank(keys[i]), rank(keys[j]); ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	return keys
}

// labelField is how a key shows in a label: its last dotted part, lower case
// ("transformer.Width" → "width").
func labelField(k string) string {
	return strings.ToLower(k[strings.LastIndex(k, ".")+1:])
}

// runLabel names a run by its model then its values of keys ("transformer lr 3e-3 seed 2"),
// leaving out the model key and any key it lacks.
func runLabel(m sessions.Meta, f map[string]string, keys []string) string {
	parts := []string{m.Model}
	if m.Model == "" {
		parts[0] = "session"
	}
	for _, k := range keys {
		v, ok := f[k]
		if !ok || k == "model" {
			continue
		}
		if bareKey(k) {
			parts = append(parts, v)
		} else {
			parts = append(parts, labelField(k)+" "+v)
		}
	}
	return strings.Join(parts, " ")
}

// overlayName is run i's fallback name: names[i], else its session's file name, else
// "session N".
func overlayName(i int, m sessions.Meta, names []string) string {
	if i < len(names) && names[i] != "" {
		return names[i]
	}
	if m.Path != "" {
		return sessions.SafeText(filepath.Base(m.Path)) // a file's name may be anyone's
	}
	return fmt.Sprintf("session %d", i+1)
}

// describeRuns labels each run by the name a person gave it (given[i], when set), else by
// what differs between the runs (runLabel over differingKeys; every run by its fallback
// name when nothing differs) and groups them into the chart's series: runs of one
// configuration (configClasses), with distinct seeds, form one band series labelled
// "transformer (3 seeds)", or "NAME (3 seeds)" when they all carry one name
// (derived.CommonName); every other run is a series of its own under its label. Series are
// in the order of their first run; labels that would show twice get the run's name added.
func describeRuns(metas []sessions.Meta, names, given []string) ([]string, []overlayGroup) {
	fields := make([]map[string]string, len(metas))
	fallback := make([]string, len(metas))
	for i, m := range metas {
		fields[i], fallback[i] = runFields(m), overlayName(i, m, names)
	}
	keys := differingKeys(fields)
	labels := make([]string, len(metas))
	gave := func(i int) string {
		if i < len(given) {
			return given[i]
		}
		return ""
	}
	for i, m := range metas {
		labels[i] = fallback[i]
		if len(keys) > 0 {
			labels[i] = runLabel(m, fields[i], keys)
		}
		if g := gave(i); g != "" {
			labels[i] = g
		}
	}
	disambiguate(labels, fallback)

	var noSeed []string
	for _, k := range keys {
		if k != seedKey {
			noSeed = append(noSeed, k)
		}
	}
	var groups []overlayGroup
	for _, members := range configClasses(metas, fields) {
		seeds := make([]string, len(members))
		distinct := map[string]bool{}
		for j, i := range members {
			seeds[j] = fields[i][seedKey]
			distinct[seeds[j]] = true
		}
		if len(members) < 2 || len(distinct) < len(members) {
			for _, i := range members { // a single run, or repeats of one seed: drawn apart
				groups = append(groups, overlayGroup{label: labels[i], members: []int{i}})
			}
			continue
		}
		first := members[0]
		name := runLabel(metas[first], fields[first], noSeed)
		ns := make([]string, len(members))
		for j, i := range members {
			ns[j] = gave(i)
		}
		if n := derived.CommonName(ns); n != "" {
			name = n
		}
		label := fmt.Sprintf("%s (%d seeds)", name, len(members))
		groups = append(groups, overlayGroup{label: label, members: members, seeds: seeds})
	}
	gl, gn := make([]string, len(groups)), make([]string, len(groups))
	for j, g := range groups {
		gl[j] = g.label
		ns := make([]string, len(g.members))
		for k, i := range g.members {
			ns[k] = fallback[i]
		}
		gn[j] = strings.Join(ns, ", ")
	}
	disambiguate(gl, gn)
	for j := range groups {
		groups[j].label = gl[j]
	}
	return labels, groups
}

// configClasses gathers the runs that are one configuration under the rule of
// sessions/derived (derived.Key: the seed, workers, BLAS, cadences and geometry size aside,
// the device and precision not), in the order of their first run. A run without a recorded
// configuration or seed is a class of its own.
func configClasses(metas []sessions.Meta, fields []map[string]string) [][]int {
	keys := make([]string, len(metas))
	for i, m := range metas {
		k, err := derived.Key(m)
		if _, ok := fields[i][seedKey]; !ok || err != nil {
			k = fmt.Sprintf("\x00run %d", i) // never grouped
		}
		keys[i] = k
	}
	return derived.GroupIndices(keys)
}

// Groups returns the runs the comparison chart of metas draws as one series, as
// indices into metas in the order of the series: the seeds of one configuration (the rule
// of sessions/derived, as compare --from, report and plot group them) form a band; a single
// run, or repeats of one seed, a series each.
func Groups(metas []sessions.Meta) [][]int {
	_, groups := describeRuns(metas, nil, nil)
	out := make([][]int, len(groups))
	for j, g := range groups {
		out[j] = append([]int(nil), g.members...)
	}
	return out
}

// disambiguate appends " · name" to every label that shows more than once (and is not
// already that name).
func disambiguate(labels, names []string) {
	count := map[string]int{}
	for _, l := range labels {
		count[l]++
	}
	for i, l := range labels {
		if count[l] > 1 && l != names[i] {
			labels[i] = l + " · " + names[i]
		}
	}
}
