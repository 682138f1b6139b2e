package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A session holds the host it ran on and the key fingerprints of whoever steered it over
// SSH: Create makes it (and the SQLite files beside it, which take its mode) readable by
// its owner only, and the directories it creates likewise. Share a session by copying it.
const (
	// FileMode is the mode of a new session file and of its lock file.
	FileMode fs.FileMode = 0o600
	// DirMode is the mode of the directories Create makes for a session.
	DirMode fs.FileMode = 0o700
)

// DefaultInterval is how often a Writer commits what it has been given.
const DefaultInterval = time.Second

// Writer records one run into a session file. Record, Event and Checkpoint only queue (they
// never touch the disk, so the trainer is never blocked); a background goroutine commits the
// queue in one transaction every interval, and Close commits the rest and leaves a single
// self-contained file.
type Writer struct {
	path     string
	ident    os.FileInfo // the file as opened: present checks the path still names it
	db       *sql.DB
	lock     *fileLock
	interval time.Duration

	fmu     sync.Mutex // one commit at a time: Flush waits for the loop's commit in flight
	mu      sync.Mutex
	recs    []Record
	events  []Event
	ckpts   []*Checkpoint
	err     error
	commits int
	kick    chan struct{}
	done    chan struct{}
	stopped chan struct{}
	closed  bool
}

// WriterOptions tune a Writer.
type WriterOptions struct {
	// Interval between commits (default DefaultInterval).
	Interval time.Duration
}

// Create makes a new session file at path (its directory is created; an existing file is
// an error) and starts its writer. The writer holds the session's lock (see Append) until
// Close; a file another live writer holds is refused with a *LockError (ErrLocked).
func Create(path string, meta Meta, opt WriterOptions) (*Writer, error) {
	if dir := dirOf(path); dir != "" {
		if err := os.MkdirAll(dir, DirMode); err != nil {
			return nil, fmt.Errorf("sessions: create %s: %w", path, err)
		}
	}
	lock, err := acquireLock(path)
	if err != nil {
		return nil, err
	}
	if err := sidesAbsent(path); err != nil {
		lock.release()
		return nil, fmt.Errorf("sessions: create %s: %w", path, err)
	}
	// The file is made here, owner-only, before SQLite opens it (SQLite would make it 0644;
	// its -wal and -shm files take the file's mode).
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, FileMode)
	if errors.Is(err, fs.ErrExist) {
		lock.release()
		return nil, fmt.Errorf("sessions: create %s: file exists", path)
	}
	if err != nil {
		lock.release()
		return nil, fmt.Errorf("sessions: create %s: %w", path, err)
	}
	ident, err := f.Stat()
	f.Close()
	if err != nil {
		os.Remove(path)
		lock.release()
		return nil, fmt.Errorf("sessions: create %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		os.Remove(path)
		lock.release()
		return nil, fmt.Errorf("sessions: create %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	meta.Path = ""
	mj, err := json.Marshal(meta)
	if err != nil {
		db.Close()
		os.Remove(path)
		lock.release()
		return nil, fmt.Errorf("sessions: create %s: meta: %w", path, err)
	}
	err = inTx(db, func(tx *sql.Tx) error {
		if _, err := tx.Exec(schema); err != nil {
			return err
		}
		for k, v := range map[string]string{"application": Application, "schema": strconv.Itoa(SchemaVersion), "meta": string(mj)} {
			if _, err := tx.Exec(`INSERT INTO meta(key, value) VALUES(?, ?)`, k, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		os.Remove(path)
		lock.release()
		return nil, fmt.Errorf("sessions: create %s: %w", path, err)
	}
	return start(path, ident, db, lock, opt), nil
}

// Append reopens an existing session to continue it after step: records, events and
// checkpoints later than step are removed (a resumed run recomputes them), and a session
// written before events recorded who sent them gains that column. It returns the writer
// and the session's meta.
//
// The records kept then read as one run: a final record at or before step (done, stopped
// or failed: the end of the run being continued) no longer ends it, so Append rewrites it
// in place as a training record whose message says it was resumed (see supersedeEnd). A
// resumed run that changes the planned length records it with UpdateMeta.
//
// A writer holds an advisory lock (flock(2)) on path+".lock", which holds its pid and host, for its
// lifetime, and Close removes that file; a session another live writer holds is refused
// with a *LockError (ErrLocked) naming the holder. Readers never take the lock. A lock file
// left by a killed writer holds no lock and is reused.
func Append(path string, step int, opt WriterOptions) (*Writer, Meta, error) {
	if err := checkFile(path); err != nil {
		return nil, Meta{}, openError("open", path, err)
	}
	lock, err := acquireLock(path)
	if err != nil {
		return nil, Meta{}, err
	}
	ident, err := os.Stat(path)
	if err != nil {
		lock.release()
		return nil, Meta{}, openError("open", path, err)
	}
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		lock.release()
		return nil, Meta{}, fmt.Errorf("sessions: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	meta, err := readMeta(db)
	if err == nil {
		err = checkSteps(db)
	}
	if err != nil {
		db.Close()
		lock.release()
		return nil, Meta{}, fmt.Errorf("sessions: open %s: %w", path, err)
	}
	err = inTx(db, func(tx *sql.Tx) error {
		for _, q := range []string{`DELETE FROM records WHERE step > ?`, `DELETE FROM events WHERE step > ?`, `DELETE FROM checkpoints WHERE step > ?`, supersedeEnd} {
			if _, err := tx.Exec(q, step); err != nil {
				return err
			}
		}
		has, err := hasSentBy(tx)
		if err != nil {
			return fmt.Errorf("events layout: %w", err)
		}
		if !has {
			if _, err := tx.Exec(addSentBy); err != nil {
				return fmt.Errorf("events: add sent_by: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		lock.release()
		return nil, Meta{}, fmt.Errorf("sessions: open %s: %w", path, err)
	}
	meta.Path = path
	return start(path, ident, db, lock, opt), meta, nil
}

// supersedeEnd turns the final records of a run being continued after step (?) into
// training records: readers take a run's state from its newest record, and one that stays
// "done" among the records of the run's continuation would read as its end (export, the
// dashboard at that step, ls of a continuation killed before its first commit). The record
// keeps its evaluation and snapshot; its message says it was resumed.
const supersedeEnd = `UPDATE records SET state = 'training',
	message = CASE message WHEN '' THEN 'resumed' ELSE message || '; resumed' END
	WHERE step <= ? AND state IN ('done', 'stopped', 'failed')`

func start(path string, ident os.FileInfo, db *sql.DB, lock *fileLock, opt WriterOptions) *Writer {
	if opt.Interval <= 0 {
		opt.Interval = DefaultInterval
	}
	w := &Writer{path: path, ident: ident, db: db, lock: lock, interval: opt.Interval,
		kick: make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{})}
	go w.loop()
	return w
}

func dirOf(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if os.IsPathSeparator(path[i]) {
			return path[:i]
		}
	}
	return ""
}

func inTx(db *sql.DB, f func(*sql.Tx) error) error {
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Path is the session file.
func (w *Writer) Path() string { return w.path }

// Record queues one record.
func (w *Writer) Record(r Record) {
	w.mu.Lock()
	if !w.closed {
		w.recs = append(w.recs, r)
	}
	w.mu.Unlock()
}

// Event queues one operator event.
func (w *Writer) Event(e Event) {
	w.mu.Lock()
	if !w.closed {
		w.events = append(w.events, e)
	}
	w.mu.Unlock()
}

// Checkpoint queues a checkpoint; the writer owns c from now on. Only the newest
// checkpoint keeps its optimiser state on disk (older ones keep the parameters, for probing).
func (w *Writer) Checkpoint(c *Checkpoint) {
	w.mu.Lock()
	if !w.closed {
		w.ckpts = append(w.ckpts, c)
	}
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// Err returns the first write error, if any (the writer stops writing after one); one
// wrapping ErrGone when the session file was removed or replaced.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Commits is the number of transactions committed so far.
func (w *Writer) Commits() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.commits
}

func (w *Writer) loop() {
	defer close(w.stopped)
	tick := time.NewTicker(w.interval)
	defer tick.Stop()
	for {
		select {
		case <-w.done:
			w.flush()
			return
		case <-tick.C:
		case <-w.kick:
		}
		w.flush()
	}
}

// Flush commits everything queued so far, after any commit already in flight, and reports
// the first write error.
func (w *Writer) Flush() error {
	w.flush()
	return w.Err()
}

func (w *Writer) flush() {
	w.fmu.Lock()
	defer w.fmu.Unlock()
	w.mu.Lock()
	recs, events, ckpts := w.recs, w.events, w.ckpts
	w.recs, w.events, w.ckpts = nil, nil, nil
	failed := w.err != nil
	w.mu.Unlock()
	if failed {
		return
	}
	err := w.present()
	if err == nil && len(recs)+len(events)+len(ckpts) == 0 {
		return
	}
	if err == nil {
		err = inTx(w.db, func(tx *sql.Tx) error { return writeAll(tx, recs, events, ckpts) })
	}
	w.mu.Lock()
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("sessions: write %s: %w", w.path, err)
	}
	if err == nil {
		w.commits++
	}
	w.mu.Unlock()
}

func writeAll(tx *sql.Tx, recs []Record, events []Event, ckpts []*Checkpoint) error {
	if len(recs) > 0 {
		st, err := tx.Prepare(`INSERT INTO records(step, wall_s, loss, lr, grad_norm, steps_per_s, state, message, gpu_share,
			bit_error_position, bit_error_sample, kl_bits, tvd, accuracy, eval, snapshot)
			VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, r := range recs {
			var bep, bes, kl, tvd, acc any
			var ev, sn []byte
			if e := r.Eval; e != nil {
				bep, bes, kl, tvd, acc = real(e.BitErrorPosition), real(e.BitErrorSample), real(e.KLBits), real(e.TVD), real(e.Accuracy)
				// The curves are Num: a diverged model's NaN entropies are recorded as null,
				// never refused (a refused record would cost the whole commit around it).
				ev, err = json.Marshal(evalBlob{toNums(e.ModelEntropy), toNums(e.BayesEntropy), e.Ablated, e.Lengths, e.KLByPosition, e.TVDByPosition})
				if err != nil {
					return fmt.Errorf("record at step %d: eval: %w", r.Step, err)
				}
			}
			msg := r.Message
			if r.Snapshot != nil {
				if sn, err = json.Marshal(r.Snapshot); err != nil {
					// A snapshot that cannot be encoded (a NaN in a plain float) must not
					// cost the records around it: keep the record, say why it has none.
					sn = nil
					msg = strings.TrimSpace(msg + " (snapshot not recorded: " + err.Error() + ")")
				}
			}
			if _, err := st.Exec(r.Step, real(r.WallS), real(r.Loss), real(r.LR), real(r.GradNorm), real(r.StepsPerS),
				string(r.State), msg, real(r.GPUShare), bep, bes, kl, tvd, acc, ev, sn); err != nil {
				return fmt.Errorf("record at step %d: %w", r.Step, err)
			}
		}
	}
	for _, e := range events {
		if _, err := tx.Exec(`INSERT INTO events(step, wall_s, kind, layer, head, turn_on, sent_by) VALUES(?,?,?,?,?,?,?)`,
			e.Step, real(e.WallS), string(e.Kind), e.Layer, e.Head, e.On, e.By); err != nil {
			return fmt.Errorf("event at step %d: %w", e.Step, err)
		}
	}
	for _, c := range ckpts {
		p, err := encodeParams(c)
		if err != nil {
			return err
		}
		o, err := encodeOptimizer(c)
		if err != nil {
			return err
		}
		if o != nil {
			if _, err := tx.Exec(`UPDATE checkpoints SET optimizer = NULL WHERE step < ?`, c.Step); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(`INSERT OR REPLACE INTO checkpoints(step, wall_s, params, optimizer) VALUES(?,?,?,?)`,
			c.Step, real(c.WallS), p, o); err != nil {
			return fmt.Errorf("checkpoint at step %d: %w", c.Step, err)
		}
	}
	return nil
}

// evalBlob is the JSON stored in records.eval: the per-position curves (entropies, KL,
// TVD), the ablated heads and the length-generalisation curve. Every number is a Num: a
// non-finite one is stored as null and read back as NaN.
type evalBlob struct {
	ModelEntropy []Num  `json:"model_entropy_bits"`
	BayesEntropy []Num  `json:"bayes_entropy_bits"`
	Ablated      []Head `json:"ablated,omitempty"`
	// Lengths is the hmm length-generalisation curve (absent from sessions written before it).
	Lengths []LengthScore `json:"lengths,omitempty"`
	// KLByPosition and TVDByPosition are the per-position KL and TVD curves (absent from
	// sessions written before them, which decode with both nil).
	KLByPosition  []Num `json:"kl_by_position,omitempty"`
	TVDByPosition []Num `json:"tvd_by_position,omitempty"`
}

// Close commits what is queued, folds the write-ahead log into the file (so the session is
// one self-contained file to copy) and closes it. It returns the first write error.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return w.Err()
	}
	w.closed = true
	w.mu.Unlock()
	close(w.done)
	<-w.stopped
	err := w.Err()
	// Folding the log in must not wait for readers (a replay or attach in the middle of a
	// read would hold it up for the whole busy timeout): with a reader there, the checkpoint
	// copies what it can and the last reader to close finishes the job (tidy).
	w.db.Exec(`PRAGMA busy_timeout = 0`)
	if _, e := w.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); e != nil && err == nil {
		err = fmt.Errorf("sessions: close %s: %w", w.path, e)
	}
	// Leaving WAL mode removes the -wal and -shm files but needs the file to itself: with a
	// Reader attached it stays in WAL mode (already checkpointed) and the last Reader to
	// close leaves it (tidy).
	w.db.Exec(`PRAGMA journal_mode=DELETE`)
	if e := w.db.Close(); e != nil && err == nil {
		err = fmt.Errorf("sessions: close %s: %w", w.path, e)
	}
	w.lock.release()
	return err
}
