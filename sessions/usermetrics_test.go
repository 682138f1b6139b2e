package sessions

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestUserMetrics: metrics added to a finished session read back in order of name and
// step, a value added again at the same step replaces the old one, a non-finite value
// reads back as NaN, and a session without any has none.
func TestUserMetrics(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.wtlab")
	w, err := Create(path, Meta{Task: "bijection", Model: "transformer", Steps: 20}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(Record{Step: 20, Loss: 1, State: Done})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		ms, err := r.UserMetrics()
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(ms)
	}
	if got := read(); got != "[]" {
		t.Fatalf("a session without user metrics: %s", got)
	}
	if err := AddUserMetrics(path, []UserMetric{{20, "probe/r2", 0.5}, {10, "probe/r2", 0.25}, {10, "a", math.Inf(1)}}); err != nil {
		t.Fatal(err)
	}
	if err := AddUserMetrics(path, []UserMetric{{20, "probe/r2", 0.75}}); err != nil {
		t.Fatal(err)
	}
	if got, want := read(), "[{10 a NaN} {10 probe/r2 0.25} {20 probe/r2 0.75}]"; got != want {
		t.Errorf("read %s, want %s", got, want)
	}
	if got := fmt.Sprint(UserMetricNames([]UserMetric{{1, "a", 0}, {2, "a", 0}, {1, "b", 0}})); got != "[a b]" {
		t.Errorf("names %s", got)
	}
}

// TestUserMetricsLive: metrics are added beside the live writer of this host, which
// records on; the reader of the live session sees them.
func TestUserMetricsLive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.wtlab")
	w, err := Create(path, Meta{Task: "bijection", Model: "transformer", Steps: 20}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(Record{Step: 1, Loss: 2, State: Training})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := AddUserMetrics(path, []UserMetric{{1, "mine", 3}}); err != nil {
		t.Fatalf("beside a live writer: %v", err)
	}
	w.Record(Record{Step: 2, Loss: 1, State: Done})
	r := closeAndOpen(t, w, path)
	ms, err := r.UserMetrics()
	_, last, _ := r.Span()
	if err != nil || fmt.Sprint(ms) != "[{1 mine 3}]" || last != 2 {
		t.Errorf("after the run: %v %v, last step %d", ms, err, last)
	}
}

// TestUserMetricsBounds: a bad name or step is refused before anything is written, and so
// is a metric past MaxUserMetricNames (the transaction rolled back, none of it kept).
func TestUserMetricsBounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.wtlab")
	w, err := Create(path, Meta{Task: "bijection", Model: "transformer", Steps: 1}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ms   []UserMetric
		want string
	}{
		{[]UserMetric{{1, "", 0}}, "an empty metric name"},
		{[]UserMetric{{1, "a b", 0}}, `metric name "a b": want ASCII letters`},
		{[]UserMetric{{1, "é", 0}}, "want ASCII letters"},
		{[]UserMetric{{1, strings.Repeat("x", MaxUserMetricName+1), 0}}, "65 bytes (at most 64)"},
		{[]UserMetric{{-1, "a", 0}}, "step -1"},
	} {
		if err := AddUserMetrics(path, c.ms); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.ms, err, c.want)
		}
	}
	var many []UserMetric
	for i := range MaxUserMetricNames + 1 {
		many = append(many, UserMetric{Step: 1, Name: fmt.Sprintf("m%d", i)})
	}
	if err := AddUserMetrics(path, many); err == nil || !strings.Contains(err.Error(), "33 metrics (at most 32)") {
		t.Errorf("too many metrics: %v", err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if ms, err := r.UserMetrics(); len(ms) != 0 || err != nil {
		t.Errorf("after refusals: %v %v, want none", ms, err)
	}
}

// TestUserMetricsHostile: a session from someone else whose user_metrics table holds a bad
// name, a missing step or too many metrics reads as an error, never a panic.
func TestUserMetricsHostile(t *testing.T) {
	for _, c := range []struct {
		name, insert, want string
	}{
		{"bad name", `INSERT INTO user_metrics VALUES('a' || char(27) || '[2J', 1, 0)`, "want ASCII letters"},
		{"no step", `DROP TABLE user_metrics; CREATE TABLE user_metrics(name, step, value); INSERT INTO user_metrics VALUES('a', NULL, 0)`, "without a name or step"},
		{"text step", `DROP TABLE user_metrics; CREATE TABLE user_metrics(name, step, value); INSERT INTO user_metrics VALUES('a', 'x', 0)`, "user metrics of"},
		{"many", `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 40) INSERT INTO user_metrics SELECT 'm' || i, 1, 0 FROM n`, "more than 32 metrics"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.wtlab")
			w, err := Create(path, Meta{Task: "bijection", Model: "transformer", Steps: 1}, WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.db.Exec(userMetricsTable); err != nil {
				t.Fatal(err)
			}
			if _, err := w.db.Exec(c.insert); err != nil {
				t.Fatal(err)
			}
			r := closeAndOpen(t, w, path)
			if ms, err := r.UserMetrics(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v %v, want an error naming %q", ms, err, c.want)
			}
		})
	}
}

// TestParseUserMetrics: JSON Lines of step, name and value, blank lines skipped, a null
// value NaN; a line that is not such an object is refused naming its line.
func TestParseUserMetrics(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{"{\"step\": 10, \"name\": \"r2\", \"value\": 0.5}\n\n{\"name\": \"x/y\", \"step\": 0, \"value\": null}\n", "[{10 r2 0.5} {0 x/y NaN}]", ""},
		{`{"step": 1, "name": "a", "value": 1, "extra": 2}`, "", `line 1: json: unknown field "extra"`},
		{"\n" + `{"step": 1, "name": "a", "name": "b", "value": 1}`, "", "line 2:"},
		{`{"name": "a", "value": 1}`, "", `line 1: want {"step"`},
		{`{"step": 1.5, "name": "a", "value": 1}`, "", "line 1:"},
		{`{"step": 1, "name": "a b", "value": 1}`, "", `line 1: metric name "a b"`},
		{`[1, 2]`, "", "line 1:"},
		{strings.Repeat(" ", 5000), "", "line 1: bufio.Scanner: token too long"},
	} {
		ms, err := ParseUserMetrics(strings.NewReader(c.in))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%.40q: %v, want an error with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(ms) != c.want {
			t.Errorf("%.40q: %v %v, want %s", c.in, ms, err, c.want)
		}
	}
}

// TestLiveUserMetrics: a live feed reads the metrics added to the session its writer
// writes; none without a writer or once it has closed.
func TestLiveUserMetrics(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.wtlab")
	meta := Meta{Task: "bijection", Model: "transformer", Steps: 2}
	w, err := Create(path, meta, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := NewLive(meta, nil, w)
	if ms, err := l.UserMetrics(); len(ms) != 0 || err != nil {
		t.Fatalf("before any: %v %v", ms, err)
	}
	if err := AddUserMetrics(path, []UserMetric{{Step: 1, Name: "mine", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	if ms, err := l.UserMetrics(); fmt.Sprint(ms) != "[{1 mine 2}]" || err != nil {
		t.Errorf("live: %v %v", ms, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if ms, err := l.UserMetrics(); len(ms) != 0 || err != nil {
		t.Errorf("after close: %v %v", ms, err)
	}
	if ms, err := NewLive(meta, nil, nil).UserMetrics(); len(ms) != 0 || err != nil {
		t.Errorf("no writer: %v %v", ms, err)
	}
}
