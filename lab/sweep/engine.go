package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"time"

	"windtunnel/sessions"
)

// Here trains m's pending points on this machine with the local engine l: those Slurm
// still holds are left alone (when m was submitted before, its queue is read with squeue),
// an unreadable session is set aside (Pending). It says on log what it does, and on out how
// the sweep ended; a sweep another process is training, or points that did not finish, are
// errors.
func (m *Manifest) Here(ctx context.Context, l Local, out, log io.Writer) error {
	// The engine holds the manifest's lock while it runs: a second engine on the folder is
	// refused, and sweep cancel finds it (EnginePid).
	release, err := sessions.Hold(m.manifestPath())
	var le *sessions.LockError
	switch {
	case errors.As(err, &le):
		return fmt.Errorf("sweep: %s is being trained by another sweep (%s; windtunnel sweep cancel %s stops it where it runs)", m.Dir(), sessions.Holder{Pid: le.Pid, Host: le.Host}.Elsewhere(), m.Dir())
	case err != nil:
		return fmt.Errorf("sweep: %w", err)
	}
	defer release()
	var q Queue
	if len(m.Jobs) > 0 { // submitted to Slurm before: leave its queued and running points alone
		squeue, err := exec.LookPath("squeue")
		if err != nil {
			return fmt.Errorf("sweep: %s was submitted to Slurm and squeue is not on PATH: cannot tell which points are still queued", m.Dir())
		}
		if q, err = m.ReadQueue(ctx, squeue); err != nil {
			return err
		}
	}
	todo, sts, notes, err := m.Pending(q, time.Now())
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(log, "windtunnel sweep: %s\n", n)
	}
	if busy := Of(sts).Running; busy > 0 {
		return fmt.Errorf("sweep: %d points of %s are being trained by another process (windtunnel sweep status %s)", busy, m.Dir(), m.Dir())
	}
	if len(todo) == 0 {
		fmt.Fprintf(out, "all %s done in %s: windtunnel compare --from %s\n", sessions.Plural(len(m.Points), "point"), m.Dir(), m.Dir())
		return nil
	}
	fmt.Fprintf(log, "windtunnel sweep: training %s here, %d at a time, --workers %d each (logs in %s)\n",
		sessions.Plural(len(todo), "point"), l.Jobs, l.workers(), filepath.Join(m.Dir(), LogDir))
	start := time.Now()
	pr, err := l.Run(ctx, m, todo)
	fmt.Fprintf(out, "sweep %s: %s, %.0f s; windtunnel compare --from %s\n", m.Dir(), pr.Tally(), time.Since(start).Seconds(), m.Dir())
	if n := pr.Failed + pr.Stopped; err == nil && n > 0 {
		err = fmt.Errorf("sweep: %s did not finish (windtunnel sweep status %s; run the sweep again to retry them)", sessions.Plural(n, "point"), m.Dir())
	}
	return err
}

// Submission is how SubmitPending submits: with sbatch (its path), or with DryRun only
// writing the script; with Wait following the sweep afterwards, reading squeue and the
// sessions every Poll (a progress line on a terminal when Tty).
type Submission struct {
	Sbatch       string
	DryRun, Wait bool
	Poll         time.Duration
	Tty          bool
}

// SubmitPending writes the sbatch script of s for m and submits m's pending points as one
// job array (those still queued or running are left alone: the queue is read with squeue
// when m was submitted before), or with DryRun says how to submit it. With Wait it then
// follows the sweep until its tasks leave the queue; points not done then are an error. It
// says on log what it does, and on out what it submitted and how the sweep ended.
func (m *Manifest) SubmitPending(ctx context.Context, s Slurm, sub Submission, out, log io.Writer) error {
	script, err := s.WriteScript(m)
	if err != nil {
		return err
	}
	var q Queue
	squeue, lookErr := exec.LookPath("squeue")
	if len(m.Jobs) > 0 {
		if lookErr != nil {
			return fmt.Errorf("sweep: squeue is not on PATH: cannot tell which points of %s are still queued, so nothing is submitted", m.Dir())
		}
		if q, err = m.ReadQueue(ctx, squeue); err != nil {
			return fmt.Errorf("%w (nothing submitted)", err)
		}
	}
	todo, sts, notes, err := m.Pending(q, time.Now())
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(log, "windtunnel sweep: %s\n", n)
	}
	if len(todo) == 0 {
		fmt.Fprintf(out, "nothing to submit: %s (windtunnel sweep status %s)\n", Of(sts).Tally(), m.Dir())
		return nil
	}
	ix := make([]int, len(todo))
	for i, p := range todo {
		ix[i] = p.Index
	}
	if sub.DryRun {
		fmt.Fprintf(out, "wrote %s; submit it with: sbatch --array=%s %s\n", script, ArraySpec(ix, s.Parallel), script)
		return nil
	}
	job, err := s.Submit(ctx, sub.Sbatch, script, m, todo)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "submitted job array %s: %d of %d points (--array=%s), script %s; windtunnel sweep status %s\n",
		job.ID, len(todo), len(m.Points), job.Array, script, m.Dir())
	if !sub.Wait {
		return nil
	}
	if lookErr != nil {
		return fmt.Errorf("sweep: --wait: squeue is not on PATH")
	}
	final, err := m.Wait(ctx, Watch{Squeue: squeue, Poll: sub.Poll, Out: log, Tty: sub.Tty})
	if err != nil {
		return fmt.Errorf("sweep: --wait: %w (the jobs go on; windtunnel sweep status %s)", err, m.Dir())
	}
	pr := Of(final)
	fmt.Fprintf(out, "sweep %s: %s; windtunnel compare --from %s\n", m.Dir(), pr.Tally(), m.Dir())
	if pr.Done < pr.Total {
		return fmt.Errorf("sweep: %d of %d points not done (windtunnel sweep status %s; run the sweep again to resubmit them)", pr.Total-pr.Done, pr.Total, m.Dir())
	}
	return nil
}
