package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Reader opens a session file read-only, also while a live run is still writing it. It
// satisfies Feed for replay: every query goes through an index, so jumping to a step reads
// a few pages, not the file.
type Reader struct {
	path string
	db   *sql.DB
	meta Meta

	mu      sync.Mutex
	changed chan struct{}
	stop    chan struct{}
	wg      sync.WaitGroup
	closed  bool
	snaps   snapCache
	// sentBy is set once the events table is known to have the sent_by column (files
	// written before Event.By was recorded lack it until a resumed run adds it).
	sentBy atomic.Bool
}

// Open opens a session for reading. A file that is not a session, is truncated or was
// written by a newer schema gives an error wrapping ErrNotSession or ErrNewerSchema. A
// closed session is opened without creating anything beside it, so it reads from a
// read-only directory too.
func Open(path string) (*Reader, error) {
	if err := checkFile(path); err != nil {
		return nil, openError("open", path, err)
	}
	src, err := readDSN(path)
	if err != nil {
		return nil, openError("open", path, err)
	}
	db, err := sql.Open("sqlite", src)
	if err != nil {
		return nil, fmt.Errorf("sessions: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(2)
	meta, err := readMeta(db)
	if err == nil {
		err = checkSteps(db)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sessions: open %s: %w", path, err)
	}
	meta.Path = path
	return &Reader{path: path, db: db, meta: meta, changed: make(chan struct{}, 1), stop: make(chan struct{})}, nil
}

// Close releases the file. The last to leave a session whose Writer has closed makes it
// one file again (see tidy).
func (r *Reader) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	close(r.stop)
	r.mu.Unlock()
	r.wg.Wait()
	close(r.changed)
	err := r.db.Close()
	tidy(r.path)
	return err
}

// Follow polls the file every interval for records and events a live writer adds and
// signals Changed when there are new ones.
func (r *Reader) Follow(interval time.Duration) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		var last [2]int64
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			var now [2]int64
			r.db.QueryRow(`SELECT coalesce(max(seq), 0) FROM records`).Scan(&now[0])
			r.db.QueryRow(`SELECT coalesce(max(seq), 0) FROM events`).Scan(&now[1])
			if now != last {
				last = now
				select {
				case r.changed <- struct{}{}:
				default:
				}
			}
			select {
			case <-r.stop:
				return
			case <-tick.C:
			}
		}
	}()
}

// Meta describes the run.
func (r *Reader) Meta() Meta { return r.meta }

// Live is false: a reader takes no commands.
func (r *Reader) Live() bool { return false }

// Changed is signalled when Follow sees new records; it is closed by Close.
func (r *Reader) Changed() <-chan struct{} { return r.changed }

// Send refuses: a replay takes no commands.
func (r *Reader) Send(Event) error { return ErrReadOnly }

func (r *Reader) wrap(what string, err error) error {
	return fmt.Errorf("sessions: %s %s: %w", what, r.path, err)
}

// Span returns the first and last recorded steps.
func (r *Reader) Span() (int, int, bool) {
	var lo, hi sql.NullInt64 // two queries: SQLite answers each from the step index alone
	if err := r.db.QueryRow(`SELECT min(step) FROM records`).Scan(&lo); err != nil || !lo.Valid {
		return 0, 0, false
	}
	if err := r.db.QueryRow(`SELECT max(step) FROM records`).Scan(&hi); err != nil || !hi.Valid {
		return 0, 0, false
	}
	return int(lo.Int64), int(hi.Int64), true
}

// Count returns the number of records.
func (r *Reader) Count() (int, error) {
	var n int
	if err := r.db.QueryRow(`SELECT count(*) FROM records`).Scan(&n); err != nil {
		return 0, r.wrap("count", err)
	}
	return n, nil
}

const recordCols = `seq, step, wall_s, loss, lr, grad_norm, steps_per_s, state, message, gpu_share,
	bit_error_position, bit_error_sample, kl_bits, tvd, accuracy, eval`

type scanner interface{ Scan(...any) error }

// scanRecord reads recordCols (plus snapshot when withSnap) into a Record.
func scanRecord(s scanner, withSnap bool) (Record, int64, error) {
	var (
		rec                          Record
		seq                          int64
		wall, loss, lr, gn, sps, gpu sql.NullFloat64
		bep, bes, kl, tvd, acc       sql.NullFloat64
		state                        string
		ev, sn                       []byte
	)
	dst := []any{&seq, &rec.Step, &wall, &loss, &lr, &gn, &sps, &state, &rec.Message, &gpu, &bep, &bes, &kl, &tvd, &acc, &ev}
	if withSnap {
		dst = append(dst, &sn)
	}
	if err := s.Scan(dst...); err != nil {
		return rec, 0, err
	}
	rec.WallS, rec.Loss, rec.LR, rec.GradNorm, rec.StepsPerS = unreal(wall), unreal(loss), unreal(lr), unreal(gn), unreal(sps)
	if gpu.Valid {
		rec.GPUShare = gpu.Float64
	}
	rec.State = State(state)
	if err := checkStep("record", rec.Step); err != nil {
		return rec, 0, err
	}
	if ev != nil {
		b, err := decodeEval(ev)
		if err != nil {
			return rec, 0, fmt.Errorf("record at step %d: %w", rec.Step, err)
		}
		rec.Eval = &Eval{BitErrorPosition: unreal(bep), BitErrorSample: unreal(bes), KLBits: unreal(kl), TVD: unreal(tvd),
			Accuracy: unreal(acc), ModelEntropy: fromNums(b.ModelEntropy), BayesEntropy: fromNums(b.BayesEntropy), Ablated: b.Ablated,
			Lengths: b.Lengths, KLByPosition: b.KLByPosition, TVDByPosition: b.TVDByPosition}
	}
	if sn != nil {
		s, err := decodeSnapshot(sn)
		if err != nil {
			return rec, 0, fmt.Errorf("record at step %d: %w", rec.Step, err)
		}
		rec.Snapshot = s
	}
	rec.Sanitize()
	return rec, seq, nil
}

func (r *Reader) query(q string, withSnap bool, args ...any) ([]Record, int64, error) {
	rows, err := r.db.Query(q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Record
	var last int64
	for rows.Next() {
		rec, seq, err := scanRecord(rows, withSnap)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, rec)
		last = seq
	}
	return out, last, rows.Err()
}

// At returns the newest record with Step ≤ step (step < 0: the newest), snapshot included.
func (r *Reader) At(step int) (Record, bool, error) {
	if step < 0 {
		step = int(^uint(0) >> 1)
	}
	row := r.db.QueryRow(`SELECT `+recordCols+`, snapshot FROM records WHERE step <= ? ORDER BY step DESC, seq DESC LIMIT 1`, step)
	rec, _, err := scanRecord(row, true)
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, r.wrap("read", err)
	}
	return rec, true, nil
}

// Records returns every record with from ≤ Step ≤ to, snapshots included, in order.
func (r *Reader) Records(from, to int) ([]Record, error) {
	recs, _, err := r.query(`SELECT `+recordCols+`, snapshot FROM records WHERE step BETWEEN ? AND ? ORDER BY seq`, true, from, to)
	if err != nil {
		return nil, r.wrap("read", err)
	}
	return recs, nil
}

// Since returns up to max records written after sequence number seq (0: from the start),
// snapshots included, and the sequence number to pass next time; it is how a follower
// tails a live session.
func (r *Reader) Since(seq int64, max int) ([]Record, int64, error) {
	recs, last, err := r.query(`SELECT `+recordCols+`, snapshot FROM records WHERE seq > ? ORDER BY seq LIMIT ?`, true, seq, max)
	if err != nil {
		return nil, seq, r.wrap("read", err)
	}
	if len(recs) == 0 {
		last = seq
	}
	return recs, last, nil
}

// Snapshot returns the newest snapshot at a step ≤ step (step < 0: the newest) and its step.
// Decoded snapshots are cached (a replay asks for the same few over and over): the result is
// shared and must not be modified.
func (r *Reader) Snapshot(step int) (*Snapshot, int, error) {
	if step < 0 {
		step = int(^uint(0) >> 1)
	}
	var at int
	var seq int64
	err := r.db.QueryRow(`SELECT seq, step FROM records WHERE snapshot IS NOT NULL AND step <= ? ORDER BY step DESC, seq DESC LIMIT 1`, step).Scan(&seq, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, r.wrap("read", err)
	}
	if s := r.snaps.get(seq); s != nil {
		return s, at, nil
	}
	var sn []byte
	if err := r.db.QueryRow(`SELECT snapshot FROM records WHERE seq = ?`, seq).Scan(&sn); err != nil {
		return nil, 0, r.wrap("read", err)
	}
	s, err := decodeSnapshot(sn)
	if err != nil {
		return nil, 0, r.wrap("read", fmt.Errorf("record at step %d: %w", at, err))
	}
	r.snaps.put(seq, s)
	return s, at, nil
}

// SnapshotSteps lists the steps that hold a snapshot, in order.
func (r *Reader) SnapshotSteps() ([]int, error) {
	return r.steps(`SELECT DISTINCT step FROM records WHERE snapshot IS NOT NULL ORDER BY step`)
}

// steps runs a query of one integer column and returns its rows.
func (r *Reader) steps(q string) ([]int, error) {
	rows, err := r.db.Query(q)
	if err != nil {
		return nil, r.wrap("read", err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var s int
		if err := rows.Scan(&s); err != nil {
			return nil, r.wrap("read", err)
		}
		if err := checkStep("step", s); err != nil {
			return nil, r.wrap("read", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, r.wrap("read", err)
	}
	return out, nil
}

// Events returns the operator events with Step ≤ upTo (all for upTo < 0).
func (r *Reader) Events(upTo int) ([]Event, error) {
	if upTo < 0 {
		upTo = int(^uint(0) >> 1)
	}
	by := `''`
	if !r.sentBy.Load() {
		has, err := hasSentBy(r.db)
		if err != nil {
			return nil, r.wrap("read events layout", err)
		}
		r.sentBy.Store(has)
	}
	if r.sentBy.Load() {
		by = `sent_by`
	}
	rows, err := r.db.Query(`SELECT step, wall_s, kind, layer, head, turn_on, `+by+` FROM events WHERE step <= ? ORDER BY seq`, upTo)
	if err != nil {
		return nil, r.wrap("read", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var wall sql.NullFloat64
		var kind string
		if err := rows.Scan(&e.Step, &wall, &kind, &e.Layer, &e.Head, &e.On, &e.By); err != nil {
			return nil, r.wrap("read", err)
		}
		if err := checkHead("event", e.Layer, e.Head); err != nil {
			return nil, r.wrap("read", fmt.Errorf("event at step %d: %w", e.Step, err))
		}
		if err := checkStep("event", e.Step); err != nil {
			return nil, r.wrap("read", err)
		}
		e.WallS, e.Kind = unreal(wall), EventKind(kind)
		e.Sanitize()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, r.wrap("read", err)
	}
	return out, nil
}

// Checkpoints returns the steps that have a checkpoint, ascending.
func (r *Reader) Checkpoints() ([]int, error) {
	return r.steps(`SELECT step FROM checkpoints ORDER BY step`)
}

// Checkpoint loads the newest checkpoint at a step ≤ step (step < 0: the newest); it
// reports false when there is none.
func (r *Reader) Checkpoint(step int) (*Checkpoint, bool, error) {
	if step < 0 {
		step = int(^uint(0) >> 1)
	}
	var at int
	var wall sql.NullFloat64
	var p, o []byte
	err := r.db.QueryRow(`SELECT step, wall_s, params, optimizer FROM checkpoints WHERE step <= ? ORDER BY step DESC LIMIT 1`, step).Scan(&at, &wall, &p, &o)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, r.wrap("read", err)
	}
	c, err := decodeCheckpoint(at, unreal(wall), p, o)
	if err != nil {
		return nil, false, r.wrap("read", err)
	}
	return c, true, nil
}

var _ Feed = (*Reader)(nil)
var _ Feed = (*Live)(nil)
