package lab

import (
	"cmp"
	"encoding/json"
	"fmt"
	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"

	"windtunnel/backends/untrusted"
	"windtunnel/models"
	"windtunnel/tunnels"
)

// Effective is a configuration as the run uses it, for display (info, run's summary): the
// task's own tunnel sizes with their defaults applied, the target the task trains on when
// none was given, only the model's own block with its sizes resolved (a capacity-matched
// baseline's as matched, beside the transformer it was matched to), and the device and
// precision that "" stands for; the learning-rate multipliers of attention's projections
// only for the transformer. The JSON names are Config's, so it reads back as a Config of
// the same model and schedule; sessions keep storing Config itself.
type Effective struct {
	Task string `json:"task"`
	// Tunnel holds the task's sizes only: bijection V; hmm States, Symbols, K; recall
	// Pairs, Keys, Values, Fillers, Queries and Layout.
	Tunnel      any                     `json:"tunnel"`
	Model       string                  `json:"model"`
	Transformer *arch.TransformerConfig `json:"transformer,omitempty"`
	LSTM        *arch.LSTMConfig        `json:"lstm,omitempty"`
	Mamba       *arch.MambaConfig       `json:"mamba,omitempty"`
	MLP         *arch.MLPConfig         `json:"mlp,omitempty"`
	PrefixMLP   *arch.PrefixMLPConfig   `json:"mlp_prefix,omitempty"`
	// MatchedTo is the transformer a baseline's parameter count was matched to (nil for the
	// transformer and for a baseline whose sizes were given).
	MatchedTo       *arch.TransformerConfig `json:"matched_to_transformer,omitempty"`
	Steps           int                     `json:"steps"`
	Batch           int                     `json:"batch"`
	LR              float64                 `json:"lr"`
	Warmup          int                     `json:"warmup"`
	WeightDecay     float64                 `json:"weight_decay"`
	Clip            float64                 `json:"clip"`
	Optimizer       string                  `json:"optimizer"`
	ValueLR         float64                 `json:"value_lr,omitempty"` // transformer only
	QKLR            float64                 `json:"qk_lr,omitempty"`    // transformer only
	EvalEvery       int                     `json:"eval_every"`
	CheckpointEvery int                     `json:"checkpoint_every"`
	ProbeSize       int                     `json:"probe_size"`
	EvalK           []int                   `json:"eval_k,omitempty"`
	ProbeEvery      int                     `json:"probe_every"`
	GeometryN       int                     `json:"geometry_n,omitempty"`
	JLensN          int                     `json:"jlens_n,omitempty"`
	Init            string                  `json:"init"`
	GELU            string                  `json:"gelu,omitempty"` // the models with a GELU (arch.HasGELU)
	Seed            uint64                  `json:"seed"`
	Target          string                  `json:"target"`
	Device          string                  `json:"device"`
	BLAS            string                  `json:"blas"`
	Workers         int                     `json:"workers"`
	Precision       string                  `json:"precision"`
}

// The tunnel sizes of each task, as Effective shows them (tunnels.Config's JSON names).
type (
	bijectionSizes struct {
		V int `json:"v"`
	}
	hmmSizes struct {
		States  int `json:"states"`
		Symbols int `json:"symbols"`
		K       int `json:"k"`
	}
	recallSizes struct {
		Pairs   int    `json:"pairs"`
		Keys    int    `json:"keys"`
		Values  int    `json:"values"`
		Fillers int    `json:"fillers"`
		Queries int    `json:"queries"`
		Layout  string `json:"layout"`
	}
)

// EffectiveOf resolves c for display; it fails only when the task or its sizes are invalid.
func EffectiveOf(c runconfig.Config) (Effective, error) {
	tc := c.Tunnel.WithDefaults()
	tn, err := tunnels.New(c.Task, c.Tunnel)
	if err != nil {
		return Effective{}, fmt.Errorf("lab: %w", err)
	}
	e := Effective{Task: c.Task, Model: c.Model, Steps: c.Steps, Batch: c.Batch, LR: c.LR, Warmup: c.Warmup,
		WeightDecay: c.WeightDecay, Clip: c.Clip, Optimizer: c.Optimizer, ValueLR: c.ValueLR, QKLR: c.QKLR, EvalEvery: c.EvalEvery,
		CheckpointEvery: c.CheckpointEvery, ProbeSize: c.ProbeSize, EvalK: c.EvalK, ProbeEvery: c.ProbeEvery,
		GeometryN: c.GeometryN, JLensN: c.JLensN, Init: c.Init, Seed: c.Seed, Target: c.Target, Device: c.Device, BLAS: c.BLAS,
		Workers: c.Workers, Precision: c.Precision}
	switch c.Task {
	case "hmm":
		e.Tunnel = hmmSizes{tc.States, tc.Symbols, tc.K}
	case "recall":
		layout := tc.Layout
		if layout == "" {
			layout = tunnels.RecallLayoutStore
		}
		e.Tunnel = recallSizes{tc.Pairs, tc.Keys, tc.Values, tc.Fillers, tc.Queries, layout}
	default:
		e.Tunnel = bijectionSizes{tc.V}
	}
	if e.Target == "" {
		e.Target = tn.DefaultTarget().String()
	}
	if e.Device == "" {
		e.Device = "cpu"
	}
	if e.Optimizer == "" {
		e.Optimizer = runconfig.OptimizerAdamW
	}
	if e.Init == "" {
		e.Init = arch.InitNormal
	}
	if arch.HasGELU(c.Model) {
		e.GELU = cmp.Or(c.GELU, arch.GELUTanh)
	}
	if e.Precision == "" {
		e.Precision = "float32"
	}
	long, err := longestTunnel(c, tn)
	if err != nil {
		return Effective{}, fmt.Errorf("lab: %w", err)
	}
	s := models.EffectiveSpec(c.Spec(), long)
	matched := func() *arch.TransformerConfig {
		t := s.Transformer
		return &t
	}
	switch c.Model {
	case arch.KindLSTM:
		e.LSTM = &s.LSTM
		if c.LSTM.Width == 0 {
			e.MatchedTo = matched()
		}
	case arch.KindMamba:
		e.Mamba = &s.Mamba
		if c.Mamba.Width == 0 {
			e.MatchedTo = matched()
		}
	case arch.KindMLP:
		e.MLP = &s.MLP
		if c.MLP.Width == 0 {
			e.MatchedTo = matched()
		}
	case arch.KindPrefixMLP:
		e.PrefixMLP = &s.PrefixMLP
		if c.PrefixMLP.Width == 0 {
			e.MatchedTo = matched()
		}
	default:
		e.Transformer = &s.Transformer
	}
	if e.Transformer == nil { // only attention has value and query/key projections
		e.ValueLR, e.QKLR = 0, 0
	}
	return e, nil
}

// EffectiveJSON is a session's stored configuration resolved for display (EffectiveOf), as
// JSON, or stored as it is when it is not a valid configuration of this version.
func EffectiveJSON(stored json.RawMessage) json.RawMessage {
	var cfg runconfig.Config
	if untrusted.Unmarshal(stored, &cfg) != nil || cfg.Validate() != nil {
		return stored
	}
	e, err := EffectiveOf(cfg)
	if err != nil {
		return stored
	}
	b, err := json.Marshal(e)
	if err != nil {
		return stored
	}
	return b
}
