package probe

import (
	"fmt"
	"strings"

	"windtunnel/diagnostics"
	"windtunnel/lab"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"
)

// NoiseSeed is the seed of the first of Noise's probe sets (the k-th's is NoiseSeed + k):
// far from the seeds runs train with, so the sets are none of their own probe sets.
const NoiseSeed = 1_000_000

// NoiseReport is a checkpoint's scores on Sets independent probe sets of N sequences each:
// how far an evaluation on one such set is from the model's expected score.
type NoiseReport struct {
	Path string `json:"session"`
	Step int    `json:"step"`
	N    int    `json:"probe_n"`
	Sets int    `json:"sets"`
	// BitErrorSample and BitErrorPosition are bit error (b) and (a) on each set.
	BitErrorSample   []float64 `json:"bit_error_sample"`
	BitErrorPosition []float64 `json:"bit_error_position"`
	// MeanB and SDB are bit error (b)'s mean and sample standard deviation over the sets;
	// MeanA and SDA (a)'s.
	MeanB float64 `json:"bit_error_sample_mean"`
	SDB   float64 `json:"bit_error_sample_sd"`
	MeanA float64 `json:"bit_error_position_mean"`
	SDA   float64 `json:"bit_error_position_sd"`
}

// CheckNoise refuses a noise measurement Noise does not make, naming probe's flags: fewer
// than 2 sets or more than 1000, or a set size outside 1..65536.
func CheckNoise(sets, n int) error {
	switch {
	case sets < 2 || sets > 1000:
		return fmt.Errorf("--noise-sets %d out of range: want 2..1000", sets)
	case n < 1 || n > 65536:
		return fmt.Errorf("--noise-n %d out of range: want 1..65536", n)
	}
	return nil
}

// Noise loads the checkpoint at or before step (-1: the last) of the session at path and
// scores it on sets probe sets of n sequences each, drawn from the seeds NoiseSeed,
// NoiseSeed+1, …: the spread of those scores is what one evaluation on a probe set of n
// sequences resolves.
func Noise(path string, step, n, sets int, blas string) (*NoiseReport, error) {
	r, cfg, ck, err := openCheckpoint(path, step)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cfg.BLAS, cfg.ProbeSize, cfg.EvalK = blas, n, nil
	rep := &NoiseReport{Path: path, Step: ck.Step, N: n, Sets: sets}
	for k := range sets {
		// The seed draws the probe set (and an initialisation the checkpoint replaces).
		cfg.Seed = NoiseSeed + uint64(k)
		s, err := scoreOnce(cfg, ck)
		if err != nil {
			return nil, fmt.Errorf("probe %s: set %d: %w", path, k, err)
		}
		rep.BitErrorSample = append(rep.BitErrorSample, s.BitErrorSample)
		rep.BitErrorPosition = append(rep.BitErrorPosition, s.BitErrorPosition)
	}
	rep.MeanB, rep.SDB = derived.MeanSD(rep.BitErrorSample)
	rep.MeanA, rep.SDA = derived.MeanSD(rep.BitErrorPosition)
	return rep, nil
}

// scoreOnce builds cfg's trainer (its probe set drawn from cfg.Seed), loads ck's parameters
// and scores the whole model on the probe set.
func scoreOnce(cfg runconfig.Config, ck *sessions.Checkpoint) (diagnostics.Scores, error) {
	tr, err := lab.New(cfg)
	if err != nil {
		return diagnostics.Scores{}, err
	}
	defer tr.Close()
	if err := tr.LoadParams(ck); err != nil {
		return diagnostics.Scores{}, err
	}
	return tr.Evaluate()
}

// Text is the report as probe prints it: each set's bit error (b), then both bit errors'
// mean and standard deviation over the sets.
func (p *NoiseReport) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, step %d: %d probe sets of %d sequences (seeds %d…%d)\n", p.Path, p.Step, p.Sets, p.N, NoiseSeed, NoiseSeed+p.Sets-1)
	fmt.Fprintf(&b, "bit error (b) per set: %s\n", floats(p.BitErrorSample, "%.5f"))
	fmt.Fprintf(&b, "bit error (b): mean %.5f, sd %.5f (sd/mean %.1f%%)\n", p.MeanB, p.SDB, 100*p.SDB/p.MeanB)
	fmt.Fprintf(&b, "bit error (a): mean %.5f, sd %.5f\n", p.MeanA, p.SDA)
	return b.String()
}

// openCheckpoint opens the session at path and reads its configuration and the checkpoint
// at or before step (-1: the last), the one way Session and Noise load a trained model; the
// caller closes the reader.
func openCheckpoint(path string, step int) (*sessions.Reader, runconfig.Config, *sessions.Checkpoint, error) {
	r, err := sessions.Open(path)
	if err != nil {
		return nil, runconfig.Config{}, nil, err
	}
	cfg, err := derived.SessionConfig(r.Meta())
	if err != nil {
		r.Close()
		return nil, runconfig.Config{}, nil, fmt.Errorf("probe: %w", err)
	}
	ck, ok, err := r.Checkpoint(step)
	if err == nil && !ok {
		cks, _ := r.Checkpoints()
		err = noCheckpointError(path, step, cks, cfg.CheckpointEvery)
	}
	if err != nil {
		r.Close()
		return nil, runconfig.Config{}, nil, err
	}
	return r, cfg, ck, nil
}
