package sessions

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"windtunnel/backends/untrusted"
)

// Labels are what a person calls a run: a name, tags and a note. They are not training
// settings: they live in the session's meta table under their own key (labelsKey), apart
// from Meta and its configuration, so setting or changing them never changes which runs
// are seeds of one configuration, and editing them (Relabel) touches no record.
type Labels struct {
	Name string   `json:"name,omitempty"`
	Tags []string `json:"tags,omitempty"`
	Note string   `json:"note,omitempty"`
}

// Bounds on labels, checked when they are set and when they are read (a session may come
// from someone else).
const (
	// MaxLabelName is the longest name, in bytes.
	MaxLabelName = 80
	// MaxTags is the most tags a run may carry; MaxTag the longest tag, in bytes.
	MaxTags = 32
	MaxTag  = 40
	// MaxNote is the longest note, in bytes.
	MaxNote = 2000
	// maxLabelsJSON bounds the stored value read back: the bounds above, JSON-quoted.
	maxLabelsJSON = 6 * (MaxLabelName + MaxTags*(MaxTag+3) + MaxNote + 64)
)

// labelsKey is the meta table's key of a session's labels.
const labelsKey = "labels"

// Empty reports whether the run carries no label.
func (l Labels) Empty() bool { return l.Name == "" && len(l.Tags) == 0 && l.Note == "" }

// NewLabels are the labels a run is given (run's --name, --tag and --note): the tags
// trimmed, empty ones and repeats dropped, then checked (Check).
func NewLabels(name, note string, tags []string) (Labels, error) {
	out := Labels{Name: name, Note: note}
	for _, t := range tags {
		if t = strings.TrimSpace(t); t != "" && !out.Has(t) {
			out.Tags = append(out.Tags, t)
		}
	}
	return out, out.Check()
}

// Has reports whether tag is one of the run's tags.
func (l Labels) Has(tag string) bool { return slices.Contains(l.Tags, tag) }

// Check refuses labels beyond the bounds, a name or tag that is not one printable line, and
// a tag holding a comma or a space (tags are given and listed comma-separated).
func (l Labels) Check() error {
	if len(l.Name) > MaxLabelName {
		return fmt.Errorf("name: %d bytes (at most %d)", len(l.Name), MaxLabelName)
	}
	if !oneLine(l.Name) {
		return fmt.Errorf("name %q: want one line of printable text", l.Name)
	}
	if len(l.Tags) > MaxTags {
		return fmt.Errorf("%d tags (at most %d)", len(l.Tags), MaxTags)
	}
	for _, t := range l.Tags {
		switch {
		case t == "":
			return errors.New("an empty tag")
		case len(t) > MaxTag:
			return fmt.Errorf("tag %.20q…: %d bytes (at most %d)", t, len(t), MaxTag)
		case !oneLine(t) || strings.ContainsAny(t, ", \t"):
			return fmt.Errorf("tag %q: want printable text without commas or spaces", t)
		}
	}
	if len(l.Note) > MaxNote {
		return fmt.Errorf("note: %d bytes (at most %d)", len(l.Note), MaxNote)
	}
	if !utf8.ValidString(l.Note) || SafeLines(l.Note) != l.Note {
		return errors.New("note: want printable text")
	}
	return nil
}

// oneLine reports whether s is valid, printable text on one line.
func oneLine(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsAny(s, "\n\r\t") && SafeText(s) == s
}

// Edit is a change of labels (the tag command's): Name and Note replace the run's when
// set (SetName, SetNote; an empty value clears), Add and Remove add and remove tags.
type Edit struct {
	Name, Note       string
	SetName, SetNote bool
	Add, Remove      []string
}

// Apply returns l changed by e, tags kept in the order they were added, none twice.
func (e Edit) Apply(l Labels) Labels {
	out := Labels{Name: l.Name, Note: l.Note}
	if e.SetName {
		out.Name = e.Name
	}
	if e.SetNote {
		out.Note = e.Note
	}
	for _, t := range append(slices.Clone(l.Tags), e.Add...) {
		if !slices.Contains(out.Tags, t) && !slices.Contains(e.Remove, t) {
			out.Tags = append(out.Tags, t)
		}
	}
	return out
}

// readLabels reads a session's labels, bounded: a stored value longer than maxLabelsJSON,
// one that does not decode, or labels beyond the bounds are an error (none stored: empty).
func readLabels(q interface {
	QueryRow(string, ...any) *sql.Row
}) (Labels, error) {
	var n sql.NullInt64
	if err := q.QueryRow(`SELECT length(CAST(value AS BLOB)) FROM meta WHERE key = ?`, labelsKey).Scan(&n); errors.Is(err, sql.ErrNoRows) {
		return Labels{}, nil
	} else if err != nil {
		return Labels{}, fmt.Errorf("labels: %w", err)
	}
	if !n.Valid || n.Int64 > maxLabelsJSON {
		return Labels{}, fmt.Errorf("labels: %d bytes stored (at most %d)", n.Int64, maxLabelsJSON)
	}
	var raw string
	if err := q.QueryRow(`SELECT value FROM meta WHERE key = ?`, labelsKey).Scan(&raw); err != nil {
		return Labels{}, fmt.Errorf("labels: %w", err)
	}
	var l Labels
	if err := untrusted.Unmarshal([]byte(raw), &l); err != nil {
		return Labels{}, fmt.Errorf("labels: %w", err)
	}
	if err := l.Check(); err != nil {
		return Labels{}, fmt.Errorf("labels: %w", err)
	}
	return l, nil
}

// writeLabels stores l (none: the key removed).
func writeLabels(tx *sql.Tx, l Labels) error {
	if l.Empty() {
		_, err := tx.Exec(`DELETE FROM meta WHERE key = ?`, labelsKey)
		return err
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	_, err = tx.Exec(`INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, labelsKey, string(b))
	return err
}

// SetLabels stores the run's labels (run --name, --tag, --note) in the session it writes.
func (w *Writer) SetLabels(l Labels) error {
	if err := l.Check(); err != nil {
		return fmt.Errorf("sessions: labels of %s: %w", w.path, err)
	}
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return fmt.Errorf("sessions: labels of %s: writer closed", w.path)
	}
	if err := inTx(w.db, func(tx *sql.Tx) error { return writeLabels(tx, l) }); err != nil {
		return fmt.Errorf("sessions: labels of %s: %w", w.path, err)
	}
	return nil
}

// Labels reads the session's labels now (a run's own, or set since by Relabel), bounded.
func (r *Reader) Labels() (Labels, error) {
	l, err := readLabels(r.db)
	if err != nil {
		return Labels{}, fmt.Errorf("sessions: %s: %w", r.path, err)
	}
	return l, nil
}

// Relabel changes the labels of the session at path (windtunnel tag) and returns them,
// touching nothing else, in one transaction (editSession: a finished session under its
// lock, a live one on this host beside its writer, one whose writer runs on another host
// refused).
func Relabel(path string, e Edit) (Labels, error) {
	var out Labels
	err := editSession(path, "relabel", "relabel it there", func(tx *sql.Tx) error {
		old, err := readLabels(tx)
		if err != nil {
			old = Labels{} // unreadable labels are replaced, not kept
		}
		out = e.Apply(old)
		if err := out.Check(); err != nil {
			return err
		}
		return writeLabels(tx, out)
	})
	if err != nil {
		return Labels{}, err
	}
	return out, nil
}
