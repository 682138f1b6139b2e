package derived

import (
	"math"

	"windtunnel/sessions"
)

// Pause is one interval of a run's wall clock (sessions.Record.WallS, in seconds) during
// which it was paused: from the pause event's wall time to the resume's (To is +Inf for a
// pause the run never left: it was stopped or left paused).
type Pause struct{ From, To float64 }

// Pauses are the paused intervals of a run from its operator events (in the order they
// were recorded), each pause to the first resume after it (a second pause while paused and
// a resume without a pause change nothing). A pause never resumed lasts to the run's end
// unless the run trained past its step afterwards (lastStep > its step: it was resumed
// from a checkpoint in another process, whose clock restarts at the checkpoint's): then it
// is left out, as its end is not known.
func Pauses(evs []sessions.Event, lastStep int) []Pause {
	var out []Pause
	open, at, from := false, 0, 0.0
	for _, e := range evs {
		switch {
		case e.Kind == sessions.EventPause && !open:
			open, at, from = true, e.Step, e.WallS
		case e.Kind == sessions.EventResume && open:
			open = false
			if e.WallS > from {
				out = append(out, Pause{From: from, To: e.WallS})
			}
		}
	}
	if open && lastStep <= at {
		out = append(out, Pause{From: from, To: math.Inf(1)})
	}
	return out
}

// ActiveWall is wall time w less the paused time before it: the time the run spent
// training and evaluating. A time inside a pause is the pause's start.
func ActiveWall(w float64, ps []Pause) float64 {
	paused := 0.0
	for _, p := range ps {
		if w <= p.From {
			continue
		}
		paused += math.Min(w, p.To) - p.From
	}
	return w - paused
}

// PausedS is the paused time before wall time w, in seconds.
func PausedS(w float64, ps []Pause) float64 { return w - ActiveWall(w, ps) }

// ActiveRecords returns a copy of recs with each WallS made pause-free (ActiveWall).
func ActiveRecords(recs []sessions.Record, ps []Pause) []sessions.Record {
	if len(ps) == 0 {
		return recs
	}
	out := make([]sessions.Record, len(recs))
	for i, r := range recs {
		r.WallS = ActiveWall(r.WallS, ps)
		out[i] = r
	}
	return out
}
