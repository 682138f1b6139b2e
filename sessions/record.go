package sessions

// State is a run's lifecycle state as shown in the Run pane.
type State string

// The states of a run.
const (
	Training State = "training"
	Paused   State = "paused"
	Done     State = "done"
	Stopped  State = "stopped"
	Failed   State = "failed"
)

// Record is the unit of everything shown and saved: one training step's scalars and, at
// the evaluation cadence, the held-out metrics.
type Record struct {
	Step      int     `json:"step"`
	WallS     float64 `json:"wall_s"`
	Loss      float64 `json:"loss"`
	LR        float64 `json:"lr"`
	GradNorm  float64 `json:"grad_norm"`
	StepsPerS float64 `json:"steps_per_s"`
	State     State   `json:"state"`
	Message   string  `json:"message,omitempty"`
	Eval      *Eval   `json:"eval,omitempty"`
}

// Eval holds the held-out probe-set metrics at one step (definitions: DESIGN.md §4).
type Eval struct {
	// BitErrorPosition is bit error (a), per-position: |mean_seq H(q) − mean_seq H(p*)| averaged over positions.
	BitErrorPosition float64 `json:"bit_error_position"`
	// BitErrorSample is bit error (b), per-sample: mean of |H(q) − H(p*)|.
	BitErrorSample float64 `json:"bit_error_sample"`
	// KLBits is the mean KL(p*‖q) in bits.
	KLBits float64 `json:"kl_bits"`
	// TVD is the mean total variation distance.
	TVD float64 `json:"tvd"`
	// Accuracy is the fraction of positions where the model's top class is a MAP class.
	Accuracy float64 `json:"accuracy"`
	// ModelEntropy is the model's mean entropy (bits) per scored position.
	ModelEntropy []float64 `json:"model_entropy_bits"`
	// BayesEntropy is the exact posterior's mean entropy (bits) per scored position.
	BayesEntropy []float64 `json:"bayes_entropy_bits"`
}
