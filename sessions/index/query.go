package index

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"windtunnel/backends/untrusted"
	"windtunnel/sessions/runconfig"
)

// RowFields are the fields of a run that a query names (ls --where and --sort), besides the
// metrics and the configuration's keys.
var RowFields = []string{"state", "task", "model", "step", "steps", "pid", "path", "note", "modified", "name", "tag"}

// MetricFields name the metrics of Metrics; bit_error is bit error (a).
var MetricFields = []string{"bit_error", "bit_error_position", "bit_error_sample", "kl_bits", "tvd", "accuracy"}

// Condition is one condition of a query (ls --where): key, operator (=, !=, <, >, <=, >=)
// and value.
type Condition struct {
	key, op, value string
	num            float64 // value as a number, when isNum
	isNum          bool    // key is numeric (numericKey); value is then a finite number
}

// String is the condition as written.
func (c Condition) String() string { return c.key + c.op + c.value }

// ParseWhere reads a condition (ls --where), checking that its key is one the index knows.
func ParseWhere(s string) (Condition, error) {
	i := strings.IndexAny(s, "!<>=")
	if i <= 0 {
		return Condition{}, fmt.Errorf("--where %q: want KEY=VALUE, KEY!=VALUE, KEY<VALUE, KEY>VALUE, KEY<=VALUE or KEY>=VALUE", s)
	}
	c := Condition{key: strings.TrimSpace(s[:i])}
	rest := s[i:]
	for _, op := range []string{"!=", "<=", ">=", "=", "<", ">"} {
		if strings.HasPrefix(rest, op) {
			c.op, c.value = op, strings.TrimSpace(rest[len(op):])
			break
		}
	}
	if c.op == "" {
		return Condition{}, fmt.Errorf("--where %q: want KEY=VALUE, KEY!=VALUE, KEY<VALUE, KEY>VALUE, KEY<=VALUE or KEY>=VALUE", s)
	}
	if err := CheckKey("--where", c.key); err != nil {
		return Condition{}, err
	}
	if strings.EqualFold(c.key, "tag") && c.op != "=" && c.op != "!=" {
		return Condition{}, fmt.Errorf("--where %q: tag takes = (the run carries the tag) or != (it does not)", s)
	}
	if !numericKey(c.key) {
		return c, nil
	}
	f, err := strconv.ParseFloat(c.value, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return Condition{}, fmt.Errorf("--where %q: %s is out of range (want a finite number, at most 1.8e308 in size)", s, c.value)
	case err != nil:
		return Condition{}, fmt.Errorf("--where %q: %s is a number; want a number, not %q", s, c.key, c.value)
	case math.IsNaN(f) || math.IsInf(f, 0):
		return Condition{}, fmt.Errorf("--where %q: want a finite number, not %s (a run without %s matches %s!= anything)", s, c.value, c.key, c.key)
	}
	c.num, c.isNum = f, true
	return c, nil
}

// numericKeys are the row fields holding numbers.
var numericKeys = []string{"step", "steps", "pid"}

// numericKey reports whether key's values are numbers: step, steps, pid, a metric, or a
// configuration key whose value is a number.
func numericKey(key string) bool {
	for _, k := range append(append([]string{}, numericKeys...), MetricFields...) {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	for _, k := range RowFields {
		if strings.EqualFold(k, key) {
			return false
		}
	}
	v, ok := runconfig.Lookup(runconfig.Config{}, key)
	_, isNum := v.(float64)
	return ok && isNum
}

// CheckKey rejects a key that is neither a row field, a metric nor a configuration key,
// naming the flag and the closest key.
func CheckKey(flag, key string) error {
	known := Keys()
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return nil
		}
	}
	hint := ""
	if s := runconfig.Closest(key, known); s != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", s)
	}
	return fmt.Errorf("%s %s: unknown key%s (keys: %s, %s, or a configuration key such as seed, lr or transformer.layers)",
		flag, key, hint, strings.Join(RowFields, ", "), strings.Join(MetricFields, ", "))
}

// Keys lists the row fields, the metrics and every configuration key (dot paths).
func Keys() []string {
	return append(append(append([]string{}, RowFields...), MetricFields...), runconfig.Keys()...)
}

// Field returns the run's value of key: a float64 for numbers, a string otherwise; false
// when the run has none (no evaluation yet, a configuration that does not decode).
func (r Run) Field(key string) (any, bool) {
	num := func(p *float64) (any, bool) {
		if p == nil {
			return nil, false
		}
		return *p, true
	}
	metric := func(get func(m *Metrics) *float64) (any, bool) {
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
	case "name":
		return r.Labels.Name, true
	case "tag":
		return strings.Join(r.Labels.Tags, ","), true
	case "bit_error", "bit_error_position":
		return num(r.BitError)
	case "bit_error_sample":
		return metric(func(m *Metrics) *float64 { return m.BitErrorSample })
	case "kl_bits":
		return metric(func(m *Metrics) *float64 { return m.KLBits })
	case "tvd":
		return metric(func(m *Metrics) *float64 { return m.TVD })
	case "accuracy":
		return metric(func(m *Metrics) *float64 { return m.Accuracy })
	}
	if len(r.Config) == 0 {
		return nil, false
	}
	var c runconfig.Config
	if untrusted.Unmarshal(r.Config, &c) != nil {
		return nil, false
	}
	return runconfig.Lookup(c, key)
}

// FieldText is a field's value as a condition compares text and ls's table prints it.
func FieldText(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	s, _ := v.(string)
	return s
}

// Match reports whether the run satisfies the condition. A numeric key compares as numbers
// (ParseWhere refuses a value that is not a finite number), a path as a path (relative to
// the working directory, as ls prints it, or absolute), tag as one of the run's tags (=: it
// carries it, !=: it does not), everything else as text; a run without the field, or whose
// number is not finite, matches only !=.
func (c Condition) Match(r Run) bool {
	if strings.EqualFold(c.key, "tag") { // one of the run's tags
		return r.Labels.Has(c.value) == (c.op == "=")
	}
	v, ok := r.Field(c.key)
	f, isNum := v.(float64)
	if !ok || (isNum && (math.IsNaN(f) || math.IsInf(f, 0))) {
		return c.op == "!="
	}
	var cmp int
	switch {
	case isNum && c.isNum:
		cmp = compareFloat(f, c.num)
	case strings.EqualFold(c.key, "path"):
		got, want := filepath.Clean(FieldText(v)), filepath.Clean(c.value)
		if filepath.IsAbs(got) { // a recorded session's (Read); a live run's as it was started
			want = absPath(c.value)
		}
		cmp = strings.Compare(got, want)
	default:
		cmp = strings.Compare(FieldText(v), c.value)
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

// absPath is a path as the index records a session's (Read: absolute), "" kept.
func absPath(p string) string {
	if p == "" {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
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

// Filter keeps the runs that satisfy every condition.
func Filter(rows []Run, conds []Condition) []Run {
	var out []Run
	for _, r := range rows {
		keep := true
		for _, c := range conds {
			keep = keep && c.Match(r)
		}
		if keep {
			out = append(out, r)
		}
	}
	return out
}

// Sort orders the runs by key, ascending (descending with reverse): numbers as numbers,
// text as text, runs without the field last either way; equal runs keep their order. An
// empty key keeps List's order (live runs, then the newest sessions), reversed with reverse.
func Sort(rows []Run, key string, reverse bool) {
	if key == "" {
		if reverse {
			for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
				rows[i], rows[j] = rows[j], rows[i]
			}
		}
		return
	}
	type keyed struct {
		row Run
		v   any
		ok  bool
	}
	ks := make([]keyed, len(rows))
	for i, r := range rows {
		v, ok := r.Field(key)
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
			cmp = strings.Compare(FieldText(a.v), FieldText(b.v))
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

// DescribeWhere is the conditions as a reader would write them on ls's command line:
// --where "task=hmm" --where "steps>=1000".
func DescribeWhere(conds []Condition) string {
	parts := make([]string, len(conds))
	for i, c := range conds {
		parts[i] = "--where " + strconv.Quote(c.String())
	}
	return strings.Join(parts, " ")
}
