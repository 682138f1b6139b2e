package sessions

import (
	"encoding/json"
	"time"
)

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
// the evaluation cadence, the held-out metrics and a snapshot of the network's geometry.
type Record struct {
	Step      int     `json:"step"`
	WallS     float64 `json:"wall_s"`
	Loss      float64 `json:"loss"`
	LR        float64 `json:"lr"`
	GradNorm  float64 `json:"grad_norm"`
	StepsPerS float64 `json:"steps_per_s"`
	State     State   `json:"state"`
	Message   string  `json:"message,omitempty"`
	// GPUShare is the fraction of step time spent on the GPU (0 on CPU).
	GPUShare float64   `json:"gpu_share,omitempty"`
	Eval     *Eval     `json:"eval,omitempty"`
	Snapshot *Snapshot `json:"snapshot,omitempty"`
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
	// Ablated lists the heads that were zeroed for this evaluation (empty: the whole model).
	Ablated []Head `json:"ablated,omitempty"`
}

// Head names one attention head.
type Head struct {
	Layer int `json:"layer"`
	Head  int `json:"head"`
}

// Snapshot is the network's geometry on the probe set at one step (DESIGN.md §4); fields a
// model has no meaning for are nil.
type Snapshot struct {
	// AttentionEntropy is the mean entropy (bits) of attention rows at scored positions, [layer][head].
	AttentionEntropy [][]float64 `json:"attention_entropy,omitempty"`
}

// EventKind names an operator action.
type EventKind string

// The operator actions a session records and a live run obeys.
const (
	EventPause   EventKind = "pause"
	EventResume  EventKind = "resume"
	EventStop    EventKind = "stop"
	EventHead    EventKind = "head"    // Layer, Head, On: switch one head on or off
	EventRestore EventKind = "restore" // switch every head back on
)

// Event is an operator action and the step at which it took effect.
type Event struct {
	Step  int       `json:"step"`
	WallS float64   `json:"wall_s"`
	Kind  EventKind `json:"kind"`
	Layer int       `json:"layer,omitempty"`
	Head  int       `json:"head,omitempty"`
	On    bool      `json:"on,omitempty"`
}

// Meta describes a run: what it trains and where.
type Meta struct {
	Task   string `json:"task"`
	Model  string `json:"model"`
	Params int    `json:"params"`
	// Layers and Heads size the ablation grid (Heads is 0 for models without attention).
	Layers int `json:"layers"`
	Heads  int `json:"heads"`
	// Steps is the planned number of training steps.
	Steps int `json:"steps"`
	// Device is "cpu" or "cuda"; DeviceName and Driver describe it.
	Device     string    `json:"device"`
	DeviceName string    `json:"device_name,omitempty"`
	Driver     string    `json:"driver,omitempty"`
	BLAS       string    `json:"blas,omitempty"`
	Version    string    `json:"version"`
	Host       string    `json:"host"`
	Created    time.Time `json:"created"`
	// Config is the lab configuration as JSON.
	Config json.RawMessage `json:"config"`
	// Path is the session file ("" when not recorded).
	Path string `json:"path,omitempty"`
}
