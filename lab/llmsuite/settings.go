package llmsuite

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"windtunnel/models/llm"
	"windtunnel/sessions/llmrun"
)

// Settings are what `windtunnel llm` is asked to measure, as its flags give them, checked
// before the model is read (Check) and against the model once it is (Runnable).
type Settings struct {
	// Experiments is the comma-separated list of llmrun.Experiments to run.
	Experiments string
	// PerK, Workers, AxisLayer and NullCopies are Options.PerK, the goroutines of the
	// products, Options.AxisLayer and the random-weight copies measured.
	PerK, Workers, AxisLayer, NullCopies int
	// Nulls is the comma-separated list of llmrun.NullKinds, or "none".
	Nulls string
}

// Check checks the settings that do not need the model and returns the experiments and the
// nulls they name; an error names the flag (--per-k 0 out of range: want 1..1000).
func (s Settings) Check() (exps, nulls []string, err error) {
	exps = strings.Split(s.Experiments, ",")
	for i, e := range exps {
		exps[i] = strings.TrimSpace(e)
		if !slices.Contains(llmrun.Experiments, exps[i]) {
			return nil, nil, fmt.Errorf("--experiments: unknown experiment %q (want %s)", exps[i], strings.Join(llmrun.Experiments, ", "))
		}
	}
	switch {
	case s.PerK < 1 || s.PerK > 1000:
		return nil, nil, fmt.Errorf("--per-k %d out of range: want 1..1000", s.PerK)
	case s.Workers < 0 || s.Workers > 1024:
		return nil, nil, fmt.Errorf("--workers %d out of range: want 0..1024", s.Workers)
	case s.AxisLayer < 0:
		return nil, nil, fmt.Errorf("--axis-layer %d: want a layer ≥ 1 (0: the paper's protocol, the last five)", s.AxisLayer)
	}
	if nulls, err = llmrun.ParseNulls(s.Nulls); err != nil {
		return nil, nil, fmt.Errorf("--nulls: %w", err)
	}
	if s.NullCopies < 1 || s.NullCopies > 8 {
		return nil, nil, fmt.Errorf("--null-copies %d out of range: want 1..8", s.NullCopies)
	}
	return exps, nulls, nil
}

// Runnable keeps the experiments of exps that a model of configuration c supports
// (Unsupported) at axisLayer: one it cannot is an error when the experiments were named
// (named), else dropped and said in skipped ("axis not run: why"); an axis layer the model
// does not have is an error.
func Runnable(c llm.Config, axisLayer int, exps []string, named bool) (run, skipped []string, err error) {
	if axisLayer >= c.Layers {
		return nil, nil, fmt.Errorf("--axis-layer %d: the model has layers 0..%d", axisLayer, c.Layers-1)
	}
	unsup := Unsupported(c, axisLayer)
	for _, e := range exps {
		why, ok := unsup[e]
		switch {
		case !ok:
			run = append(run, e)
		case named:
			return nil, nil, fmt.Errorf("--experiments %s: %s", e, why)
		default:
			skipped = append(skipped, e+" not run: "+why)
		}
	}
	return run, skipped, nil
}

// ParseIDs reads token ids separated by commas (llm logits --ids): non-negative whole
// numbers.
func ParseIDs(s string) ([]int, error) {
	var seq []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("--ids %q: want non-negative whole numbers separated by commas", s)
		}
		seq = append(seq, v)
	}
	return seq, nil
}
