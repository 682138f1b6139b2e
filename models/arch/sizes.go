package arch

import "fmt"

// TransformerConfig sizes the transformer of README: Presets.
type TransformerConfig struct {
	Layers int `json:"layers"` // pre-norm blocks, ≥ 1
	Heads  int `json:"heads"`  // attention heads per block, dividing Width
	Width  int `json:"width"`  // model width d
	MLP    int `json:"mlp"`    // MLP hidden width; 0 means 4·Width
}

// Validate reports the first out-of-range field as a *FieldError ("Transformer.Heads").
func (c TransformerConfig) Validate() error {
	switch {
	case c.Layers < 1 || c.Layers > 64:
		return fieldErr("Transformer.Layers", c.Layers, "want 1..64")
	case c.Width < 1 || c.Width > 4096:
		return fieldErr("Transformer.Width", c.Width, "want 1..4096")
	case c.Heads < 1 || c.Heads > c.Width || c.Width%c.Heads != 0:
		return fieldErr("Transformer.Heads", c.Heads, fmt.Sprintf("want a divisor of Transformer.Width (%d)", c.Width))
	case c.MLP < 0 || c.MLP > 65536:
		return fieldErr("Transformer.MLP", c.MLP, "want 0..65536 (0: 4·Width)")
	}
	return nil
}

// MLPConfig sizes the per-position MLP, Paper I's capacity-matched MLP baseline (the
// authors' code): Blocks residual blocks of width Width with a GELU hidden layer of Hidden.
type MLPConfig struct {
	Blocks int `json:"blocks"` // residual blocks, 0..64
	Width  int `json:"width"`  // residual stream width d (the transformer's when matched)
	Hidden int `json:"hidden"` // hidden width of each block; 0 means 4·Width
}

// Validate reports the first out-of-range field as a *FieldError ("MLP.Width").
func (c MLPConfig) Validate() error {
	switch {
	case c.Blocks < 0 || c.Blocks > 64:
		return fieldErr("MLP.Blocks", c.Blocks, "want 0..64")
	case c.Width < 1 || c.Width > 4096:
		return fieldErr("MLP.Width", c.Width, "want 1..4096")
	case c.Hidden < 0 || c.Hidden > 65536:
		return fieldErr("MLP.Hidden", c.Hidden, "want 0..65536 (0: 4·Width)")
	}
	return nil
}

// PrefixMLPConfig sizes the prefix MLP (kind "mlp-prefix", an ablation, not Paper I's
// baseline): a linear map of the flattened one-hot prefix to Width, Blocks residual blocks
// (LayerNorm → Width→Hidden GELU → Hidden→Width), a final LayerNorm and a linear output head.
type PrefixMLPConfig struct {
	Blocks int `json:"blocks"`
	Width  int `json:"width"`
	Hidden int `json:"hidden"` // 0 means 2·Width
	// Input is "prefix" (the default: the one-hot prefix up to the scored position) or
	// "token" (only the scored token and its position: no access to the context).
	Input string `json:"input"`
}

// Validate reports the first out-of-range field as a *FieldError ("PrefixMLP.Width").
func (c PrefixMLPConfig) Validate() error {
	switch {
	case c.Blocks < 0 || c.Blocks > 64:
		return fieldErr("PrefixMLP.Blocks", c.Blocks, "want 0..64")
	case c.Width < 1 || c.Width > 65536:
		return fieldErr("PrefixMLP.Width", c.Width, "want 1..65536")
	case c.Hidden < 0 || c.Hidden > 262144:
		return fieldErr("PrefixMLP.Hidden", c.Hidden, "want 0..262144 (0: 2·Width)")
	case c.Input != "" && c.Input != "prefix" && c.Input != "token":
		return fieldErr("PrefixMLP.Input", c.Input, "want prefix or token")
	}
	return nil
}

// LSTMConfig sizes the LSTM baseline of docs/paper1.md: LSTM and Mamba baselines.
type LSTMConfig struct {
	Layers int `json:"layers"` // residual LSTM layers, ≥ 1
	Width  int `json:"width"`  // residual stream width d, also the LSTM hidden size
}

// Validate reports the first out-of-range field as a *FieldError ("LSTM.Width").
func (c LSTMConfig) Validate() error {
	switch {
	case c.Layers < 1 || c.Layers > 64:
		return fieldErr("LSTM.Layers", c.Layers, "want 1..64")
	case c.Width < 1 || c.Width > 4096:
		return fieldErr("LSTM.Width", c.Width, "want 1..4096")
	}
	return nil
}

// MambaConfig sizes the Mamba (selective state-space) baseline of docs/paper1.md: LSTM and Mamba baselines.
type MambaConfig struct {
	Layers int `json:"layers"` // residual Mamba blocks, ≥ 1
	Width  int `json:"width"`  // residual stream width d
	State  int `json:"state"`  // SSM state size N per channel; 0 means 16
	Expand int `json:"expand"` // inner width E = Expand·d; 0 means 2
	Conv   int `json:"conv"`   // causal depthwise convolution width; 0 means 4
}

// Validate reports the first out-of-range field as a *FieldError ("Mamba.State").
func (c MambaConfig) Validate() error {
	switch {
	case c.Layers < 1 || c.Layers > 64:
		return fieldErr("Mamba.Layers", c.Layers, "want 1..64")
	case c.Width < 1 || c.Width > 4096:
		return fieldErr("Mamba.Width", c.Width, "want 1..4096")
	case c.State < 0 || c.State > 256:
		return fieldErr("Mamba.State", c.State, "want 0..256 (0: 16)")
	case c.Expand < 0 || c.Expand > 16:
		return fieldErr("Mamba.Expand", c.Expand, "want 0..16 (0: 2)")
	case c.Conv < 0 || c.Conv > 64:
		return fieldErr("Mamba.Conv", c.Conv, "want 0..64 (0: 4)")
	}
	return nil
}

// WithDefaults fills in the sizes that 0 stands for: State 16, Expand 2, Conv 4.
func (c MambaConfig) WithDefaults() MambaConfig {
	if c.State == 0 {
		c.State = 16
	}
	if c.Expand == 0 {
		c.Expand = 2
	}
	if c.Conv == 0 {
		c.Conv = 4
	}
	return c
}

// DTRank is the rank of the Δ projection, ⌈d/16⌉ as in Mamba.
func (c MambaConfig) DTRank() int { return (c.Width + 15) / 16 }
