package derived

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"windtunnel/backends/untrusted"
	"windtunnel/models/arch"
	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
)

// IgnoredFields returns the top-level configuration fields that do not tell configurations
// apart, because they cannot change what is trained: the seed (what a group of runs
// varies), the worker count and the BLAS (they change only the order of float sums and the
// speed), the evaluation, checkpoint and probe cadences and the geometry probe size (they
// change what is measured and when, not the training). The device and the precision are
// not among them: float32 on a GPU trains differently from the CPU or float64.
func IgnoredFields() []string {
	return []string{"seed", "workers", "blas", "eval_every", "checkpoint_every", "probe_every", "geometry_n", "jlens_n"}
}

// Defaults returns the fields (dotted names) whose unset value stands for a named one (the
// lab's and the models' defaults), so that a configuration that names the default and one
// that leaves it out are the same: device "" is "cpu", precision "" is "float32", the prefix
// MLP's input "" is "prefix" (run stores "prefix", compare before it stored ""), the
// initialisation "" is "normal", the optimizer "" is "adamw".
func Defaults() map[string]string {
	return map[string]string{"device": "cpu", "precision": "float32", "init": "normal", "mlp_prefix.input": "prefix", "optimizer": "adamw"}
}

// ConfigKey returns a canonical string of a stored configuration (a JSON object) less
// IgnoredFields: two runs are the same configuration exactly when their keys are equal.
// Numbers are compared as numbers (3 and 3.0 are one), a key left out equals the key with
// its zero value ("", 0, false, null, [] or {}) or, for Defaults, its default.
func ConfigKey(cfg json.RawMessage) (string, error) {
	c, err := canonicalConfig(cfg)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(c) // map keys sorted: a stable key
	if err != nil {
		return "", fmt.Errorf("derived: config key: %w", err)
	}
	return string(b), nil
}

// Key is ConfigKey of a session's stored configuration; a session that recorded none is
// an error naming it.
func Key(m sessions.Meta) (string, error) {
	if len(bytes.TrimSpace(m.Config)) == 0 {
		return "", fmt.Errorf("derived: %s: no configuration recorded", m.Path)
	}
	k, err := ConfigKey(m.Config)
	if err != nil {
		return "", fmt.Errorf("derived: %s: %w", m.Path, err)
	}
	return k, nil
}

// Fields flattens a stored configuration, less IgnoredFields and the fields at their zero
// value or default, into dotted names ("transformer.width") and their values as text
// (strings bare, numbers canonical, arrays as JSON).
func Fields(cfg json.RawMessage) (map[string]string, error) {
	c, err := canonicalConfig(cfg)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	flatten(out, "", c)
	return out, nil
}

// Difference is one field whose value differs between two configurations; a side that
// leaves the field at its zero value reads "unset" (its default, for Defaults).
type Difference struct {
	Field, A, B string
}

// String is "steps: 3000 vs 300".
func (d Difference) String() string { return d.Field + ": " + d.A + " vs " + d.B }

// Differences lists the fields (dotted names, sorted) whose values differ between two
// stored configurations, IgnoredFields aside: empty exactly when ConfigKey is equal.
func Differences(a, b json.RawMessage) ([]Difference, error) {
	fa, err := Fields(a)
	if err != nil {
		return nil, err
	}
	fb, err := Fields(b)
	if err != nil {
		return nil, err
	}
	var out []Difference
	for k, va := range fa {
		if vb, ok := fb[k]; !ok || va != vb {
			out = append(out, Difference{Field: k, A: va, B: unsetValue(k, fb)})
		}
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			out = append(out, Difference{Field: k, A: unsetValue(k, fa), B: fb[k]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out, nil
}

// unsetValue is f[k], or what a missing k stands for: its default, the task's own target
// for the target (sampled on bijection and recall, the posterior on hmm; "default" where
// the task is not known), or "unset".
func unsetValue(k string, f map[string]string) string {
	if v, ok := f[k]; ok {
		return v
	}
	if d, ok := Defaults()[k]; ok {
		return d
	}
	if k == "target" {
		if t := runconfig.TaskTarget(f["task"]); t != "" {
			return t
		}
		return "default"
	}
	return "unset"
}

// GroupIndices gathers the indices of equal keys, groups in the order of their first
// index, indices ascending: GroupIndices([a b a]) is [[0 2] [1]].
func GroupIndices(keys []string) [][]int {
	var out [][]int
	at := map[string]int{}
	for i, k := range keys {
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], i)
	}
	return out
}

// canonicalConfig decodes a configuration object and canonicalises it: IgnoredFields
// removed, Defaults and zero values left out, numbers in one spelling.
func canonicalConfig(cfg json.RawMessage) (map[string]any, error) {
	if err := untrusted.CheckJSON(cfg); err != nil {
		return nil, fmt.Errorf("derived: config: not valid JSON: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(cfg))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("derived: config: %w", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("derived: config: not a JSON object")
	}
	for _, k := range IgnoredFields() {
		delete(obj, k)
	}
	c, err := canonical(obj)
	if err != nil {
		return nil, err
	}
	m, _ := c.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	for k, def := range Defaults() {
		dropDefault(m, strings.Split(k, "."), def)
	}
	if task, ok := m["task"].(string); ok {
		dropDefault(m, []string{"target"}, runconfig.TaskTarget(task)) // the task's own is unset
	}
	return m, nil
}

// dropDefault removes the string def at the path of keys in a canonical object (keys in
// lower case), and an object the removal leaves empty, as canonical leaves out zero values.
func dropDefault(m map[string]any, path []string, def string) {
	if len(path) == 1 {
		if s, ok := m[path[0]].(string); ok && s == def {
			delete(m, path[0])
		}
		return
	}
	if sub, ok := m[path[0]].(map[string]any); ok {
		dropDefault(sub, path[1:], def)
		if len(sub) == 0 {
			delete(m, path[0])
		}
	}
}

// canonical rewrites a decoded value: objects lose their zero-valued fields, numbers get
// one spelling (integers exactly, others as the shortest float64), arrays keep every
// element (positions matter).
func canonical(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			c, err := canonical(e)
			if err != nil {
				return nil, err
			}
			if !zero(c) {
				// Keys are matched as encoding/json matches them, without regard to case:
				// sessions written before the size structs had JSON tags spell "Layers".
				out[strings.ToLower(k)] = c
			}
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			c, err := canonical(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case json.Number:
		return canonicalNumber(v)
	}
	return v, nil // string, bool, nil
}

// canonicalNumber is n as an exact integer, else as the shortest float64.
func canonicalNumber(n json.Number) (json.Number, error) {
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return "", fmt.Errorf("derived: config: number %q", string(n))
	}
	if r.IsInt() {
		return json.Number(r.Num().String()), nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return "", fmt.Errorf("derived: config: number %q: %w", string(n), err)
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// zero reports a canonical value equal to a left-out key.
func zero(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case json.Number:
		return v == "0"
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// flatten adds a canonical value under its dotted name, an object's fields one level down.
func flatten(out map[string]string, name string, v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if name != "" {
				k = name + "." + k
			}
			flatten(out, k, e)
		}
	case string:
		out[name] = v
	case json.Number:
		out[name] = string(v)
	default:
		b, _ := json.Marshal(v)
		out[name] = strings.TrimSpace(string(b))
	}
}

// Labels names each configuration by its values of the fields in which the configurations
// differ ("steps 3000", "lr 0.001, steps 300"; fields sorted, a model block's sizes without
// the block's name: "width 96"), "" for each when they are all the same configuration: what
// tells the groups of one task and model apart.
func Labels(cfgs []json.RawMessage) ([]string, error) {
	fields := make([]map[string]string, len(cfgs))
	for i, c := range cfgs {
		f, err := Fields(c)
		if err != nil {
			return nil, err
		}
		fields[i] = f
	}
	differ := map[string]bool{}
	for i := range fields {
		for j := i + 1; j < len(fields); j++ {
			for k, v := range fields[i] {
				if unsetValue(k, fields[j]) != v {
					differ[k] = true
				}
			}
			for k, v := range fields[j] {
				if unsetValue(k, fields[i]) != v {
					differ[k] = true
				}
			}
		}
	}
	names := make([]string, 0, len(differ))
	for k := range differ {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]string, len(cfgs))
	for i, f := range fields {
		parts := make([]string, len(names))
		for j, k := range names {
			parts[j] = labelKey(k) + " " + unsetValue(k, f)
		}
		out[i] = strings.Join(parts, ", ")
	}
	return out, nil
}

// CommonName is the name people gave a group of runs (sessions.Labels.Name): the one every
// run carries, "" when one has none or two differ. It is the group's label where one is
// shown (the overlay's legend, the figures' titles and legends, the report's rows) in place
// of what differs between the configurations; a label never changes which runs are seeds of
// one configuration.
func CommonName(names []string) string {
	if len(names) == 0 || names[0] == "" {
		return ""
	}
	for _, n := range names[1:] {
		if n != names[0] {
			return ""
		}
	}
	return names[0]
}

// labelKey is a field's name in a label: a model block's field without the block's name
// ("transformer.width" is "width": the groups labelled are of one model).
func labelKey(k string) string {
	if b, f, ok := strings.Cut(k, "."); ok && slices.Contains(arch.Kinds(), strings.ReplaceAll(b, "_", "-")) {
		return f
	}
	return k
}
