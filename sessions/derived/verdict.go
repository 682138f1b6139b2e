package derived

import "windtunnel/diagnostics"

// Primitive is one of Paper I's inference primitives, the tunnel that tests it, and the
// criterion a model must meet to pass it.
type Primitive struct {
	// Task is the tunnel.
	Task string `json:"task"`
	// Name is the primitive the tunnel tests.
	Name string `json:"primitive"`
	// Metric is "bit_error_position" (pass when ≤ Threshold) or "accuracy" (pass when ≥).
	Metric string `json:"metric"`
	// Threshold is the pass bound.
	Threshold float64 `json:"threshold"`
}

// Primitives are the architecture table's columns. The bit-error bound is PassBits,
// where the quick preset's transformer lands comfortably (bijection 0.07 bits, HMM 0.08) and
// far below the uniform or context-free guess (≥ 0.8 bits); recall is scored by MAP
// accuracy since its posterior is a point mass (entropy 0).
func Primitives() []Primitive {
	return []Primitive{
		{Task: "bijection", Name: "belief accumulation", Metric: "bit_error_position", Threshold: PassBits},
		{Task: "hmm", Name: "belief transport", Metric: "bit_error_position", Threshold: PassBits},
		{Task: "recall", Name: "random-access binding", Metric: "accuracy", Threshold: 0.9},
	}
}

// Passes reports whether scores meet the primitive's threshold.
func (p Primitive) Passes(s diagnostics.Scores) bool {
	if p.Metric == "accuracy" {
		return s.Accuracy >= p.Threshold
	}
	return s.BitErrorPosition <= p.Threshold
}

// PaperVerdict is Paper I's architecture-table verdict for a model on a task: "pass" or
// "fail" (Transformer 3/3 primitives; Mamba bijection and HMM, not binding; LSTM
// bijection only; MLP none), "" for a model the paper has no row for.
func PaperVerdict(task, model string) string {
	passes := map[string][]string{
		"transformer": {"bijection", "hmm", "recall"},
		"mamba":       {"bijection", "hmm"},
		"lstm":        {"bijection"},
		"mlp":         {},
	}
	ts, ok := passes[model]
	if !ok {
		return ""
	}
	for _, t := range ts {
		if t == task {
			return "pass"
		}
	}
	return "fail"
}

// PrimitiveOf returns the primitive a task tests.
func PrimitiveOf(task string) (Primitive, bool) {
	for _, p := range Primitives() {
		if p.Task == task {
			return p, true
		}
	}
	return Primitive{}, false
}
