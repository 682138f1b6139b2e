// Package sweep runs a grid of `windtunnel run` configurations — tasks × models × seeds ×
// any run flag given as a list — into one folder, one session per grid point, and reads the
// folder back: which points are queued, running, done, stopped or failed.
//
// A Grid is a list of axes (a run flag and its values; from --set FLAG=V1,V2 or a sweep
// file in W&B's or Hydra's form, ReadFile); Points expands it, the first axis slowest, each
// point named by its values (bijection-transformer-lr=1e-3-seed=2), which is also its
// session's name (Point.Session). A folder not named is ./runs/<kind>-<time> (DefaultDir:
// sweep, compare and primitives alike). The folder holds a Manifest (sweep.json: the grid, the points and the
// Slurm jobs submitted), the sessions, logs/ and, for Slurm, the sbatch script. Prepare
// refuses a folder that holds another sweep, so a folder is one grid; a grid holding every
// point of the folder's and more (more seeds) extends it, the new points numbered after.
//
// Two engines train the points; both run the windtunnel binary, `run --headless --out
// <point>.wtlab <flags>`, or `run --headless --resume <point>.wtlab` when the session
// exists, so an interrupted point continues from its last checkpoint and a finished one is
// never trained again. Local runs them as child processes, Jobs at a time, with the cores
// divided (--workers), printing a progress line (done / running / failed / stopped / left,
// a point's state counted as sweep status names it; and the ETA, which weighs each point's
// steps by their cost, parameters × tokens a step: StepWork).
// Slurm writes one sbatch script and submits the points to train as one job array
// (--array=…%P, --requeue); each array task runs its point, and a requeued or preempted
// task resumes. Status combines the sessions with squeue's view of the sweep's jobs;
// Pending is what a new run of the sweep trains: missing, stopped and failed points.
//
// Compare's grids (task × model × seed, run with a preset and a length: CompareGrid) are
// sweeps too: its folder is a sweep folder, and Manifest.Scores reads its finished points
// back for the architecture table.
//
// A random search (Grid.Random: W&B's method random, Hydra's Optuna RandomSampler) draws a
// number of configurations of the axes other than task, model and seed from their values or
// distributions, with a seeded generator of its own arithmetic: the same file draws the same
// points everywhere, and a larger count the same first ones. Cancel stops a sweep: scancel
// of its job arrays, SIGTERM to its local engine (which holds the manifest's lock while it
// runs: EnginePid) and runs — only processes of this host holding a lock
// (sessions.LockHolder): a killed run's lock file or another host's names a pid that is not
// signalled, and a point Slurm holds is cancelled through Slurm only.
//
// The settings against the results (settings.go): Grid.Swept are the flags the grid
// varies, Point.Setting a point's value of one, Manifest.SortPoints sorts the points by a
// flag or a metric (a flag's values in index.CompareSetting's order), SettingsText is sweep
// status --settings's table, Coordinates the rows of its parallel-coordinates figure
// (figures.Parallel) and Manifest.Settings the same settings as plain data
// (index.Settings) for the run picker of the sweep's folder.
//
// Files: grid.go (axes, --set, points and their names), random.go (distributions and the
// draws), assemble.go (the grid a command line gives: a sweep file, --set, task and model
// lists, seeds), file.go and randomfile.go (sweep files, TOML and YAML; a random search's
// keys), compare.go (ParseList, a --tasks or --models list; CompareGrid; Scores; ReadFromSessions, compare --from's
// table), plan.go (Plan: what compare and primitives train, ComparePlan and Budget.Plan; Request.Plan,
// sweep's grid or the sweep continued; Ended, how a command's training ended), budget.go (the
// primitives budgets: a schedule per task, one grid per task joined by JoinPoints), cancel.go (sweep cancel), points.go (every point's configuration built by run's flags,
// PointConfig through runconfig.FromArgs; Grid.CheckedPoints: an axis run has no flag for
// refused; CheckPoints: two points that train the same run refused; CheckGPU: a --gres GPU
// for points on the CPU refused; CheckSeeds, the one bound of --seeds), folder.go (the manifest and the folder's checks: a point's flags are ones a grid may set), status.go
// (point states, a session read through sessions/index; status_text.go, what sweep status
// prints: StatusText, and ReadStatus, the Report with squeue's view), progress.go (the progress line and ETA), local.go
// (the local engine), slurm.go (the script, sbatch and squeue; Slurm.Check, the settings' checks),
// exe.go (Exe: the binary the points run, refused for Slurm when `go run` built it), wait.go (following a
// submitted sweep until it leaves the queue), engine.go (Here and SubmitPending: what the
// command does with each engine).
package sweep
