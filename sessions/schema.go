package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"strconv"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"

	"windtunnel/backends/untrusted"
)

// SchemaVersion is the session file layout this build writes and the newest it reads. A
// column added later with a default (events.sent_by) does not change it: older builds
// select the columns they know and ignore it, this build reads files without it.
const SchemaVersion = 1

// Application marks a session file in the meta table.
const Application = "windtunnel"

// ErrNotSession is returned (wrapped) for a file that is not a windtunnel session.
var ErrNotSession = errors.New("not a windtunnel session")

// ErrNewerSchema is returned (wrapped) for a session written by a newer windtunnel.
var ErrNewerSchema = errors.New("session written by a newer windtunnel")

const schema = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE records(
	seq INTEGER PRIMARY KEY,
	step INTEGER NOT NULL,
	wall_s REAL, loss REAL, lr REAL, grad_norm REAL, steps_per_s REAL,
	state TEXT NOT NULL, message TEXT NOT NULL DEFAULT '', gpu_share REAL,
	bit_error_position REAL, bit_error_sample REAL, kl_bits REAL, tvd REAL, accuracy REAL,
	eval BLOB, snapshot BLOB);
CREATE INDEX records_step ON records(step);
CREATE INDEX records_eval ON records(step) WHERE eval IS NOT NULL;
CREATE INDEX records_snapshot ON records(step) WHERE snapshot IS NOT NULL;
CREATE TABLE events(
	seq INTEGER PRIMARY KEY, step INTEGER NOT NULL, wall_s REAL,
	kind TEXT NOT NULL, layer INTEGER NOT NULL, head INTEGER NOT NULL, turn_on INTEGER NOT NULL,
	sent_by TEXT NOT NULL DEFAULT '');
CREATE TABLE checkpoints(step INTEGER PRIMARY KEY, wall_s REAL, params BLOB NOT NULL, optimizer BLOB);
`

// addSentBy gives the events table of a session written before Event.By was recorded its
// sent_by column (Append runs it on such files).
const addSentBy = `ALTER TABLE events ADD COLUMN sent_by TEXT NOT NULL DEFAULT ''`

// hasSentBy reports whether the session's events table has the sent_by column.
func hasSentBy(q interface {
	QueryRow(string, ...any) *sql.Row
}) (bool, error) {
	var n int
	if err := q.QueryRow(`SELECT count(*) FROM pragma_table_info('events') WHERE name = 'sent_by'`).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

// sqliteMagic opens every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	if readOnly {
		q.Add("mode", "ro")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// openError wraps an error opening the session at path so that the path is named once:
// an *fs.PathError for path itself (a missing or unreadable file) names it already.
func openError(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return fmt.Errorf("sessions: %w", err)
	}
	return fmt.Errorf("sessions: %s %s: %w", op, path, err)
}

// checkFile rejects what is plainly not a complete SQLite file before the driver sees it.
// It is where every Reader and Writer of an existing session first opens it: anything but
// a regular file (a FIFO, whose open would wait for a writer forever, a device, a socket)
// is refused with ErrNotRegular without blocking, a directory with ErrNotSession, and so
// are a log or index beside it (path-wal, path-shm) that are not regular files, which
// SQLite would open next.
func checkFile(path string) error {
	f, err := openRegular(path, os.O_RDONLY, 0, false)
	if errors.Is(err, ErrNotRegular) {
		if st, serr := os.Stat(path); serr == nil && st.IsDir() {
			return fmt.Errorf("%w: is a directory", ErrNotSession)
		}
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	for _, side := range []string{walPath(path), shmPath(path)} {
		if sst, err := os.Lstat(side); err == nil && !sst.Mode().IsRegular() {
			return fmt.Errorf("%s: %w (%s)", side, ErrNotRegular, FileKind(sst.Mode()))
		}
	}
	head := make([]byte, 100)
	if n, _ := f.Read(head); n < 100 || string(head[:16]) != sqliteMagic {
		return fmt.Errorf("%w: not an SQLite file", ErrNotSession)
	}
	pageSize := int64(head[16])<<8 | int64(head[17])
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(head[28])<<24 | int64(head[29])<<16 | int64(head[30])<<8 | int64(head[31])
	valid := string(head[24:28]) == string(head[92:96])
	if _, err := os.Stat(walPath(path)); err != nil && valid && pages > 0 && st.Size() < pages*pageSize {
		return fmt.Errorf("%w: truncated (%d bytes, header says %d)", ErrNotSession, st.Size(), pages*pageSize)
	}
	return nil
}

// readMeta checks the schema version and reads the run's description.
func readMeta(db *sql.DB) (Meta, error) {
	var m Meta
	rows, err := db.Query(`SELECT key, value FROM meta WHERE key IN ('application', 'schema', 'meta')`)
	if err != nil {
		return m, fmt.Errorf("%w: %v", ErrNotSession, err)
	}
	defer rows.Close()
	kv := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return m, fmt.Errorf("%w: meta: %v", ErrNotSession, err)
		}
		kv[k] = v
	}
	if err := rows.Err(); err != nil {
		return m, fmt.Errorf("%w: meta: %v", ErrNotSession, err)
	}
	if kv["application"] != Application {
		return m, fmt.Errorf("%w: no windtunnel marker", ErrNotSession)
	}
	v, err := strconv.Atoi(kv["schema"])
	if err != nil || v < 1 {
		return m, fmt.Errorf("%w: schema version %q", ErrNotSession, kv["schema"])
	}
	if v > SchemaVersion {
		return m, fmt.Errorf("%w: schema %d, this build reads up to %d (upgrade windtunnel)", ErrNewerSchema, v, SchemaVersion)
	}
	if err := untrusted.Unmarshal([]byte(kv["meta"]), &m); err != nil {
		return m, fmt.Errorf("%w: meta: %v", ErrNotSession, err)
	}
	m.Sanitize()
	return m, checkMeta(m)
}

// real maps a non-finite float to what SQLite can store: NaN becomes NULL (read back as NaN).
func real(x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	return x
}

func unreal(x sql.NullFloat64) float64 {
	if !x.Valid {
		return math.NaN()
	}
	return x.Float64
}
