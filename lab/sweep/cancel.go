package sweep

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"

	"windtunnel/sessions"
)

// Canceller is how Cancel stops a sweep: the scancel and squeue commands ("" when not on
// PATH: a sweep submitted to Slurm then cannot be cancelled) and how long it waits for the
// local runs to stop.
type Canceller struct {
	Scancel, Squeue string
	Wait            time.Duration
}

// Cancel stops what trains the sweep and starts nothing more, leaving the points done and
// every checkpoint as they are: its job arrays still in Slurm's queue are cancelled (scancel:
// queued tasks are dropped, running ones get SIGTERM and stop cleanly, with a final
// evaluation and checkpoint), its local engine (EnginePid) is sent SIGTERM, which stops its
// running points the same way, and so is any run of this host still writing a point's
// session. Only a process holding a lock (sessions.LockHolder's Local) is signalled: never
// the pid of a lock file nobody holds (a killed run's, whose pid may be anyone's since), one
// of another host (said on out: it is cancelled there), nor the run of a point Slurm holds
// (cancelled through Slurm only). It waits up to c.Wait for the local ones to let go of
// their locks and says on out what it did; a stopped point resumes from its checkpoint when
// the sweep runs again.
func (m *Manifest) Cancel(ctx context.Context, c Canceller, out io.Writer) error {
	did := false
	var q Queue
	if len(m.Jobs) > 0 {
		if c.Squeue == "" || c.Scancel == "" {
			return fmt.Errorf("sweep: %s was submitted to Slurm and squeue or scancel is not on PATH: cancel its jobs (%s) with scancel where Slurm is", m.Dir(), m.jobIDs())
		}
		var err error
		if q, err = m.ReadQueue(ctx, c.Squeue); err != nil {
			return err
		}
		if ids := m.queuedJobs(q); len(ids) > 0 {
			if err := scancel(ctx, c.Scancel, ids); err != nil {
				return err
			}
			fmt.Fprintf(out, "cancelled Slurm job arrays %s (%d tasks: queued ones dropped, running ones stop at a checkpoint)\n", strings.Join(ids, ", "), len(q))
			did = true
		}
	}
	signalled := map[string]int{} // lock paths' holders sent SIGTERM
	elsewhere := 0
	if h := sessions.LockHolder(m.manifestPath()); h.Local {
		if err := terminate(h.Pid); err != nil {
			return fmt.Errorf("sweep: stop the local engine (pid %d): %w", h.Pid, err)
		}
		fmt.Fprintf(out, "stopping the local engine (pid %d): its running points stop at a checkpoint, no more start\n", h.Pid)
		signalled[m.manifestPath()], did = h.Pid, true
	} else if h.Held {
		fmt.Fprintf(out, "the local engine of %s runs elsewhere (%s): not signalled from here; run sweep cancel there\n", m.Dir(), h.Elsewhere())
		elsewhere++
	}
	for _, p := range m.Points {
		if _, ok := q[p.Index]; ok {
			continue // Slurm's task: cancelled through Slurm only, never a local kill
		}
		path := m.SessionPath(p)
		switch h := sessions.LockHolder(path); {
		case h.Local:
			terminate(h.Pid) // the engine's own children are stopping already
			signalled[path] = h.Pid
		case h.Held:
			fmt.Fprintf(out, "%s is written by %s: not signalled from here; stop it there\n", p.Name, h.Elsewhere())
			elsewhere++
		}
	}
	if !did && len(signalled) == 0 {
		if elsewhere == 0 {
			fmt.Fprintf(out, "nothing to cancel: no point of %s is queued or running\n", m.Dir())
		}
		return nil
	}
	if len(signalled) == 0 { // Slurm's tasks stop on their nodes
		fmt.Fprintf(out, "windtunnel sweep status %s follows them; running the sweep again resubmits the stopped points\n", m.Dir())
		return nil
	}
	deadline := time.Now().Add(c.Wait)
	for stillHeld(signalled) {
		if time.Now().After(deadline) {
			return fmt.Errorf("sweep: processes %v of %s still running %s after SIGTERM (a run stops after its final evaluation and checkpoint)", pidsOf(signalled), m.Dir(), c.Wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	fmt.Fprintf(out, "%s: %s (windtunnel sweep status %s; running the sweep again resumes the stopped points)\n", m.Dir(), Of(m.Status(nil)).Tally(), m.Dir())
	return nil
}

// jobIDs lists the sweep's Slurm jobs.
func (m *Manifest) jobIDs() string {
	ids := make([]string, len(m.Jobs))
	for i, j := range m.Jobs {
		ids[i] = j.ID
	}
	return strings.Join(ids, ", ")
}

// queuedJobs are the sweep's jobs with tasks still in the queue q.
func (m *Manifest) queuedJobs(q Queue) []string {
	var ids []string
	for _, j := range m.Jobs {
		for _, ix := range j.Indices {
			if _, ok := q[ix]; ok {
				ids = append(ids, j.ID)
				break
			}
		}
	}
	sort.Strings(ids)
	return ids
}

// scancel cancels the jobs.
func scancel(ctx context.Context, cmd string, ids []string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	c := exec.CommandContext(ctx, cmd, ids...)
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("sweep: scancel %s: %w: %s", strings.Join(ids, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// terminate sends SIGTERM to the process pid.
func terminate(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Signal(syscall.SIGTERM)
}

// stillHeld reports whether any of the locks is still held by the process signalled (a
// process is asked whether it still holds the lock, never whether its pid exists: a pid
// freed by the run may be another process's by then).
func stillHeld(signalled map[string]int) bool {
	for path, pid := range signalled {
		if h := sessions.LockHolder(path); h.Held && h.Pid == pid {
			return true
		}
	}
	return false
}

// pidsOf lists the pids signalled, sorted.
func pidsOf(signalled map[string]int) []int {
	var pids []int
	for _, pid := range signalled {
		pids = append(pids, pid)
	}
	sort.Ints(pids)
	return pids
}
