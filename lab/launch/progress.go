package launch

import (
	"context"
	"fmt"
	"io"
	"runtime/pprof"
	"strings"
	"time"

	"windtunnel/sessions"
)

// Progress is a trainer sink that prints the run's progress on its own goroutine: an
// updating line on a terminal, else a log line at every evaluation and state change. The
// trainer never waits for it: a record that finds the queue full is dropped.
type Progress struct {
	steps int
	tty   bool
	w     io.Writer
	recs  chan sessions.Record
	done  chan struct{}
}

// NewProgress starts printing the progress of a run of steps steps to w (a terminal when
// tty: one line, rewritten in place).
func NewProgress(ctx context.Context, steps int, w io.Writer, tty bool) *Progress {
	p := &Progress{steps: steps, tty: tty, w: w, recs: make(chan sessions.Record, 256), done: make(chan struct{})}
	// The label lets a CPU profile (WINDTUNNEL_CPUPROFILE; go tool pprof -tags) tell it apart.
	go pprof.Do(ctx, pprof.Labels("part", "progress"), func(context.Context) { p.print() })
	return p
}

// Record queues a record for printing.
func (p *Progress) Record(r sessions.Record) {
	select {
	case p.recs <- r:
	default:
	}
}

// Event is ignored: the session records operator events.
func (p *Progress) Event(sessions.Event) {}

// Checkpoint is ignored.
func (p *Progress) Checkpoint(*sessions.Checkpoint) {}

// Close prints what is queued and ends the line; call it after the run.
func (p *Progress) Close() {
	close(p.recs)
	<-p.done
}

func (p *Progress) print() {
	defer close(p.done)
	last := time.Time{}
	be := "-"
	for r := range p.recs {
		if r.Eval != nil && len(r.Eval.Ablated) > 0 {
			// An ablated evaluation (heads switched off) shares its step with the whole
			// model's: its own line, marked, that leaves the whole model's bit error shown.
			line := fmt.Sprintf("step %d/%d  ablated %s: bit error (a) %.4f", r.Step, p.steps,
				strings.Join(sessions.HeadNames(r.Eval.Ablated), " "), r.Eval.BitErrorPosition)
			if p.tty {
				fmt.Fprintf(p.w, "\r\033[K%s\n", line)
			} else {
				fmt.Fprintf(p.w, "%s  [%s]\n", line, r.State)
			}
			continue
		}
		if r.Eval != nil {
			be = fmt.Sprintf("%.4f", r.Eval.BitErrorPosition)
		}
		eta := "-"
		if r.StepsPerS > 0 {
			eta = (time.Duration(float64(p.steps-r.Step)/r.StepsPerS) * time.Second).Round(time.Second).String()
		}
		line := fmt.Sprintf("step %d/%d  %.1f steps/s  loss %.4f  bit error (a) %s  ETA %s", r.Step, p.steps, r.StepsPerS, r.Loss, be, eta)
		if r.Message != "" {
			line += "  " + r.Message
		}
		switch {
		case p.tty:
			if time.Since(last) > 100*time.Millisecond || r.Eval != nil || r.State != sessions.Training {
				fmt.Fprintf(p.w, "\r\033[K%s", line)
				last = time.Now()
			}
		case r.Eval != nil || r.State != sessions.Training:
			fmt.Fprintf(p.w, "%s  [%s]\n", line, r.State)
		}
	}
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// RecordFunc is a trainer sink that calls a function with every record (on the trainer's
// goroutine: it must return at once).
type RecordFunc func(sessions.Record)

// Record calls f.
func (f RecordFunc) Record(r sessions.Record) { f(r) }

// Event is ignored.
func (RecordFunc) Event(sessions.Event) {}

// Checkpoint is ignored.
func (RecordFunc) Checkpoint(*sessions.Checkpoint) {}
