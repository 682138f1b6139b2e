package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
)

// editSession runs edit in one SQLite transaction on the session at path, touching nothing
// else, and is the one way a session is changed after its run (Relabel, AddUserMetrics). A
// finished session is edited under its lock (Hold), so that no run resumes it meanwhile; a
// live one, whose writer on this host holds the lock, is edited beside it (the writer only
// rewrites its own meta key and appends records, never what edit writes, and SQLite
// serialises the two). A session whose writer runs on another host is refused: SQLite's log
// cannot be shared across hosts. what names the edit in errors ("relabel"), there the
// refusal's advice ("relabel it there").
func editSession(path, what, there string, edit func(*sql.Tx) error) error {
	if err := checkFile(path); err != nil {
		return openError("open", path, err)
	}
	release, err := Hold(path)
	var le *LockError
	switch {
	case errors.As(err, &le):
		if h := LockHolder(path); !h.Local {
			return fmt.Errorf("sessions: %s %s: its writer is not a process of this host (%s): %s, or once it ends", what, path, h.Elsewhere(), there)
		}
	case err != nil:
		return fmt.Errorf("sessions: %s %s: %w", what, path, err)
	default:
		defer release()
	}
	// Read-write, neither creating the file nor changing its journal mode: a live writer's
	// is WAL and stays so; a closed session's stays one file.
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("mode", "rw")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return fmt.Errorf("sessions: %s %s: %w", what, path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := readMeta(db); err != nil {
		return fmt.Errorf("sessions: %s %s: %w", what, path, err)
	}
	if err := inTx(db, edit); err != nil {
		return fmt.Errorf("sessions: %s %s: %w", what, path, err)
	}
	return nil
}
