package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// SlimOptions says what a slim copy of a session keeps beyond what it always keeps.
type SlimOptions struct {
	// Rows bounds the plain training records kept, thinned evenly by step (0: 1,000).
	Rows int
	// AllGeometry keeps every geometry snapshot, not only the newest.
	AllGeometry bool
	// NoCheckpoint drops every checkpoint, an unfinished run's too (its copy cannot resume).
	NoCheckpoint bool
}

// SlimResult is what Slim kept of a session.
type SlimResult struct {
	// Done says whether the run had ended done: its checkpoints are dropped then; otherwise
	// its newest one is kept whole, so that `run --resume` continues the copy.
	Done bool
	// Checkpoint is the step of the checkpoint kept, -1 when none is.
	Checkpoint int
	// Records and RecordsKept count the records before and after.
	Records, RecordsKept int
	// Bytes and BytesKept are the file sizes before and after.
	Bytes, BytesKept int64
}

// slimRows is the default bound on the plain training records a slim copy keeps.
const slimRows = 1000

// Slim writes to dst (a new file) a copy of the session at src small enough to share: its
// meta, labels, events and user metrics, every evaluation, every evaluation's attention
// summary, the newest geometry snapshot (every one with AllGeometry), every record of a
// state other than training or with a message, the first and last records, and the other
// training records thinned evenly by step to about o.Rows. A run that ended done keeps no
// checkpoint (its copy replays, reports and plots, but cannot be probed or extended); any
// other keeps its newest checkpoint whole and resumes from it, unless o.NoCheckpoint. src is
// read as a Reader reads it (a session whose lock a run holds is refused) and never
// changed; dst is written beside itself and renamed into place, so it is whole or absent.
func Slim(src, dst string, o SlimOptions) (SlimResult, error) {
	res := SlimResult{Checkpoint: -1}
	if err := checkFile(src); err != nil {
		return res, openError("slim", src, err)
	}
	// A run writing src holds its lock: refused. Otherwise src is read as a Reader reads
	// it, without taking the lock, so nothing is written beside it and a read-only folder
	// (a checkout, files come back from another machine) is slimmed too; the copy is one
	// read transaction, whole even if a run started on src meanwhile.
	if h := LockHolder(src); h.Held {
		return res, fmt.Errorf("sessions: slim %s: a run is writing it (%s): slim it once the run ends", src, h.Elsewhere())
	}
	if err := checkSlimTarget(dst); err != nil {
		return res, fmt.Errorf("sessions: slim %s: %w", src, err)
	}
	if st, err := os.Stat(src); err == nil {
		res.Bytes = st.Size()
	}
	// VACUUM INTO writes into a file that is absent or empty: an empty one made here,
	// exclusively and owner-only, beside dst.
	tmpf, err := os.CreateTemp(filepath.Dir(dst), ".windtunnel-slim-*")
	if err != nil {
		return res, fmt.Errorf("sessions: slim %s: %w", src, err)
	}
	tmp := tmpf.Name()
	tmpf.Close()
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmp)
			os.Remove(tmp + "-journal")
		}
	}()
	if err := copySession(src, tmp); err != nil {
		return res, fmt.Errorf("sessions: slim %s: %w", src, err)
	}
	if err := pruneCopy(tmp, o, &res); err != nil {
		return res, fmt.Errorf("sessions: slim %s: %w", src, err)
	}
	if err := os.Chmod(tmp, FileMode); err != nil {
		return res, fmt.Errorf("sessions: slim %s: %w", src, err)
	}
	if err := checkSlimTarget(dst); err != nil {
		return res, fmt.Errorf("sessions: slim %s: %w", src, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return res, fmt.Errorf("sessions: slim %s: %w", src, err)
	}
	ok = true
	if st, err := os.Stat(dst); err == nil {
		res.BytesKept = st.Size()
	}
	return res, nil
}

// checkSlimTarget refuses a dst that exists (a slim copy never replaces a file) or whose
// SQLite log and index are already beside it.
func checkSlimTarget(dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("%s already exists: a slim copy is a new file", dst)
	}
	if err := CheckNewFile(dst); err != nil {
		return err
	}
	return sidesAbsent(dst)
}

// copySession copies the session at src into the empty file tmp, whole, with SQLite's
// VACUUM INTO (which reads src as a reader does).
func copySession(src, tmp string) error {
	in, err := readDSN(src)
	if err != nil {
		return err
	}
	db, err := sql.Open("sqlite", in)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	// The checks a Reader makes: a file from someone else is a session, its steps bounded.
	if _, err := readMeta(db); err != nil {
		return err
	}
	if err := checkSteps(db); err != nil {
		return err
	}
	_, err = db.Exec(`VACUUM INTO ?`, tmp)
	return err
}

// pruneCopy removes from the copy at tmp what a slim session does not keep, then compacts
// it into one file out of WAL mode.
func pruneCopy(tmp string, o SlimOptions, res *SlimResult) error {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: tmp}).EscapedPath()+"?mode=rw")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`PRAGMA journal_mode=DELETE`); err != nil {
		return err
	}
	err = inTx(db, func(tx *sql.Tx) error {
		var last string
		var maxStep int
		if err := tx.QueryRow(`SELECT count(*), coalesce(max(step), 0) FROM records`).Scan(&res.Records, &maxStep); err != nil {
			return err
		}
		err := tx.QueryRow(`SELECT state FROM records ORDER BY seq DESC LIMIT 1`).Scan(&last)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		res.Done = State(last) == Done
		if err := pruneCheckpoints(tx, res, o.NoCheckpoint); err != nil {
			return err
		}
		if !o.AllGeometry {
			if err := dropOldGeometry(tx); err != nil {
				return err
			}
		}
		rows := o.Rows
		if rows <= 0 {
			rows = slimRows
		}
		stride := max(1, (maxStep+rows-1)/rows)
		if _, err := tx.Exec(`DELETE FROM records WHERE eval IS NULL AND snapshot IS NULL
			AND state = ? AND message = '' AND step % ? != 0
			AND seq != (SELECT max(seq) FROM records) AND seq != (SELECT min(seq) FROM records)`,
			string(Training), stride); err != nil {
			return err
		}
		return tx.QueryRow(`SELECT count(*) FROM records`).Scan(&res.RecordsKept)
	})
	if err != nil {
		return err
	}
	_, err = db.Exec(`VACUUM`)
	return err
}

// pruneCheckpoints drops every checkpoint of a run that ended done (of any run with none),
// and all but the newest (kept whole, optimizer state and all) of any other.
func pruneCheckpoints(tx *sql.Tx, res *SlimResult, none bool) error {
	if res.Done || none {
		_, err := tx.Exec(`DELETE FROM checkpoints`)
		return err
	}
	var step sql.NullInt64
	if err := tx.QueryRow(`SELECT max(step) FROM checkpoints`).Scan(&step); err != nil {
		return err
	}
	if !step.Valid {
		return nil
	}
	res.Checkpoint = int(step.Int64)
	_, err := tx.Exec(`DELETE FROM checkpoints WHERE step < ?`, step.Int64)
	return err
}

// dropOldGeometry clears every geometry snapshot but the newest (IsGeometry); the
// evaluations' attention summaries stay. A snapshot that does not decode is cleared too.
func dropOldGeometry(tx *sql.Tx) error {
	rows, err := tx.Query(`SELECT seq, snapshot FROM records WHERE snapshot IS NOT NULL ORDER BY seq DESC`)
	if err != nil {
		return err
	}
	var drop []int64
	newest := true
	for rows.Next() {
		var seq int64
		var b []byte
		if err := rows.Scan(&seq, &b); err != nil {
			rows.Close()
			return err
		}
		s, err := decodeSnapshot(b)
		switch {
		case err != nil:
			drop = append(drop, seq)
		case s.IsGeometry() && newest:
			newest = false
		case s.IsGeometry():
			drop = append(drop, seq)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, seq := range drop {
		if _, err := tx.Exec(`UPDATE records SET snapshot = NULL WHERE seq = ?`, seq); err != nil {
			return err
		}
	}
	return nil
}
