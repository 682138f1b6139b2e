package llmrun

import (
	"fmt"
	"slices"
	"strings"

	"windtunnel/sessions"
)

// The kinds of null a record may hold (Nulls.Kinds), in the order `llm --nulls` names them.
const (
	// NullRandom is a random-weight copy of the model's configuration, measured as the model is.
	NullRandom = "random"
	// NullPredictors are the constant-label and uniform predictors on the SULA prompts.
	NullPredictors = "predictors"
	// NullControls are Paper III's SULA controls: lexical remap, shuffled labels, evidence
	// ablation; and the orthogonalised random axis of the ablation.
	NullControls = "controls"
)

// NullKinds are every kind of null, in order.
var NullKinds = []string{NullRandom, NullPredictors, NullControls}

// ParseNulls reads a list of null kinds (of NullKinds, comma-separated, each once) or "none".
func ParseNulls(s string) ([]string, error) {
	if strings.TrimSpace(s) == "none" {
		return nil, nil
	}
	var out []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if !slices.Contains(NullKinds, k) {
			return nil, fmt.Errorf("unknown null %q (want %s, or none)", k, strings.Join(NullKinds, ", "))
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out, nil
}

// Nulls are the same measurements on what learnt nothing, beside the model's: a verdict that
// a null also earns is not evidence.
type Nulls struct {
	// Kinds are the nulls measured (of NullKinds).
	Kinds []string `json:"kinds"`
	// Random are the suite run on random-weight copies of the model's configuration, copy i
	// drawn from RandomSeeds[i] with RandomInits[i]: as its architecture initialises (matrices
	// and embeddings N(0, σ²) with σ the configuration's initializer_range, norm gains 1,
	// biases 0), or variance-preserving; their own Nulls are nil. More than one copy makes the
	// null a distribution, not one draw.
	Random      []*Result `json:"random_weights,omitempty"`
	RandomSeeds []uint64  `json:"random_seeds,omitempty"`
	// RandomInits are each copy's σ: the architecture's initializer_range, or 0 for a
	// variance-preserving draw (matrices N(0, 1/fan-in), norm gains near 1, small biases).
	RandomInits []float64 `json:"random_init_std,omitempty"`
	// RandomWallS is the random copies' cost in seconds (writing, loading and measuring them).
	RandomWallS float64 `json:"random_wall_s,omitempty"`
	// Constant answers L1 with certainty on every prompt; Uniform gives both labels ½.
	Constant *Calibration `json:"constant,omitempty"`
	Uniform  *Calibration `json:"uniform,omitempty"`
	// Shuffled is the model's own label distributions and hidden states scored against the
	// posteriors permuted within each k (the evidence broken, the prompt's length kept), the
	// mean over Permutations permutations.
	Shuffled *Shuffled `json:"shuffled,omitempty"`
	// Remap is the model on the same prompts written with another pair of labels.
	Remap *Control `json:"lexical_remap,omitempty"`
	// Ablation is the model on the prompts with every example's label replaced by a filler
	// label: the same words and length, no evidence (a uniform posterior).
	Ablation *Control `json:"evidence_ablation,omitempty"`
	// ControlsWallS is the controls' cost in seconds.
	ControlsWallS float64 `json:"controls_wall_s,omitempty"`
}

// Calibration is a predictor's SULA calibration: the entropy error (bits), KL (bits) and
// accuracy over the prompts whose posterior is not tied.
type Calibration struct {
	EntropyError   sessions.Num `json:"entropy_error_bits"`
	KLBits         sessions.Num `json:"kl_bits"`
	AccuracyUntied sessions.Num `json:"accuracy_untied"`
}

// Shuffled is the shuffled-labels control.
type Shuffled struct {
	Permutations int `json:"permutations"`
	// EntropyError is against the permuted posteriors; ManifoldRho is |ρ(PC1, H)| of the SULA
	// hidden states with the permuted posterior entropies.
	EntropyError sessions.Num `json:"entropy_error_bits"`
	ManifoldRho  sessions.Num `json:"manifold_rho"`
}

// Control is the model on a control set of SULA prompts.
type Control struct {
	// Labels are the control's labels (the remap's pair; the ablation's filler twice).
	Labels [2]string `json:"labels"`
	Calibration
	// ManifoldRho is |ρ(PC1, posterior entropy)| of the control's own hidden states (NaN for
	// the ablation, whose posterior entropy is constant).
	ManifoldRho sessions.Num `json:"manifold_rho"`
	// PC1ByK is the mean PC1 by shot count (SULA.ByK's k): for the remap on its own PCA, for
	// the ablation on the main prompts' PCA (the same axis, so the two trajectories compare).
	PC1ByK []sessions.Num `json:"pc1_by_k"`
	// PC1SD is the standard deviation of the PC1 coordinates PC1ByK is measured on (the
	// remap's own; for the ablation, the main prompts'), the unit trajectories compare in.
	PC1SD sessions.Num `json:"pc1_sd,omitempty"`
}

// maxRandomCopies bounds the random-weight copies a record holds.
const maxRandomCopies = 16

// check bounds the nulls: the random copy is a record of the same shape without nulls of its own.
func (n *Nulls) check(m Model) error {
	if n == nil {
		return nil
	}
	if len(n.Kinds) > len(NullKinds) {
		return fmt.Errorf("nulls: %d kinds", len(n.Kinds))
	}
	if len(n.Random) > maxRandomCopies || len(n.RandomSeeds) > maxRandomCopies || len(n.RandomInits) > maxRandomCopies {
		return fmt.Errorf("nulls: %d random copies, at most %d", len(n.Random), maxRandomCopies)
	}
	for _, r := range n.Random {
		if r == nil {
			return fmt.Errorf("nulls: an empty random copy")
		}
		if r.Nulls != nil {
			return fmt.Errorf("nulls: the random copy has nulls of its own")
		}
		if r.Model.Layers != m.Layers || r.Model.Heads != m.Heads || r.Model.KVHeads != m.KVHeads {
			return fmt.Errorf("nulls: the random copy is %d layers × %d heads, the model %d × %d", r.Model.Layers, r.Model.Heads, m.Layers, m.Heads)
		}
		if err := r.check(); err != nil {
			return fmt.Errorf("nulls: random copy: %w", err)
		}
	}
	for _, c := range []*Control{n.Remap, n.Ablation} {
		if c != nil && len(c.PC1ByK) > maxList {
			return fmt.Errorf("nulls: %d shot counts", len(c.PC1ByK))
		}
	}
	return nil
}
