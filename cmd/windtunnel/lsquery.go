package main

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"
	"windtunnel/lab/runconfig"
)

// lsMetrics are the scores of a run's newest evaluation of the whole model (null: not a
// finite number).
type lsMetrics struct {
	BitErrorPosition *float64 `json:"bit_error_position"`
	BitErrorSample   *float64 `json:"bit_error_sample"`
	KLBits           *float64 `json:"kl_bits"`
	TVD              *float64 `json:"tvd"`
	Accuracy         *float64 `json:"accuracy"`
}

// lsRowFields are the fields of an ls row that --where and --sort name, besides the
// metrics and the configuration's keys.
var lsRowFields = []string{"state", "task", "model", "step", "steps", "pid", "path", "note", "modified"}

// lsMetricFields name the metrics of lsMetrics; bit_error is bit error (a).
var lsMetricFields = []string{"bit_error", "bit_error_position", "bit_error_sample", "kl_bits", "tvd", "accuracy"}

// lsCondition is one --where: key, operator (=, !=, <, >, <=, >=) and value.
type lsCondition struct {
	key, op, value string
}

// String is the condition as written.
func (c lsCondition) String() string { return c.key + c.op + c.value }

// parseWhere reads a --where condition, checking that its key is one ls knows.
func parseWhere(s string) (lsCondition, error) {
	i := strings.IndexAny(s, "!<>=")
	if i <= 0 {
		return lsCondition{}, usagef("--where %q: want KEY=VALUE, KEY!=VALUE, KEY<VALUE, KEY>VALUE, KEY<=VALUE or KEY>=VALUE", s)
	}
	c := lsCondition{key: strings.TrimSpace(s[:i])}
	rest := s[i:]
	for _, op := range []string{"!=", "<=", ">=", "=", "<", ">"} {
		if strings.HasPrefix(rest, op) {
			c.op, c.value = op, strings.TrimSpace(rest[len(op):])
			break
		}
	}
	if c.op == "" {
		return lsCondition{}, usagef("--where %q: want KEY=VALUE, KEY!=VALUE, KEY<VALUE, KEY>VALUE, KEY<=VALUE or KEY>=VALUE", s)
	}
	if err := checkLsKey("--where", c.key); err != nil {
		return lsCondition{}, err
	}
	return c, nil
}

// checkLsKey rejects a key that is neither a row field, a metric nor a configuration key,
// naming the closest one.
func checkLsKey(flag, key string) error {
	known := lsKnownKeys()
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return nil
		}
	}
	return usagef("%s %s: unknown key%s (keys: %s, %s, or a configuration key such as seed, lr or transformer.layers)",
		flag, key, suggestKey(key, known), strings.Join(lsRowFields, ", "), strings.Join(lsMetricFields, ", "))
}

// lsKnownKeys lists the row fields, the metrics and every configuration key (dot paths).
func lsKnownKeys() []string {
	return append(append(append([]string{}, lsRowFields...), lsMetricFields...), runconfig.Keys()...)
}

// field returns the row's value of key: a float64 for numbers, a string otherwise; false
// when the row has none (no evaluation yet, a configuration without the key).
func (r lsRow) field(key string) (any, bool) {
	num := func(p *float64) (any, bool) {
		if p == nil {
			return nil, false
		}
		return *p, true
	}
	metric := func(get func(m *lsMetrics) *float64) (any, bool) {
		if r.Metrics == nil {
			return nil, false
		}
		return num(get(r.Metrics))
	}
	switch strings.ToLower(key) {
	case "state":
		return r.State, true
	case "task":
		return r.Task, true
	case "model":
		return r.Model, true
	case "step":
		return float64(r.Step), true
	case "steps":
		return float64(r.Steps), true
	case "pid":
		return float64(r.Pid), r.Pid > 0
	case "path":
		return r.Path, true
	case "note":
		return r.Note, true
	case "modified":
		return r.Modified.Format(time.RFC3339), !r.Modified.IsZero()
	case "bit_error", "bit_error_position":
		return num(r.BitError)
	case "bit_error_sample":
		return metric(func(m *lsMetrics) *float64 { return m.BitErrorSample })
	case "kl_bits":
		return metric(func(m *lsMetrics) *float64 { return m.KLBits })
	case "tvd":
		return metric(func(m *lsMetrics) *float64 { return m.TVD })
	case "accuracy":
		return metric(func(m *lsMetrics) *float64 { return m.Accuracy })
	}
	return configValue(r.Config, key)
}

// configValue is the value at a dot path of a stored configuration, keys matched ignoring
// case: a float64 for a number, text for a string, JSON text for anything else.
func configValue(cfg json.RawMessage, path string) (any, bool) {
	if len(cfg) == 0 {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(cfg))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		found := false
		for mk, mv := range m {
			if strings.EqualFold(mk, k) {
				v, found = mv, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case string:
		return v, true
	case nil:
		return nil, false
	}
	b, err := json.Marshal(v)
	return string(b), err == nil
}

// fieldText is a field's value as --where compares text and the table prints it.
func fieldText(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	s, _ := v.(string)
	return s
}

// match reports whether the row satisfies the condition. Numbers compare as numbers when
// the value is one, everything else as text; a row without the field matches only !=.
func (c lsCondition) match(r lsRow) bool {
	v, ok := r.field(c.key)
	if !ok {
		return c.op == "!="
	}
	var cmp int
	f, isNum := v.(float64)
	want, err := strconv.ParseFloat(c.value, 64)
	switch {
	case isNum && err == nil:
		cmp = compareFloat(f, want)
	default:
		cmp = strings.Compare(fieldText(v), c.value)
	}
	switch c.op {
	case "=":
		return cmp == 0
	case "!=":
		return cmp != 0
	case "<":
		return cmp < 0
	case ">":
		return cmp > 0
	case "<=":
		return cmp <= 0
	}
	return cmp >= 0
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// filterRows keeps the rows that satisfy every condition.
func filterRows(rows []lsRow, conds []lsCondition) []lsRow {
	var out []lsRow
	for _, r := range rows {
		keep := true
		for _, c := range conds {
			keep = keep && c.match(r)
		}
		if keep {
			out = append(out, r)
		}
	}
	return out
}

// sortRows orders the rows by key, ascending (descending with reverse): numbers as numbers,
// text as text, rows without the field last either way; equal rows keep their order. An
// empty key keeps ls's order (live runs, then the newest sessions), reversed with reverse.
func sortRows(rows []lsRow, key string, reverse bool) {
	if key == "" {
		if reverse {
			for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
				rows[i], rows[j] = rows[j], rows[i]
			}
		}
		return
	}
	type keyed struct {
		row lsRow
		v   any
		ok  bool
	}
	ks := make([]keyed, len(rows))
	for i, r := range rows {
		v, ok := r.field(key)
		ks[i] = keyed{r, v, ok}
	}
	sort.SliceStable(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if !a.ok || !b.ok {
			return a.ok && !b.ok
		}
		var cmp int
		fa, numA := a.v.(float64)
		fb, numB := b.v.(float64)
		if numA && numB {
			cmp = compareFloat(fa, fb)
		} else {
			cmp = strings.Compare(fieldText(a.v), fieldText(b.v))
		}
		if reverse {
			return cmp > 0
		}
		return cmp < 0
	})
	for i := range ks {
		rows[i] = ks[i].row
	}
}

// lsShown reports whether ls's table already has a column for key.
func lsShown(key string) bool {
	switch strings.ToLower(key) {
	case "state", "task", "model", "step", "bit_error", "bit_error_position", "pid", "path":
		return true
	}
	return false
}
