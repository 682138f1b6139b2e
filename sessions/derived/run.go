package derived

import (
	"fmt"
	"math"

	"windtunnel/sessions"
)

// Run is a recorded run as every reader of finished (or unfinished) runs needs it: compare
// --from, plot, report and the overlay read a session through ReadRun, once.
type Run struct {
	// Path is the session file.
	Path string
	// Meta is the session's description (its Config the stored configuration, as JSON).
	Meta sessions.Meta
	// Labels are what a person called the run (run --name, --tag, --note; windtunnel tag):
	// none when the session's cannot be read. They never enter Key.
	Labels sessions.Labels
	// Key is the configuration's key (Key): runs with equal keys are seeds of one
	// configuration. "" when the configuration cannot be read (a group of its own).
	Key string
	// Last is the newest record (HasLast false when there is none).
	Last    sessions.Record
	HasLast bool
	// Evals are the whole-model evaluations (ablated ones left out), in step order.
	Evals []sessions.Record
	// Snapshot is the newest geometry snapshot (nil when none) and SnapshotStep its step.
	Snapshot     *sessions.Snapshot
	SnapshotStep int
	// FirstSnapshot is the earliest geometry snapshot when it is older than Snapshot (nil
	// otherwise), and FirstSnapshotStep its step: the null of the geometry claims, as no run
	// records a snapshot of the untrained model.
	FirstSnapshot     *sessions.Snapshot
	FirstSnapshotStep int
	// FrameRatio is the authors' frame statistic over every snapshot (nil without one; the
	// newest snapshot's history where it has more points: FrameRatios.WithHistory), and
	// Dissociation the pre-registered rule applied to it with bit error (b) (nil without it).
	FrameRatio   *FrameRatios
	Dissociation *Dissociation
	// Pauses are the intervals the run was paused (Pauses of its events): ActiveWall takes
	// them out of a record's wall time.
	Pauses []Pause
}

// Done reports whether the run reached planned steps and ended cleanly.
func (r *Run) Done(planned int) bool {
	return r.HasLast && r.Last.State == sessions.Done && r.Last.Step >= planned
}

// LastEval returns the newest whole-model evaluation, and whether there is one.
func (r *Run) LastEval() (sessions.Record, bool) { return sessions.LastWhole(r.Evals) }

// ReadRun reads a session: its meta and configuration key, newest record, whole-model
// evaluations, paused intervals, newest snapshot and frame-ratio series.
func ReadRun(path string) (*Run, error) {
	rd, err := sessions.Open(path)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	run := &Run{Path: path, Meta: rd.Meta()}
	run.Key, _ = Key(run.Meta)  // unreadable: a group of its own
	run.Labels, _ = rd.Labels() // unreadable labels: none
	if run.Last, run.HasLast, err = rd.At(-1); err != nil {
		return nil, fmt.Errorf("derived: read %s: %w", path, err)
	}
	evs, err := rd.Evals(-1, 0)
	if err != nil {
		return nil, fmt.Errorf("derived: read %s: %w", path, err)
	}
	run.Evals = sessions.WholeEvals(evs)
	events, err := rd.Events(-1)
	if err != nil {
		return nil, fmt.Errorf("derived: read %s: events: %w", path, err)
	}
	run.Pauses = Pauses(events, run.Last.Step)
	if run.Snapshot, run.SnapshotStep, err = rd.Geometry(-1); err != nil {
		return nil, fmt.Errorf("derived: read %s: snapshot: %w", path, err)
	}
	if run.Snapshot != nil {
		if run.FirstSnapshot, run.FirstSnapshotStep, err = firstGeometry(rd, run.SnapshotStep); err != nil {
			return nil, fmt.Errorf("derived: read %s: first snapshot: %w", path, err)
		}
	}
	if run.FrameRatio, err = ReadFrameRatios(rd); err != nil {
		return nil, fmt.Errorf("derived: read %s: frame ratio: %w", path, err)
	}
	if run.Snapshot != nil && run.SnapshotStep == run.FrameRatio.LastStep() {
		run.FrameRatio = run.FrameRatio.WithHistory(run.Snapshot.Frame) // a slimmed session's series
	}
	if run.FrameRatio != nil {
		d := run.FrameRatio.Dissociation(func(step int) float64 { return BitErrorSampleAt(run.Evals, step) })
		run.Dissociation = &d
	}
	return run, nil
}

// BitErrorSampleAt is bit error (b) of the evaluation at step in evals (step order), NaN when
// there is none at that step.
func BitErrorSampleAt(evals []sessions.Record, step int) float64 {
	for _, e := range evals {
		if e.Step == step && e.Eval != nil {
			return e.Eval.BitErrorSample
		}
	}
	return math.NaN()
}

// firstGeometry is the earliest geometry snapshot of a session at a step before newest, and
// its step; nil when there is none.
func firstGeometry(rd *sessions.Reader, newest int) (*sessions.Snapshot, int, error) {
	steps, err := rd.SnapshotSteps()
	if err != nil {
		return nil, 0, err
	}
	for _, st := range steps {
		if st >= newest {
			break
		}
		snaps, err := rd.SnapshotsAt(st)
		if err != nil {
			return nil, 0, err
		}
		for _, s := range snaps {
			if s.IsGeometry() {
				return s, st, nil
			}
		}
	}
	return nil, 0, nil
}
