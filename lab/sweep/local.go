package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"windtunnel/sessions"
)

// RunArgs are the arguments of `windtunnel run` for a point: --resume of its session when
// one exists (a run interrupted or killed continues from its last checkpoint; a finished one
// is refused by run, so it is never trained twice), else a new run with --out. workers > 0
// adds --workers, and blas --blas, before the point's own flags, so a swept one wins.
func RunArgs(session string, p Point, workers int, blas string, resume bool) []string {
	args := []string{"run", "--headless"}
	if resume {
		args = append(args, "--resume", session)
	} else {
		args = append(args, "--out", session)
	}
	if workers > 0 {
		args = append(args, "--workers", strconv.Itoa(workers))
	}
	if blas != "" {
		args = append(args, "--blas", blas)
	}
	if resume {
		return args
	}
	return append(args, p.Args...)
}

// MaxJobs bounds the points a local engine trains at once (--jobs of sweep and primitives).
const MaxJobs = 256

// CheckLocal refuses what the local engine cannot take from sweep's, compare's and
// primitives' flags: --jobs outside 1..MaxJobs, a negative --workers.
func CheckLocal(jobs, workers int) error {
	switch {
	case jobs < 1 || jobs > MaxJobs:
		return fmt.Errorf("--jobs %d out of range: want 1..%d", jobs, MaxJobs)
	case workers < 0:
		return fmt.Errorf("--workers %d out of range: want ≥ 0 (0: all cores, divided between the jobs)", workers)
	}
	return nil
}

// Local is the embedded engine: a sweep's points as child processes of this machine, Jobs
// at a time, each with Workers kernel goroutines (the cores divided between the jobs).
type Local struct {
	// Exe is the windtunnel binary the children run.
	Exe string
	// Jobs is how many points train at once (≥ 1); Workers each run's --workers (0: the
	// cores divided between the jobs, at least 1).
	Jobs, Workers int
	// BLAS is each run's --blas ("": run's default, or the point's own).
	BLAS string
	// Env is the children's environment (nil: this process's). GOMAXPROCS is left to Go:
	// with it at 1, a run's session writer waits behind the trainer and commits seconds
	// apart; --workers is what divides the cores.
	Env []string
	// Out receives the progress line and a line per finished point; Tty rewrites the
	// progress line in place, else it is printed every Every (and at each change of counts).
	Out   io.Writer
	Tty   bool
	Every time.Duration
}

// workers is each run's --workers: Workers, or the cores divided between the jobs.
func (l *Local) workers() int {
	if l.Workers > 0 {
		return l.Workers
	}
	return max(1, runtime.NumCPU()/l.Jobs)
}

type localResult struct {
	p    Point
	err  error
	took time.Duration
	// sigterm: SIGTERM ended the run before it could handle it (just started: a cancel).
	sigterm bool
}

// Run trains todo (pending points of m) and returns the progress at the end. Cancelling ctx
// stops the running points cleanly (SIGTERM: final evaluation and checkpoint) and starts no
// more: the next run of the sweep resumes them.
func (l *Local) Run(ctx context.Context, m *Manifest, todo []Point) (Progress, error) {
	if l.Jobs < 1 || l.Workers < 0 {
		panic("sweep: Local needs Jobs ≥ 1 and Workers ≥ 0")
	}
	l.Workers = l.workers()
	env := l.Env
	if env == nil {
		env = os.Environ()
	}
	every := l.Every
	if every <= 0 {
		every = 30 * time.Second
	}
	out := &liner{w: l.Out, tty: l.Tty, every: every}
	pr := Of(m.Status(nil))
	pr.Left, pr.Failed, pr.Stopped, pr.Running = len(todo), 0, 0, 0
	pr.Done = pr.Total - len(todo)
	t0 := time.Now()
	mt := newMeter(t0)
	for _, p := range todo {
		mt.observe(t0, p.Index, m.Progress(p), p.Steps, p.Work, false)
	}
	running := map[int]*exec.Cmd{}
	results := make(chan localResult)
	next := 0
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	show := func(force bool) {
		now := time.Now()
		for ix := range running {
			p := m.Points[ix]
			mt.observe(now, ix, m.Progress(p), p.Steps, p.Work, true)
		}
		pr.ETA, pr.HasETA = mt.eta(now)
		out.line(pr.String(), now, force)
	}
	var startErr error
	stopping := false
	done := ctx.Done()
	for {
		for !stopping && ctx.Err() == nil && len(running) < l.Jobs && next < len(todo) {
			p := todo[next]
			next++
			cmd, err := l.start(m, p, env, results)
			if err != nil {
				startErr, stopping = err, true
				break
			}
			running[p.Index] = cmd
			pr.Left--
			pr.Running++
			show(true)
		}
		if len(running) == 0 {
			break
		}
		select {
		case r := <-results:
			delete(running, r.p.Index)
			pr.Running--
			st := m.pointStatus(r.p, nil)
			mt.observe(time.Now(), r.p.Index, st.Step, r.p.Steps, r.p.Work, false)
			switch {
			case st.State == Done:
				pr.Done++
				out.event(fmt.Sprintf("%s done in %s", r.p.Name, r.took.Round(time.Second)))
			case stopping && (st.State == Stopped || st.State == Missing || r.sigterm):
				// Stopped by the cancel (a run the SIGTERM reached as it started included):
				// not a failure; the next run of the sweep resumes it.
				pr.add(Stopped)
				out.event(fmt.Sprintf("%s stopped at step %d; resumes on the next run of the sweep", r.p.Name, st.Step))
			default:
				s := st.State
				if s == Running || s == Missing { // the process ended, its run did not
					s = Failed
				}
				pr.add(s) // as sweep status names it
				why := string(st.State)
				if st.Detail != "" {
					why += ": " + st.Detail
				}
				if r.err != nil {
					why += " (" + r.err.Error() + ")"
				}
				out.event(fmt.Sprintf("%s not finished: %s; log %s", r.p.Name, why, m.LogPath(r.p)))
			}
			show(true)
		case <-tick.C:
			show(false)
		case <-done:
			done, stopping = nil, true
			for _, c := range running {
				c.Process.Signal(syscall.SIGTERM)
			}
			out.event(fmt.Sprintf("stopping %s cleanly (they resume on the next run of the sweep)", sessions.Plural(len(running), "running point")))
		}
	}
	out.end()
	if startErr != nil {
		return pr, startErr
	}
	if ctx.Err() != nil {
		return pr, fmt.Errorf("sweep: interrupted with %s left (run the same sweep again to continue)", sessions.Plural(pr.Left+pr.Failed+pr.Stopped, "point"))
	}
	return pr, nil
}

// engineNote starts the lines the engine writes in a point's log (the command it runs, how
// the run ended when the run could not say): lastFailure never takes one for the run's.
const engineNote = "#"

// start starts one point's run, its output appended to logs/<point>.log.
func (l *Local) start(m *Manifest, p Point, env []string, results chan<- localResult) (*exec.Cmd, error) {
	session := m.SessionPath(p)
	_, statErr := os.Stat(session)
	args := RunArgs(session, p, l.Workers, l.BLAS, statErr == nil)
	logPath := m.LogPath(p)
	log, err := sessions.OpenLog(logPath)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	fmt.Fprintf(log, "%s %s %s %s\n", engineNote, time.Now().UTC().Format(time.RFC3339), l.Exe, strings.Join(args, " "))
	cmd := exec.Command(l.Exe, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, log, log
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("sweep: start %s: %w", p.Name, err)
	}
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		sigterm := false
		if errors.As(err, &ee) {
			err = fmt.Errorf("exit status %d", ee.ExitCode())
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM {
				// Killed before it could stop cleanly: said in the log as the engine's note,
				// which lastFailure does not read as the run's failure.
				sigterm, err = true, errors.New("SIGTERM before the run could stop cleanly")
				fmt.Fprintf(log, "%s %s stopped by SIGTERM as it started; the next run of the sweep resumes it\n", engineNote, time.Now().UTC().Format(time.RFC3339))
			}
		}
		log.Close()
		results <- localResult{p: p, err: err, took: time.Since(t0), sigterm: sigterm}
	}()
	return cmd, nil
}
