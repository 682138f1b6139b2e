package sweep

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Watch is how Wait follows a submitted sweep.
type Watch struct {
	// Squeue is the squeue command; Poll how often it and the sessions are read.
	Squeue string
	Poll   time.Duration
	// Out receives the progress line: rewritten in place when Tty, else printed every Every
	// and whenever the counts change.
	Out   io.Writer
	Tty   bool
	Every time.Duration
}

// Wait follows the sweep until none of its points is queued or running in Slurm, printing
// the progress line, and returns the points' final statuses. Cancelling ctx stops waiting
// (the jobs go on).
func (m *Manifest) Wait(ctx context.Context, w Watch) ([]PointStatus, error) {
	out := &liner{w: w.Out, tty: w.Tty, every: w.Every}
	if out.every <= 0 {
		out.every = 30 * time.Second
	}
	mt := newMeter(time.Now())
	failures := 0
	last := ""
	for {
		q, err := m.ReadQueue(ctx, w.Squeue)
		if err != nil {
			if ctx.Err() != nil {
				out.end()
				return nil, ctx.Err()
			}
			if failures++; failures >= 5 {
				out.end()
				return nil, err
			}
		} else {
			failures = 0
			sts := m.Status(q)
			pr := Of(sts)
			now := time.Now()
			for _, s := range sts {
				if s.State == Running || s.State == Queued || s.State == Done {
					mt.observe(now, s.Index, s.Step, max(s.Planned, s.Steps), s.Work, s.State == Running)
				}
			}
			pr.ETA, pr.HasETA = mt.eta(now)
			counts := fmt.Sprint(pr.Done, pr.Running, pr.Failed, pr.Left)
			out.line(pr.String(), now, counts != last)
			last = counts
			if len(q) == 0 {
				out.end()
				return sts, nil
			}
		}
		select {
		case <-ctx.Done():
			out.end()
			return nil, ctx.Err()
		case <-time.After(w.Poll):
		}
	}
}
