package sessions

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"windtunnel/backends/untrusted"
)

// UserMetric is one value of a scalar the user computes (windtunnel metric: a script over
// probe, say) at a training step of a run, recorded in the run's session beside what the
// trainer recorded and charted and exported like it. A value that is not finite is stored
// as NULL and read back as NaN.
type UserMetric struct {
	Step  int     `json:"step"`
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// Bounds on user metrics, checked when they are added and when they are read (a session
// may come from someone else).
const (
	// MaxUserMetricName is the longest metric name, in bytes.
	MaxUserMetricName = 64
	// MaxUserMetricNames is the most distinct metrics a session holds.
	MaxUserMetricNames = 32
	// MaxUserMetrics is the most values a session holds, all metrics together.
	MaxUserMetrics = 200_000
)

// userMetricsTable is the session's table of user metrics, made by the first
// AddUserMetrics (sessions without it have none): one value per metric and step, a value
// added again at the same step replacing the old one.
const userMetricsTable = `CREATE TABLE IF NOT EXISTS user_metrics(
	name TEXT NOT NULL, step INTEGER NOT NULL, value REAL,
	PRIMARY KEY(name, step))`

// CheckUserMetricName refuses a name that is empty, longer than MaxUserMetricName, or
// holds anything but ASCII letters, digits and _ . - / (a name of a chart and a
// TensorBoard tag: my/metric); the error says what is wrong.
func CheckUserMetricName(name string) error {
	if name == "" {
		return errors.New("an empty metric name")
	}
	if len(name) > MaxUserMetricName {
		return fmt.Errorf("metric name %.20q…: %d bytes (at most %d)", name, len(name), MaxUserMetricName)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_.-/", c)) {
			return fmt.Errorf("metric name %q: want ASCII letters, digits and _ . - / only", SafeText(name))
		}
	}
	return nil
}

// check refuses a user metric with a bad name or a negative step.
func (m UserMetric) check() error {
	if err := CheckUserMetricName(m.Name); err != nil {
		return err
	}
	if m.Step < 0 {
		return fmt.Errorf("metric %s: step %d (want ≥ 0)", m.Name, m.Step)
	}
	return nil
}

// AddUserMetrics records ms in the session at path, in one transaction (all or none): a
// value at a metric and step already there replaces it. As Relabel, a finished session is
// written under its lock, a live one on this host beside its writer (which never touches
// the user_metrics table), and one whose writer runs on another host is refused
// (editSession). More than
// MaxUserMetricNames metrics or MaxUserMetrics values in the session are refused.
func AddUserMetrics(path string, ms []UserMetric) error {
	for _, m := range ms {
		if err := m.check(); err != nil {
			return fmt.Errorf("sessions: add metrics to %s: %w", path, err)
		}
	}
	return editSession(path, "add metrics to", "add them there", func(tx *sql.Tx) error {
		if _, err := tx.Exec(userMetricsTable); err != nil {
			return err
		}
		for _, m := range ms {
			if _, err := tx.Exec(`INSERT INTO user_metrics(name, step, value) VALUES(?, ?, ?)
				ON CONFLICT(name, step) DO UPDATE SET value = excluded.value`, m.Name, m.Step, finiteOrNull(m.Value)); err != nil {
				return err
			}
		}
		var names, n int64
		if err := tx.QueryRow(`SELECT count(DISTINCT name), count(*) FROM user_metrics`).Scan(&names, &n); err != nil {
			return err
		}
		if names > MaxUserMetricNames {
			return fmt.Errorf("%d metrics (at most %d)", names, MaxUserMetricNames)
		}
		if n > MaxUserMetrics {
			return fmt.Errorf("%d values (at most %d)", n, MaxUserMetrics)
		}
		return nil
	})
}

// finiteOrNull is x, or NULL when it is not finite.
func finiteOrNull(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// readUserMetrics reads a session's user metrics in order of name and step, bounded: more
// than MaxUserMetrics values or MaxUserMetricNames names, or a bad name or step, is an
// error (no table: none).
func readUserMetrics(db *sql.DB) ([]UserMetric, error) {
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'user_metrics'`).Scan(&tables); err != nil {
		return nil, err
	}
	if tables == 0 {
		return nil, nil
	}
	rows, err := db.Query(`SELECT name, step, value FROM user_metrics ORDER BY name, step LIMIT ?`, MaxUserMetrics+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []UserMetric
	names := 0
	for rows.Next() {
		var name sql.NullString
		var step sql.NullInt64
		var v sql.NullFloat64
		if err := rows.Scan(&name, &step, &v); err != nil {
			return nil, err
		}
		if len(out) == MaxUserMetrics {
			return nil, fmt.Errorf("more than %d values", MaxUserMetrics)
		}
		m := UserMetric{Name: name.String, Step: int(step.Int64), Value: math.NaN()}
		if !name.Valid || !step.Valid || step.Int64 > math.MaxInt32 {
			return nil, fmt.Errorf("a value without a name or step")
		}
		if v.Valid && !math.IsInf(v.Float64, 0) {
			m.Value = v.Float64
		}
		if err := m.check(); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Name != m.Name {
			if names++; names > MaxUserMetricNames {
				return nil, fmt.Errorf("more than %d metrics", MaxUserMetricNames)
			}
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// UserMetrics reads the session's user metrics (AddUserMetrics) now, in order of name and
// step, bounded (at most MaxUserMetricNames metrics and MaxUserMetrics values; a session
// holding more, or a bad name, is an error); none when the run has none.
func (r *Reader) UserMetrics() ([]UserMetric, error) {
	ms, err := readUserMetrics(r.db)
	if err != nil {
		return nil, fmt.Errorf("sessions: user metrics of %s: %w", r.path, err)
	}
	return ms, nil
}

// UserMetricNames are the distinct names of ms (sorted by name, as UserMetrics returns
// them), in order.
func UserMetricNames(ms []UserMetric) []string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return slices.Compact(names)
}

// maxUserMetricLine is the longest line ParseUserMetrics reads.
const maxUserMetricLine = 4096

// ParseUserMetrics reads user metrics as JSON Lines from r, one object a line with the
// fields step, name and value and no other ({"step": 100, "name": "probe/r2", "value":
// 0.93}; a value null or left out is not a number), blank lines skipped: at most MaxUserMetrics lines of at most
// 4 KiB, each checked as AddUserMetrics checks it. Every error names its line.
func ParseUserMetrics(r io.Reader) ([]UserMetric, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, maxUserMetricLine), maxUserMetricLine)
	var out []UserMetric
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if len(out) == MaxUserMetrics {
			return nil, fmt.Errorf("line %d: more than %d values", n, MaxUserMetrics)
		}
		var l struct {
			Step  *int     `json:"step"`
			Name  *string  `json:"name"`
			Value *float64 `json:"value"`
		}
		if err := untrusted.UnmarshalKnown(b, &l); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if l.Step == nil || l.Name == nil {
			return nil, fmt.Errorf("line %d: want {\"step\": N, \"name\": \"…\", \"value\": X}", n)
		}
		m := UserMetric{Step: *l.Step, Name: *l.Name, Value: math.NaN()}
		if l.Value != nil {
			m.Value = *l.Value
		}
		if err := m.check(); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	return out, nil
}

// UserMetrics reads the user's own metrics (AddUserMetrics) from the session the run
// writes, as Reader.UserMetrics does; none when it writes none or its writer has closed.
func (l *Live) UserMetrics() ([]UserMetric, error) {
	w := l.writer
	if w == nil {
		return nil, nil
	}
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return nil, nil
	}
	ms, err := readUserMetrics(w.db)
	if err != nil {
		w.mu.Lock()
		closed = w.closed
		w.mu.Unlock()
		if closed { // closed meanwhile
			return nil, nil
		}
		return nil, fmt.Errorf("sessions: user metrics of %s: %w", w.path, err)
	}
	return ms, nil
}

// WriteUserMetrics prints the user metrics of the session at path as `windtunnel metric`
// lists them: a table of name, step and value, or (asJSON) JSON Lines, a value that is not
// a number as null.
func WriteUserMetrics(w io.Writer, path string, asJSON bool) error {
	r, err := Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	ms, err := r.UserMetrics()
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		for _, m := range ms {
			if err := enc.Encode(map[string]any{"step": m.Step, "name": m.Name, "value": Num(m.Value)}); err != nil {
				return fmt.Errorf("metric: %w", err)
			}
		}
		return nil
	}
	if len(ms) == 0 {
		fmt.Fprintf(w, "%s: no metrics of your own recorded (windtunnel metric FILE --name NAME --step N --value X)\n", SafeText(path))
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTEP\tVALUE")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", m.Name, m.Step, strconv.FormatFloat(m.Value, 'g', 6, 64))
	}
	return tw.Flush()
}
