package sessions

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// TestEventByRoundTrip checks that who sent an event is stored and read back.
func TestEventByRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.wtlab")
	w, err := Create(path, testMeta(), WriterOptions{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{Step: 3, WallS: 0.5, Kind: EventPause},
		{Step: 4, WallS: 0.75, Kind: EventHead, Layer: 1, Head: 0, By: "ssh:SHA256:abc"},
	}
	w.Record(Record{Step: 3, State: Training})
	for _, e := range want {
		w.Event(e)
	}
	r := closeAndOpen(t, w, path)
	got, err := r.Events(-1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events\n got %+v\nwant %+v", got, want)
	}
}

// oldSchema is the events table as written before Event.By was recorded.
const oldSchema = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE records(
	seq INTEGER PRIMARY KEY,
	step INTEGER NOT NULL,
	wall_s REAL, loss REAL, lr REAL, grad_norm REAL, steps_per_s REAL,
	state TEXT NOT NULL, message TEXT NOT NULL DEFAULT '', gpu_share REAL,
	bit_error_position REAL, bit_error_sample REAL, kl_bits REAL, tvd REAL, accuracy REAL,
	eval BLOB, snapshot BLOB);
CREATE INDEX records_step ON records(step);
CREATE TABLE events(
	seq INTEGER PRIMARY KEY, step INTEGER NOT NULL, wall_s REAL,
	kind TEXT NOT NULL, layer INTEGER NOT NULL, head INTEGER NOT NULL, turn_on INTEGER NOT NULL);
CREATE TABLE checkpoints(step INTEGER PRIMARY KEY, wall_s REAL, params BLOB NOT NULL, optimizer BLOB);
`

// writeOldSession writes a session in the layout without events.sent_by: one record at
// step 1 and a head event at step 1.
func writeOldSession(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mj, err := json.Marshal(testMeta())
	if err != nil {
		t.Fatal(err)
	}
	stmts := []struct {
		q    string
		args []any
	}{
		{oldSchema, nil},
		{`INSERT INTO meta(key, value) VALUES('application', ?), ('schema', ?), ('meta', ?)`, []any{Application, strconv.Itoa(1), string(mj)}},
		{`INSERT INTO records(step, wall_s, state) VALUES(1, 0.1, 'training')`, nil},
		{`INSERT INTO events(step, wall_s, kind, layer, head, turn_on) VALUES(1, 0.1, 'head', 0, 1, 0)`, nil},
	}
	for _, s := range stmts {
		if _, err := db.Exec(s.q, s.args...); err != nil {
			t.Fatalf("%s: %v", s.q, err)
		}
	}
}

// TestEventByOldLayout checks that a session without the sent_by column still reads, and
// that resuming it adds the column so that new events keep who sent them.
func TestEventByOldLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.wtlab")
	writeOldSession(t, path)
	old := Event{Step: 1, WallS: 0.1, Kind: EventHead, Layer: 0, Head: 1}

	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Events(-1)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []Event{old}) {
		t.Fatalf("old layout events %+v", got)
	}

	w, _, err := Append(path, 1, WriterOptions{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	added := Event{Step: 2, WallS: 0.2, Kind: EventStop, By: "ssh:SHA256:xyz"}
	w.Record(Record{Step: 2, State: Stopped})
	w.Event(added)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err = r.Events(-1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []Event{old, added}) {
		t.Errorf("after append\n got %+v\nwant %+v", got, []Event{old, added})
	}
}
