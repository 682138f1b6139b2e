package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windtunnel/cmd/internal/cliusage"
	"windtunnel/lab/sweep"
	"windtunnel/sessions"
)

// sweepFlags are the settings of `windtunnel sweep`.
type sweepFlags struct {
	tasks, models string
	seeds         int
	sets          []string
	out           string
	exe           string
	local, slurm  bool
	jobs          int
	parallel      int
	partition     string
	timeLimit     string
	gres          string
	cpus          int
	sbatchOpts    []string
	dryRun, wait  bool
	poll          time.Duration
}

// slurmOnly are the flags that mean something with --slurm only.
var slurmOnly = []string{"parallel", "partition", "time", "gres", "cpus-per-task", "sbatch-option", "dry-run", "wait"}

func newSweepCmd(stdout, stderr io.Writer) *cobra.Command {
	var f sweepFlags
	c := &cobra.Command{
		Use:   "sweep [SWEEP_FILE]",
		Short: "Train a grid of runs (tasks × models × seeds × any run flag) into one folder, here or as one Slurm job array",
		Long: "sweep trains every point of a grid — --tasks × --models × --seeds × each --set FLAG=V1,V2 (any flag of\n" +
			"`windtunnel run`), or a sweep file (TOML or YAML: W&B's `method: grid` with `parameters`, or Hydra's\n" +
			"`hydra: sweeper: params`; a random search with W&B's `method: random`, `run_cap` and distributions, or\n" +
			"Hydra's Optuna sweeper with its RandomSampler and `n_trials`, seeded) — into one folder, one session per\n" +
			"point named by its values\n" +
			"(bijection-transformer-lr=1e-3-seed=2.wtlab). --local (the default) runs --jobs points at a time on this\n" +
			"machine, the cores divided between them; --slurm writes DIR/sweep.sbatch and submits the points as\n" +
			"one job array (--array=…%P, --requeue). An interrupted, preempted or requeued point resumes from its\n" +
			"last checkpoint, a finished point is never trained again, and running sweep again on the folder\n" +
			"(the same grid, or none) trains or submits only what is missing, stopped or failed. `windtunnel\n" +
			"sweep status DIR` shows each point; `compare --from DIR`, `report DIR` and `plot DIR` read the folder.",
		Args: func(c *cobra.Command, args []string) error {
			if err := cliusage.MisspeltSubcommand(c, args); err != nil {
				return err
			}
			if len(args) > 1 {
				return usagef("%s takes at most one sweep file, got %d arguments", commandName(c), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweep(cmd.Context(), f, cmd.Flags(), args, stdout, stderr)
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.tasks, "tasks", "", "comma-separated tasks (default: run's, bijection)")
	fs.StringVar(&f.models, "models", "", "comma-separated models (default: run's, transformer)")
	fs.IntVar(&f.seeds, "seeds", 0, "seeds 1..N (default: seed 1)")
	fs.StringArrayVar(&f.sets, "set", nil, "a run flag and its values, FLAG=V1,V2 (repeatable; [a,b] is one value with a comma; choice(...), range(a,b))")
	fs.StringVar(&f.out, "out", "", "the sweep's folder (default ./runs/sweep-<time>); give an existing sweep's folder to continue it")
	fs.StringVar(&f.exe, "exe", "", "the windtunnel binary the points run (default: this one; with --slurm it must be reachable from the nodes)")
	fs.BoolVar(&f.local, "local", false, "run the points on this machine (the default)")
	fs.IntVar(&f.jobs, "jobs", 1, "--local: points trained at once (the cores are divided between them)")
	fs.BoolVar(&f.slurm, "slurm", false, "submit the points to Slurm as one job array")
	fs.IntVar(&f.parallel, "parallel", 0, "--slurm: array tasks running at once (--array=…%P; 0: Slurm's limit)")
	fs.StringVar(&f.partition, "partition", "", "--slurm: partition")
	fs.StringVar(&f.timeLimit, "time", "", "--slurm: time limit of each task (sbatch --time; the run stops cleanly, with a checkpoint, a minute before it)")
	fs.StringVar(&f.gres, "gres", "", "--slurm: generic resources of each task, e.g. gpu:1 (with --set device=cuda)")
	fs.IntVar(&f.cpus, "cpus-per-task", 1, "--slurm: CPUs of each task, and its run's --workers")
	fs.StringArrayVar(&f.sbatchOpts, "sbatch-option", nil, "--slurm: another sbatch option, one long option in the form --name=value, e.g. --account=lab (repeatable)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "--slurm: write the folder and DIR/sweep.sbatch, submit nothing")
	fs.BoolVar(&f.wait, "wait", false, "--slurm: after submitting, follow the sweep until its tasks leave the queue")
	fs.DurationVar(&f.poll, "poll", 10*time.Second, "--slurm --wait: how often squeue and the sessions are read")
	c.AddCommand(newSweepStatusCmd(stdout, stderr), newSweepCancelCmd(stdout, stderr))
	return c
}

// checkSweepFlags rejects flags that do not go together, before anything is read.
func checkSweepFlags(f sweepFlags, fs *pflag.FlagSet) error {
	if f.local && f.slurm {
		return usagef("sweep: --local and --slurm: choose one engine")
	}
	if !f.slurm {
		for _, n := range slurmOnly {
			if fs.Changed(n) {
				return usagef("sweep: --%s applies to --slurm only", n)
			}
		}
	} else if fs.Changed("jobs") {
		return usagef("sweep: --jobs applies to --local only (with --slurm: --parallel)")
	}
	if err := sweep.CheckLocal(f.jobs, 0); err != nil {
		return usagef("sweep: %v", err)
	}
	if f.poll < time.Second {
		return usagef("sweep: --poll %s: want ≥ 1s", f.poll)
	}
	if err := f.slurmSettings(f.exe).Check(); err != nil {
		return usageError{Err: err}
	}
	return nil
}

// slurmSettings are the flags' Slurm settings, the tasks running exe.
func (f sweepFlags) slurmSettings(exe string) sweep.Slurm {
	return sweep.Slurm{Exe: exe, Parallel: f.parallel, Partition: f.partition, Time: f.timeLimit, Gres: f.gres,
		CPUsPerTask: f.cpus, Extra: f.sbatchOpts}
}

func runSweep(ctx context.Context, f sweepFlags, fs *pflag.FlagSet, args []string, stdout, stderr io.Writer) error {
	if err := checkSweepFlags(f, fs); err != nil {
		return err
	}
	file := ""
	if len(args) == 1 {
		file = args[0]
	}
	req := sweep.Request{File: file, Sets: f.sets, Tasks: f.tasks, Models: f.models, Seeds: f.seeds, Dir: f.out,
		TasksGiven: fs.Changed("tasks"), ModelsGiven: fs.Changed("models"), SeedsGiven: fs.Changed("seeds")}
	g, points, err := req.Plan()
	if err != nil {
		return usageError{Err: err}
	}
	dir := f.out
	if f.slurm {
		if err := sweep.CheckGPU(f.gres, points); err != nil {
			return usageError{Err: err}
		}
	}
	if dir == "" {
		dir = sweep.DefaultDir("sweep", time.Now())
	}
	m, exe, err := prepareSweep(dir, g, points, f.exe, f.slurm)
	if err != nil {
		return err
	}
	var sbatch string
	if f.slurm && !f.dryRun {
		if sbatch, err = exec.LookPath("sbatch"); err != nil {
			return usagef("sweep: --slurm: sbatch is not on PATH (is this a Slurm login node? --dry-run writes the script without submitting)")
		}
	}
	if err := m.Save(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "windtunnel sweep: %s (%s) in %s\n", sessions.Plural(len(m.Points), "point"), sessions.SafeLines(g.Describe()), sessions.SafeLines(dir))
	if n := m.Added(); n > 0 {
		fmt.Fprintf(stderr, "windtunnel sweep: the sweep of %d grows by %s; the points done are kept\n", len(m.Points)-n, sessions.Plural(n, "new point"))
	}
	if f.slurm {
		return sweepSlurm(ctx, f, m, exe, sbatch, stdout, stderr)
	}
	return sweepLocal(ctx, m, exe, localOptions{jobs: f.jobs}, stdout, stderr)
}

// prepareSweep checks that dir can hold the sweep of grid g and its points (sweep.Prepare:
// a new or empty folder, or the same sweep's to continue it) and finds the windtunnel
// binary the points run (sweep.Exe); the manifest is not yet written (Save).
func prepareSweep(dir string, g sweep.Grid, points []sweep.Point, exe string, slurm bool) (*sweep.Manifest, string, error) {
	m, err := sweep.Prepare(dir, g, points)
	if errors.Is(err, sweep.ErrOtherSweep) {
		return nil, "", usageError{Err: err}
	} else if err != nil {
		return nil, "", err
	}
	if exe, err = sweep.Exe(exe, slurm); sweep.IsExeError(err) {
		return nil, "", usageError{Err: err}
	} else if err != nil {
		return nil, "", err
	}
	return m, exe, nil
}

// localOptions are how the local engine trains a sweep's points: jobs at a time, each with
// workers kernel goroutines (0: the cores divided between the jobs) and --blas blas ("":
// run's default).
type localOptions struct {
	jobs, workers int
	blas          string
}

// sweepLocal trains the pending points on this machine (Manifest.Here), o.jobs at a time,
// the cores divided between them unless o.workers says otherwise; out says how it ended.
func sweepLocal(ctx context.Context, m *sweep.Manifest, exe string, o localOptions, out, stderr io.Writer) error {
	outliveOutput() // the points go on being started when the output's reader has gone
	ctx, cancel := signalContext(ctx)
	defer cancel()
	l := sweep.Local{Exe: exe, Jobs: o.jobs, Workers: o.workers, BLAS: o.blas, Out: stderr, Tty: isTerminal(stderr)}
	return m.Here(ctx, l, out, stderr)
}

// sweepSlurm writes the script and submits the pending points as one job array.
func sweepSlurm(ctx context.Context, f sweepFlags, m *sweep.Manifest, exe, sbatch string, stdout, stderr io.Writer) error {
	ctx, cancel := signalContext(ctx)
	defer cancel()
	return m.SubmitPending(ctx, f.slurmSettings(exe), sweep.Submission{Sbatch: sbatch, DryRun: f.dryRun, Wait: f.wait, Poll: f.poll, Tty: isTerminal(stderr)}, stdout, stderr)
}
