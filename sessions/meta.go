package sessions

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"windtunnel/backends/untrusted"
)

// UpdateMeta changes the run's description stored in the session while it is being
// written (for instance its control socket, Meta.Socket, which a live run sets when it
// starts listening and clears when it ends); Path is never stored. It commits at once.
func (w *Writer) UpdateMeta(update func(*Meta)) error {
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return fmt.Errorf("sessions: update meta of %s: writer closed", w.path)
	}
	err := inTx(w.db, func(tx *sql.Tx) error {
		var raw string
		if err := tx.QueryRow(`SELECT value FROM meta WHERE key = 'meta'`).Scan(&raw); err != nil {
			return err
		}
		var m Meta
		if err := untrusted.Unmarshal([]byte(raw), &m); err != nil {
			return err
		}
		update(&m)
		m.Path = ""
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		_, err = tx.Exec(`UPDATE meta SET value = ? WHERE key = 'meta'`, string(b))
		return err
	})
	if err != nil {
		return fmt.Errorf("sessions: update meta of %s: %w", w.path, err)
	}
	return nil
}
