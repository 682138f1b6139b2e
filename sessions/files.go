package sessions

import (
	"database/sql"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
)

// A session is one file at rest. While a Writer is open, SQLite keeps two files beside it:
// the write-ahead log (path-wal) and its index (path-shm). The Writer's Close folds the log
// in and takes the file out of WAL mode, which removes both, unless a Reader still has the
// file open; then the last Reader to close does the same (tidy). A Reader never creates
// them for a file that has none: a file left in WAL mode without its log (no Writer can have
// it open, since a Writer's log lasts as long as it does) is opened immutable, which reads
// it as it is, also in a read-only directory.

// walMode reports whether the file's header says it is in WAL mode (its read and write
// format versions are 2).
func walMode(path string) (bool, error) {
	f, err := openRegular(path, os.O_RDONLY, 0, false)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 20)
	if _, err := io.ReadFull(f, head); err != nil {
		return false, err
	}
	return head[18] == 2 && head[19] == 2, nil
}

// exists reports whether a regular file (not a link, a FIFO, ...) is at path.
func exists(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode().IsRegular()
}

// readDSN is the data source name a Reader opens path with: read-only, and immutable when
// the file is in WAL mode without a log beside it (read-only would create the log and its
// index, and could not in a read-only directory).
func readDSN(path string) (string, error) {
	wal, err := walMode(path)
	if err != nil {
		return "", err
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("mode", "ro")
	if wal && !exists(walPath(path)) {
		q.Add("immutable", "1")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode(), nil
}

// tidy makes a closed session one file again when its log outlived the Writer (a Reader
// had the file open when the Writer closed, or the Writer was killed): it opens the file
// read-write, without creating it or waiting for locks, and takes it out of WAL mode, which
// folds the log in and removes path-wal and path-shm. While anyone else has the file open
// (a Writer, another Reader) SQLite refuses at once and nothing changes. It is best-effort:
// an unwritable file or directory leaves things as they are.
func tidy(path string) {
	if !exists(walPath(path)) {
		return
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=rw")
	if err != nil {
		return
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var mode string
	db.QueryRow(`PRAGMA journal_mode=DELETE`).Scan(&mode)
}

// sidesAbsent refuses to create a session while its write-ahead log or index (path-wal,
// path-shm) is already there: SQLite will not open one that is a symbolic link (planted, say,
// in a shared /tmp) and failed with a bare "unable to open database file (14)", and it would
// replay a log left by an earlier session at this path into the new file. The error names
// the file and what it is.
func sidesAbsent(path string) error {
	for _, side := range []string{path + "-wal", path + "-shm"} {
		st, err := os.Lstat(side)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", side, err)
		}
		what := "a regular file, left by an earlier session at this path?"
		if st.Mode()&fs.ModeSymlink != 0 {
			to, _ := os.Readlink(side)
			what = "a symbolic link to " + SafeText(to)
		} else if !st.Mode().IsRegular() {
			what = FileKind(st.Mode())
		}
		return fmt.Errorf("%s is already there (%s): SQLite keeps its log and index beside a session, so a new one needs neither; remove it", side, what)
	}
	return nil
}
