// Package lab is the training runtime. New builds a run from a runconfig.Config (the model
// through models.New); Run, on the trainer's own goroutine, draws fresh batches from a tunnel,
// steps the model with AdamW (or plain SGD, Config.Optimizer) under a warm-up + cosine schedule, evaluates it on the fixed
// held-out probe set and, at the probe cadence, takes a geometry snapshot through
// diagnostics, recording there what is derived from it (head table, costliest unit and
// head, settle steps) so that readers never recompute it.
//
// The trainer's one outlet is its sinks (Attach): every record, operator event and
// checkpoint goes to them, and they never block it. Operator actions come in as
// sessions.Event through Send (the Trainer is a sessions.Control): pause, resume, stop and
// head switches are applied between steps and recorded as the same event, with the step
// at which it took effect.
//
// Files: trainer.go (construction, accessors), run.go (the run loop and one step),
// events.go (operator events), eval.go (probe-set evaluation, ablated evaluations),
// geometry.go (snapshots and derived values), jlens.go (the authors' frame statistic at a
// snapshot), checkpoint.go (sinks, checkpoints, resume), effective.go (EffectiveOf, EffectiveJSON: the
// configuration as the run uses it, for display), adamw.go, sgd.go (SGD and the optimiser
// interface the trainer holds), path.go (the compute
// path, chosen once at New: the host — the CPU, or the CPU with its products on a GPU for
// cuda-gemm — or the whole step resident on a device; every reader of parameters goes
// through Trainer.current, which pulls them from the device first), device.go (opening the
// products-only GPU), resident.go (opening the resident step: --device cuda for a float32
// transformer, or host), memory.go (the memory estimate checked before a run, the garbage collector's target),
// chunks.go (the bounded passes every evaluation, probe and ablation runs in), fidelity.go
// (the authors' key orthogonality from the value tokens' embeddings, now and at
// initialisation), simplex.go (an hmm snapshot's belief simplex: the clusters against the
// states and the observed symbols, and the untrained model's, its null), lengths.go (hmm length generalisation), memlimit*.go (the memory
// available to the process). The configuration itself, its presets, validation and the one
// path from presets, files and flags to a configuration live in sessions/runconfig (a leaf); the
// architecture table and the verdicts in sessions/derived. Built on the trainer: lab/launch
// (a run set up and carried: its session, control socket, headless or with its dashboard),
// lab/probe (a checkpoint's geometry), lab/bench (the step timed against PyTorch, the
// dashboard's cost) and lab/sweep (grids of runs).
package lab
