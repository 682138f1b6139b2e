package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"windtunnel/models/arch"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"
)

// Run is one session as the report reads it.
type Run struct {
	derived.SessionRun
	// Path is the session file as given (or found in a given folder); File its base name.
	Path, File string
	// Preset is the preset the configuration is (steps aside), "" when none.
	Preset string
	// Lengths is the last whole-model evaluation's length-generalisation curve (hmm).
	Lengths []sessions.LengthScore
	// Snapshot is the newest geometry snapshot (nil when none) and SnapshotStep its step;
	// FirstSnapshot the earliest when older (nil otherwise), the geometry claims' null.
	Snapshot          *sessions.Snapshot
	SnapshotStep      int
	FirstSnapshot     *sessions.Snapshot
	FirstSnapshotStep int
	// FirstEval is the first whole-model evaluation when there is a later one (nil
	// otherwise) and FirstEvalStep its step: the null of the task claims, as no run records
	// an evaluation of the untrained model.
	FirstEval     *sessions.Eval
	FirstEvalStep int
	// Copies are the paths of every copy of this run's replicate (the same configuration
	// and seed, derived.Replicates) when there are several (countOnce), and Disagree what
	// differs between them ("" when they agree).
	Copies   []string
	Disagree string
	// FrameRatio is the authors' frame statistic over every snapshot (nil without one), and
	// Dissociation the pre-registered rule applied to it (nil without it).
	FrameRatio   *derived.FrameRatios
	Dissociation *derived.Dissociation
	// Curve is bit error (a) at every whole-model evaluation, in step order; KLCurve the
	// mean KL(p*‖q) in bits there (the probe set's cross-entropy less the Bayes entropy).
	Curve, KLCurve []derived.StepValue
}

// Load reads the sessions named by paths (files, or folders whose sessions are read in name
// order, sessions.Find: a folder's own files; files named *.json are results of the authors'
// experiment, LoadTimescales's). A path that does not exist, or a folder with neither a
// session nor derived.TimescalesFile, is an error naming it; a session that cannot be read
// or has not finished (named or found in a folder) is skipped with a note naming it and
// saying why (derived.SessionRun.Unfinished, as compare --from skips it), and the report is
// written from the others.
func Load(paths []string) (runs []Run, skipped []string, err error) {
	var files []string
	for _, p := range paths {
		if isTimescalesPath(p) {
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				continue
			}
		}
		found, err := sessions.Find([]string{p}, sessions.FindOptions{})
		if errors.Is(err, sessions.ErrNoSessions) {
			if _, err := os.Stat(filepath.Join(p, derived.TimescalesFile)); err == nil {
				continue // the authors' experiment alone
			}
		}
		if err != nil {
			return nil, nil, fmt.Errorf("report: %w", err)
		}
		for _, f := range found {
			files = append(files, f.Path)
		}
	}
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] {
			continue
		}
		seen[f] = true
		r, err := loadRun(f)
		if err != nil {
			skipped = append(skipped, err.Error())
			continue
		}
		if !r.Done {
			skipped = append(skipped, f+": "+r.Unfinished())
			continue
		}
		runs = append(runs, r)
	}
	return runs, skipped, nil
}

// loadRun reads one session once (derived.ReadRun): its score and configuration
// (derived.SessionRunOf), its newest snapshot and frame-ratio series, its bit error curve and
// its last length-generalisation curve.
func loadRun(path string) (Run, error) {
	// The errors are skip notes (Load): they name the file, with no "report:" of their own.
	dr, err := derived.ReadRun(path)
	if err != nil {
		return Run{}, err
	}
	sr, err := derived.SessionRunOf(dr)
	if err != nil && sr.Config.Steps > 0 && !sr.Done {
		// Only just started (no evaluation yet): Load skips it as unfinished.
		return Run{SessionRun: sr, Path: path}, nil
	}
	if err != nil {
		return Run{}, err
	}
	r := Run{SessionRun: sr, Path: path, File: filepath.Base(path), Preset: presetOf(sr.Config),
		Snapshot: dr.Snapshot, SnapshotStep: dr.SnapshotStep, FirstSnapshot: dr.FirstSnapshot, FirstSnapshotStep: dr.FirstSnapshotStep,
		FrameRatio: dr.FrameRatio, Dissociation: dr.Dissociation}
	if last, ok := dr.LastEval(); ok {
		r.Lengths = last.Eval.Lengths
		if first := dr.Evals[0]; first.Step < last.Step && first.Eval != nil {
			r.FirstEval, r.FirstEvalStep = first.Eval, first.Step
		}
	}
	for _, rec := range dr.Evals {
		r.Curve = append(r.Curve, derived.StepValue{Step: rec.Step, V: rec.Eval.BitErrorPosition})
		r.KLCurve = append(r.KLCurve, derived.StepValue{Step: rec.Step, V: rec.Eval.KLBits})
	}
	return r, nil
}

// presetOf names the preset a configuration was built from, comparing everything but the
// model, seed, steps, cadences and machine settings, and the initialisation and GELU of a
// model that keeps its own (a baseline given a preset: arch.TorchInit, arch.HasGELU). Presets
// that differ only in their steps (quick and laptop) are told apart by the steps: the one whose
// steps the run's are, else every match ("quick/laptop"; a preset that is an earlier one for
// the task, soft's recall, not named again); "" when none matches.
func presetOf(c runconfig.Config) string {
	model := c.Model
	norm := func(c runconfig.Config) string {
		if !arch.TorchInit(model) {
			c.Init = ""
		}
		if !arch.HasGELU(model) {
			c.GELU = ""
		}
		c.Model, c.Seed, c.Steps, c.BLAS, c.Workers, c.Device, c.Precision = "", 0, 0, "", 0, "", ""
		c.EvalEvery, c.ProbeEvery, c.CheckpointEvery, c.JLensN = 0, 0, 0, 0
		c.MLP, c.PrefixMLP, c.LSTM, c.Mamba = runconfig.Config{}.MLP, runconfig.Config{}.PrefixMLP, runconfig.Config{}.LSTM, runconfig.Config{}.Mamba
		b, _ := json.Marshal(c)
		return string(b)
	}
	got := norm(c)
	var match []string
	var seen []runconfig.Config // a preset that is an earlier one for this task is not named again
	for _, name := range runconfig.PresetNames() {
		p, err := runconfig.Preset(name, c.Task)
		if err != nil || norm(p) != got || slices.ContainsFunc(seen, func(q runconfig.Config) bool { return reflect.DeepEqual(p, q) }) {
			continue
		}
		if p.Steps == c.Steps {
			return name
		}
		match, seen = append(match, name), append(seen, p)
	}
	return strings.Join(match, "/")
}
