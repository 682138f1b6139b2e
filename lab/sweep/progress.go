package sweep

import (
	"fmt"
	"io"
	"time"
)

// Progress is the sweep's progress line: points done, running, failed and left, and the
// time left.
type Progress struct {
	Done, Running, Failed, Left, Total int
	// ETA is the time left, known once some steps were trained (HasETA).
	ETA    time.Duration
	HasETA bool
}

// String is the line: "3/8 done, 2 running, 1 failed, 2 left, ETA 4m10s".
func (p Progress) String() string {
	eta := "ETA —"
	switch {
	case p.Running+p.Left == 0:
		eta = "finished"
	case p.HasETA:
		eta = "ETA " + p.ETA.Round(time.Second).String()
	}
	return p.Tally() + ", " + eta
}

// Tally is the line without the time left: "3/8 done, 2 running, 1 failed, 2 left".
func (p Progress) Tally() string {
	return fmt.Sprintf("%d/%d done, %d running, %d failed, %d left", p.Done, p.Total, p.Running, p.Failed, p.Left)
}

// Of tallies statuses as a progress line: queued, missing and stopped points are left.
func Of(sts []PointStatus) Progress {
	p := Progress{Total: len(sts)}
	for _, s := range sts {
		switch s.State {
		case Done:
			p.Done++
		case Running:
			p.Running++
		case Failed:
			p.Failed++
		default:
			p.Left++
		}
	}
	return p
}

// meter estimates the time left from the steps trained since it started: the steps left
// (planned less trained, over the points still to finish) at the rate all runs together
// have trained so far.
type meter struct {
	start time.Time
	pts   map[int]*meterPoint
}

type meterPoint struct {
	first, cur, planned int
	seen                bool
}

func newMeter(now time.Time) *meter { return &meter{start: now, pts: map[int]*meterPoint{}} }

// observe records a point's newest step (its first observation is where it started from:
// a resumed point's earlier steps are not this sweep's work).
func (mt *meter) observe(index, step, planned int) {
	p, ok := mt.pts[index]
	if !ok {
		p = &meterPoint{first: step}
		mt.pts[index] = p
	}
	if step < p.first { // restarted from an earlier checkpoint
		p.first = step
	}
	p.cur, p.planned, p.seen = step, planned, true
}

// eta is the time left; false before any step was trained.
func (mt *meter) eta(now time.Time) (time.Duration, bool) {
	work, left := 0, 0
	for _, p := range mt.pts {
		work += p.cur - p.first
		if p.planned > p.cur {
			left += p.planned - p.cur
		}
	}
	el := now.Sub(mt.start)
	if work <= 0 || el <= 0 {
		return 0, false
	}
	return time.Duration(float64(el) * float64(left) / float64(work)), true
}

// liner prints the progress line: rewritten in place on a terminal (a line of its own
// printed above it for each event), one log line per change or per interval otherwise.
type liner struct {
	w        io.Writer
	tty      bool
	every    time.Duration
	last     string
	lastTime time.Time
	shown    bool
}

// event prints a line of its own (a point finished, a point started).
func (l *liner) event(s string) {
	if l.tty && l.shown {
		fmt.Fprint(l.w, "\r\x1b[K")
		l.shown = false
	}
	fmt.Fprintln(l.w, "sweep: "+s)
	if l.tty && l.last != "" {
		fmt.Fprint(l.w, "sweep: "+l.last)
		l.shown = true
	}
}

// line shows the progress line (force: print it now even off a terminal).
func (l *liner) line(s string, now time.Time, force bool) {
	if l.tty {
		fmt.Fprint(l.w, "\r\x1b[Ksweep: "+s)
		l.last, l.shown = s, true
		return
	}
	if force || now.Sub(l.lastTime) >= l.every {
		fmt.Fprintln(l.w, "sweep: "+s)
		l.last, l.lastTime = s, now
	}
}

// end ends the line on a terminal.
func (l *liner) end() {
	if l.tty && l.shown {
		fmt.Fprintln(l.w)
		l.shown = false
	}
}
