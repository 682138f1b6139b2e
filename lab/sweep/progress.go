package sweep

import (
	"fmt"
	"io"
	"time"
)

// Progress is the sweep's progress line: points done, running, failed, stopped (they
// resume on the next run of the sweep) and left, and the time left.
type Progress struct {
	Done, Running, Failed, Stopped, Left, Total int
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

// Tally is the line without the time left: "3/8 done, 2 running, 1 failed, 2 left", with
// "1 stopped" before the left ones when some are.
func (p Progress) Tally() string {
	stopped := ""
	if p.Stopped > 0 {
		stopped = fmt.Sprintf(", %d stopped", p.Stopped)
	}
	return fmt.Sprintf("%d/%d done, %d running, %d failed%s, %d left", p.Done, p.Total, p.Running, p.Failed, stopped, p.Left)
}

// Of tallies statuses as a progress line: queued and missing points are left.
func Of(sts []PointStatus) Progress {
	p := Progress{Total: len(sts)}
	for _, s := range sts {
		p.add(s.State)
	}
	return p
}

// add counts a point in state s: the one place a state is given its place in the tally, so
// the engine's line and sweep status name a point alike.
func (p *Progress) add(s State) {
	switch s {
	case Done:
		p.Done++
	case Running:
		p.Running++
	case Failed:
		p.Failed++
	case Stopped:
		p.Stopped++
	default:
		p.Left++
	}
}

// meter estimates the time left. For the steps it counts the work left (each point's steps
// planned less trained, weighed by its step's cost, Point.Work) at the rate all runs
// together have done work since it started; for each running point it also follows the
// point's own progress — its rate, and its longest pause without a step (an evaluation with
// a geometry snapshot), which its end takes too (the final evaluation, snapshot and
// checkpoint after its last step) — so that a point that has trained its last step but not
// ended is not counted as done.
type meter struct {
	start time.Time
	pts   map[int]*meterPoint
}

type meterPoint struct {
	first, cur, planned int
	running             bool
	// work is a step's cost (Point.Work; 0: unknown).
	work float64
	// since is when it was first seen running at first; moved is when its step last
	// advanced; pause the longest time it went without advancing (0: none seen yet).
	since, moved time.Time
	pause        time.Duration
}

// maxWork bounds a step's cost the meter believes (a billion parameters × a million tokens
// is 1e15); above it, as at 0, every step counts alike.
const maxWork = 1e18

func newMeter(now time.Time) *meter { return &meter{start: now, pts: map[int]*meterPoint{}} }

// observe records a point's newest step at now, and whether it is running (its first
// observation is where it started from: a resumed point's earlier steps are not this
// sweep's work). work is a step's cost (Point.Work).
func (mt *meter) observe(now time.Time, index, step, planned int, work float64, running bool) {
	p, ok := mt.pts[index]
	if !ok {
		p = &meterPoint{first: step, cur: step}
		mt.pts[index] = p
	}
	p.work = work
	if step < p.first { // restarted from an earlier checkpoint
		p.first = step
	}
	if running && !p.running { // started (again): its pauses and rate count from now
		p.first, p.since, p.moved = step, now, now
	}
	if running && step > p.cur {
		if p.cur > p.first { // not the wait for its first step (the process starting)
			p.pause = max(p.pause, now.Sub(p.moved))
		}
		p.moved = now
	}
	p.cur, p.planned, p.running = step, planned, running
}

// left is the time a running point still needs: its steps left at its own rate, then its
// end, as long as its longest pause; false when that is unknown (no step seen yet, or a
// point past its last step for longer than any pause it made: it may be about to end).
func (p *meterPoint) left(now time.Time) (time.Duration, bool) {
	if p.cur < p.planned {
		el := p.moved.Sub(p.since)
		if p.cur <= p.first || el <= 0 {
			return 0, false
		}
		rate := float64(p.cur-p.first) / el.Seconds()
		return time.Duration(float64(p.planned-p.cur)/rate*float64(time.Second)) + p.pause, true
	}
	if d := p.pause - now.Sub(p.moved); d > 0 {
		return d, true
	}
	return 0, false
}

// eta is the time left: the work left at the rate of all runs together, or longer when a
// running point needs longer by its own progress (meterPoint.left); false before any step
// was trained, and while a running point past its last step has an end of unknown length.
func (mt *meter) eta(now time.Time) (time.Duration, bool) {
	// Every point's step cost known (and sane: a manifest may come from someone else), else
	// every step counts alike.
	weighed := true
	for _, p := range mt.pts {
		weighed = weighed && p.work > 0 && p.work < maxWork
	}
	var done, left float64
	var longest time.Duration
	for _, p := range mt.pts {
		w := 1.0
		if weighed {
			w = p.work
		}
		done += float64(p.cur-p.first) * w
		if p.planned > p.cur {
			left += float64(p.planned-p.cur) * w
		}
		if !p.running {
			continue
		}
		d, ok := p.left(now)
		if !ok && p.cur >= p.planned {
			return 0, false
		}
		longest = max(longest, d)
	}
	el := now.Sub(mt.start)
	if done <= 0 || el <= 0 {
		return 0, false
	}
	return max(time.Duration(float64(el)*left/done), longest), true
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
