package sweep

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/index"

	"windtunnel/sessions"
)

// State is where a grid point stands.
type State string

// The states of a point.
const (
	// Missing: no session and nothing queued: the point has not been submitted or started.
	Missing State = "missing"
	// Queued: waiting in Slurm's queue.
	Queued State = "queued"
	// Running: a process is training it (Slurm says so, or a run holds its session's lock).
	Running State = "running"
	// Done: its session reached its planned steps and ended cleanly.
	Done State = "done"
	// Stopped: interrupted cleanly (a signal, scancel, a time limit) at its last checkpoint.
	Stopped State = "stopped"
	// Failed: the run failed, was killed, or its session cannot be read.
	Failed State = "failed"
)

// Pending reports whether a point in this state still needs a run (missing, stopped or
// failed): what a new submission or a local engine takes.
func (s State) Pending() bool { return s == Missing || s == Stopped || s == Failed }

// PointStatus is one point's state with its progress.
type PointStatus struct {
	Point
	State State `json:"state"`
	// Step is the newest recorded step (0 without a session), Planned the session's length.
	Step    int `json:"step"`
	Planned int `json:"planned"`
	// Unreadable is set when the session exists but cannot be read.
	Unreadable bool `json:"unreadable,omitempty"`
	// Detail says more: the Slurm state, why it failed, the last line of its log.
	Detail string `json:"detail,omitempty"`
	// Metrics are the scores of its newest whole-model evaluation (nil: none yet).
	Metrics *index.Metrics `json:"last_eval,omitempty"`
}

// Queue is what Slurm's queue says of a sweep's array tasks: the Slurm state (PENDING,
// RUNNING, …) by point index. Nil when the sweep was never submitted to Slurm.
type Queue map[int]string

// Status reads every point's session and combines it with the queue (nil for a local
// sweep): a point is running when Slurm says so or a run holds its session's lock.
func (m *Manifest) Status(q Queue) []PointStatus {
	out := make([]PointStatus, len(m.Points))
	for i, p := range m.Points {
		out[i] = m.pointStatus(p, q)
	}
	return out
}

func (m *Manifest) pointStatus(p Point, q Queue) PointStatus {
	st := PointStatus{Point: p, Planned: p.Steps}
	slurmState, inQueue := q[p.Index]
	queued := inQueue && queuedStates[slurmState]
	running := inQueue && !queued
	path := m.SessionPath(p)
	// A point is being written while its session's lock is held — by a run here or on a
	// host sharing the folder. A lock file nobody holds is a killed run's: its pid proves
	// nothing (sessions.LockHolder).
	h := sessions.LockHolder(path)
	info, _, err := readPoint(path)
	switch {
	case err != nil && h.Held: // taken, the session not yet (wholly) created: never set aside
		st.State = Running
	case errors.Is(err, os.ErrNotExist):
		st.State = Missing
		if err := m.lastFailure(p); err != "" && !inQueue {
			st.State, st.Detail = Failed, err
		}
	case err != nil:
		st.State, st.Unreadable, st.Detail = Failed, true, err.Error()
	default:
		st.Step, st.Planned = info.step, info.planned
		st.Metrics = index.ReadMetrics(path)
		switch {
		case info.state == sessions.Done && info.step >= info.planned:
			st.State = Done
		case running || h.Held:
			st.State = Running
		case info.state == sessions.Stopped:
			st.State = Stopped
			st.Detail = fmt.Sprintf("stopped at step %d; %s", info.step, resumesFrom(path))
		default:
			st.State = Failed
			if info.state == sessions.Failed {
				st.Detail = "failed at step " + fmt.Sprint(info.step)
				if info.message != "" {
					st.Detail += ": " + info.message
				}
			} else {
				st.Detail = fmt.Sprintf("killed at step %d (%s, no writer); %s", info.step, info.state, resumesFrom(path))
			}
			if l := m.lastFailure(p); l != "" {
				st.Detail += "; log: " + l
			}
		}
	}
	if st.State == Running && h.Held && !h.Local {
		st.Detail = "written by " + h.Elsewhere()
	}
	if st.State != Done && inQueue {
		st.State, st.Detail = Running, "slurm "+strings.ToLower(slurmState)
		if queued {
			st.State = Queued
			if st.Step > 0 {
				st.Detail += "; resumes from its last checkpoint"
			}
		}
	}
	return st
}

// resumesFrom says where the next run of a stopped point's session starts: its newest
// checkpoint, or step 0 when it has none (a slim copy's, or a run stopped before its first).
func resumesFrom(path string) string {
	r, err := sessions.Open(path)
	if err != nil {
		return "resumes from its newest checkpoint"
	}
	defer r.Close()
	cks, err := r.Checkpoints()
	switch {
	case err != nil:
		return "resumes from its newest checkpoint"
	case len(cks) == 0:
		return "no checkpoint: starts again from step 0"
	}
	return fmt.Sprintf("resumes from its checkpoint at step %d", cks[len(cks)-1])
}

// queuedStates are the Slurm states of a task that has not started (or is being requeued).
var queuedStates = map[string]bool{"PENDING": true, "REQUEUED": true, "REQUEUE_HOLD": true, "REQUEUE_FED": true,
	"CONFIGURING": true, "SUSPENDED": true, "RESV_DEL_HOLD": true}

// pointInfo is what Status reads of a session.
type pointInfo struct {
	step, planned int
	state         sessions.State
	message       string
}

// readPoint reads a session's newest record (index.ReadSession) and planned steps (its
// stored configuration's, as compare --from reads it); ok is false when it has no record yet.
func readPoint(path string) (pointInfo, bool, error) {
	if _, err := os.Stat(path); err != nil {
		return pointInfo{}, false, err
	}
	s, err := index.ReadSession(path)
	if err != nil {
		return pointInfo{}, false, err
	}
	cfg, err := derived.SessionConfig(s.Meta)
	if err != nil {
		return pointInfo{}, false, err
	}
	return pointInfo{step: s.Last.Step, planned: cfg.Steps, state: s.Last.State, message: sessions.SafeText(s.Last.Message)}, s.HasLast, nil
}

// Progress reads how far a point's session has got (0 without one).
func (m *Manifest) Progress(p Point) int {
	info, _, err := readPoint(m.SessionPath(p))
	if err != nil {
		return 0
	}
	return info.step
}

// lastFailure is the last line of the newest log of a point (a failed run's error line),
// or "".
func (m *Manifest) lastFailure(p Point) string {
	var logs []string
	for _, j := range m.Jobs {
		for _, ix := range j.Indices {
			if ix == p.Index {
				logs = append(logs, filepath.Join(m.dir, LogDir, fmt.Sprintf("slurm-%s_%d.out", j.ID, p.Index)))
			}
		}
	}
	logs = append(logs, m.LogPath(p))
	best, bestT := "", int64(0)
	for _, l := range logs {
		fi, err := os.Stat(l)
		if err != nil || fi.ModTime().UnixNano() < bestT {
			continue
		}
		// A run that ended prints its JSON summary last: that log says nothing failed.
		if line := failureLine(l); line != "" && !strings.HasPrefix(line, "{") {
			best, bestT = line, fi.ModTime().UnixNano()
		}
	}
	return best
}

// failureLine is the last non-empty line of the last 64 KiB of a log (a failed run's error,
// Slurm's cancellation) that is not the local engine's note (engineNote), made safe to
// print, or "".
func failureLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 64<<10 {
		f.Seek(fi.Size()-64<<10, 0)
	}
	last := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, engineNote+" ") {
			last = l
		}
	}
	if len(last) > 300 {
		last = last[:300] + "…"
	}
	return sessions.SafeText(last)
}

// Counts tallies the points by state.
func Counts(sts []PointStatus) map[State]int {
	c := map[State]int{}
	for _, s := range sts {
		c[s.State]++
	}
	return c
}

// Pending returns the points a new run of the sweep must train — missing, stopped and
// failed ones, never a done, queued or running one — with their statuses. A session that
// cannot be read is set aside first (SetAside), each named in notes, so its point starts
// again.
func (m *Manifest) Pending(q Queue, now time.Time) (todo []Point, sts []PointStatus, notes []string, err error) {
	sts = m.Status(q)
	for _, s := range sts {
		if !s.State.Pending() {
			continue
		}
		if s.Unreadable {
			to, err := m.SetAside(s.Point, now)
			if err != nil {
				return nil, nil, nil, err
			}
			notes = append(notes, fmt.Sprintf("%s could not be read (%s): set aside as %s", s.Session(), s.Detail, filepath.Base(to)))
		}
		todo = append(todo, s.Point)
	}
	return todo, sts, notes, nil
}
