package launch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"windtunnel/lab"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"
)

// Run is a run ready to start: its configuration, its trainer and the session it writes.
type Run struct {
	Config  runconfig.Config
	Trainer *lab.Trainer
	Writer  *sessions.Writer
	Meta    sessions.Meta
	// Note is said before the run starts: a resume that restarts from step 0.
	Note string
}

// Close closes the run's session and trainer, for a run that will not start.
func (r *Run) Close() error {
	err := r.Writer.Close()
	r.Trainer.Close()
	return err
}

// New builds the trainer of cfg and creates its session at path, its meta naming the
// program's version. The trainer is closed again when the session cannot be created.
func New(cfg runconfig.Config, path, version string) (*Run, error) {
	tr, err := lab.New(cfg)
	if err != nil {
		return nil, err
	}
	meta, err := Meta(cfg, tr, path, version)
	if err != nil {
		tr.Close()
		return nil, err
	}
	w, err := sessions.Create(path, meta, sessions.WriterOptions{})
	if err != nil {
		tr.Close()
		return nil, err
	}
	return &Run{Config: cfg, Trainer: tr, Writer: w, Meta: meta}, nil
}

// DefaultPath is where a run's session goes without --out: ./runs/<time>-<task>-<model>.wtlab
// (sessions.RunsDir, sessions.Stamp, sessions.Suffix).
func DefaultPath(cfg runconfig.Config, now time.Time) string {
	return filepath.Join(sessions.RunsDir, fmt.Sprintf("%s-%s-%s%s", sessions.Stamp(now), cfg.Task, cfg.Model, sessions.Suffix))
}

// Meta describes a run for its session: the model the trainer built, the device, BLAS and
// host it runs on, the program's version, and the configuration as JSON.
func Meta(cfg runconfig.Config, tr *lab.Trainer, path, version string) (sessions.Meta, error) {
	cj, err := json.Marshal(cfg)
	if err != nil {
		return sessions.Meta{}, fmt.Errorf("launch: config: %w", err)
	}
	host, _ := os.Hostname()
	m := tr.Model()
	layers, heads := m.Heads()
	if heads == 0 && cfg.Model == "transformer" {
		layers = cfg.Transformer.Layers
	}
	return sessions.Meta{
		Task: cfg.Task, Model: m.Kind(), Params: m.NumParams(), Layers: layers, Heads: heads, Steps: cfg.Steps,
		Device: tr.Device().Kind, DeviceName: tr.Device().Name, Driver: tr.Device().Driver, BLAS: tr.BLAS(),
		Version: version, Host: host, Created: time.Now().UTC().Truncate(time.Second), Config: cj, Path: path,
	}, nil
}

// ResumeSettings are the settings a resumed run may change, as run's flags: its length and
// how it computes (runconfig.Overrides.Apply sets them); the rest of the configuration
// comes from the session.
var ResumeSettings = []string{"steps", "workers", "blas", "device"}

// ResumeFlags are run's flags that may accompany --resume, in the order the refusal lists
// them: ResumeSettings, then those of how the run prints.
var ResumeFlags = append(slices.Clip(ResumeSettings), "headless", "detach", "predictions", "json")

// CheckResumeFlags refuses the flags given (besides --resume itself) that cannot go with
// --resume, naming them all and those that can.
func CheckResumeFlags(given []string) error {
	var bad []string
	for _, name := range given {
		if name != "resume" && !slices.Contains(ResumeFlags, name) {
			bad = append(bad, "--"+name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("--resume takes the run's settings from the session; %s cannot change them (allowed: --%s)",
		strings.Join(bad, ", "), strings.Join(ResumeFlags, ", --"))
}

// Resumable reads what a session continues from: its stored configuration and its last
// checkpoint (nil when it has none yet).
func Resumable(path string) (runconfig.Config, *sessions.Checkpoint, error) {
	r, err := sessions.Open(path)
	if err != nil {
		return runconfig.Config{}, nil, err
	}
	defer r.Close()
	cfg, err := derived.SessionConfig(r.Meta())
	if err != nil {
		return runconfig.Config{}, nil, err
	}
	ck, ok, err := r.Checkpoint(-1)
	if err != nil {
		return runconfig.Config{}, nil, err
	}
	if !ok {
		ck = nil
	}
	return cfg, ck, nil
}

// Resume continues the session at path from checkpoint ck (nil: from step 0, its records
// discarded and recomputed) with cfg, the stored configuration (Resumable) as changed for
// this process (steps, workers, BLAS, device): it builds the trainer, restores ck and
// reopens the session, recording the planned length there (replan).
func Resume(path string, stored, cfg runconfig.Config, ck *sessions.Checkpoint) (*Run, error) {
	step, note := 0, ""
	if ck != nil {
		step = ck.Step
	} else {
		note = fmt.Sprintf("no checkpoint in %s: restarting from step 0 with its configuration", path)
	}
	tr, err := lab.New(cfg)
	if err != nil {
		return nil, err
	}
	if ck != nil {
		err := tr.Restore(ck)
		if err == nil {
			err = restoreFrames(tr, path, ck.Step)
		}
		if err != nil {
			tr.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	w, meta, err := sessions.Append(path, step, sessions.WriterOptions{})
	if err != nil {
		tr.Close()
		return nil, err
	}
	if err := replan(w, &meta, stored, cfg.Steps); err != nil {
		w.Close()
		tr.Close()
		return nil, err
	}
	return &Run{Config: cfg, Trainer: tr, Writer: w, Meta: meta, Note: note}, nil
}

// replan records a resumed run's planned length in its session before it starts: the
// meta's Steps, which info, ls and the dashboard's progress and ETA read, and the stored
// configuration's, from which a later resume without --steps continues. Only the length
// changes; the rest of the stored configuration stays as given (a resume's --workers,
// --blas and --device are this process's, not the run's).
func replan(w *sessions.Writer, meta *sessions.Meta, stored runconfig.Config, steps int) error {
	if meta.Steps == steps && stored.Steps == steps {
		return nil
	}
	stored.Steps = steps
	cj, err := json.Marshal(stored)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	set := func(m *sessions.Meta) { m.Steps, m.Config = steps, cj }
	if err := w.UpdateMeta(set); err != nil {
		return err
	}
	set(meta)
	return nil
}

// restoreFrames gives the trainer the frame history its session holds up to step
// (lab.Trainer.RestoreFrames): the newest snapshot's history there, and the J-lens of the
// snapshots that history holds.
func restoreFrames(tr *lab.Trainer, path string, step int) error {
	rd, err := sessions.Open(path)
	if err != nil {
		return err
	}
	defer rd.Close()
	newest, _, err := rd.Geometry(step)
	if err != nil || newest == nil || newest.Frame == nil {
		return err
	}
	jlens := map[int]*sessions.JLens{}
	for _, p := range newest.Frame.Points {
		if jlens[p.Step], err = rd.JLensAt(p.Step); err != nil {
			return err
		}
	}
	tr.RestoreFrames(newest.Frame.Points, jlens)
	return nil
}
