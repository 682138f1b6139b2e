package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"windtunnel/backends/untrusted"
)

// Family is a supported architecture, as config.json's model_type names it.
type Family string

// The supported families.
const (
	GPTNeoX Family = "gpt_neox" // Pythia
	Llama   Family = "llama"    // Llama-3.2
	Mistral Family = "mistral"  // Mistral: Llama with a sliding window
	Phi     Family = "phi"      // Phi-2
)

// Families lists the supported families.
func Families() []Family { return []Family{GPTNeoX, Llama, Mistral, Phi} }

// Activation functions of the MLP.
const (
	GELU     = "gelu"      // exact: x·Φ(x), with erf
	GELUTanh = "gelu_tanh" // the tanh approximation (gelu_new, gelu_pytorch_tanh, gelu_fast)
	SiLU     = "silu"      // x·σ(x), gated (SwiGLU) in Llama and Mistral
)

// Config is the architecture read from config.json, in the terms the forward pass uses.
type Config struct {
	Family Family `json:"family"`
	// Layers, Hidden, Heads, KVHeads (grouped-query attention: each key/value head serves
	// Heads/KVHeads consecutive query heads), HeadDim, Intermediate (the MLP's width) and
	// Vocab are the sizes.
	Layers       int `json:"layers"`
	Hidden       int `json:"hidden"`
	Heads        int `json:"heads"`
	KVHeads      int `json:"kv_heads"`
	HeadDim      int `json:"head_dim"`
	Intermediate int `json:"intermediate"`
	Vocab        int `json:"vocab"`
	// RotaryDim is how many leading dimensions of each head the rotary embedding turns
	// (rotary_pct or partial_rotary_factor × HeadDim), RopeTheta its base and RopeScaling
	// its rescaling (nil: none).
	RotaryDim   int          `json:"rotary_dim"`
	RopeTheta   float64      `json:"rope_theta"`
	RopeScaling *RopeScaling `json:"rope_scaling,omitempty"`
	// NormEps is the norms' epsilon; RMSNorm selects RMSNorm (no bias) over LayerNorm.
	NormEps float64 `json:"norm_eps"`
	RMSNorm bool    `json:"rms_norm"`
	// ParallelResidual adds attention and MLP of the same input: x + attn(ln1(x)) +
	// mlp(ln2(x)); SharedNorm feeds both from ln1 (Phi-2).
	ParallelResidual bool `json:"parallel_residual"`
	SharedNorm       bool `json:"shared_norm"`
	// Gated selects the SwiGLU MLP down(act(gate(x)) ⊙ up(x)); Act is the activation.
	Gated bool   `json:"gated"`
	Act   string `json:"act"`
	// TiedEmbeddings reads the output head from the input embedding.
	TiedEmbeddings bool `json:"tied_embeddings"`
	// SlidingWindow limits attention to the last SlidingWindow keys (0: unlimited).
	SlidingWindow int `json:"sliding_window,omitempty"`
	// MaxPositions is the longest sequence the model was built for.
	MaxPositions int `json:"max_positions"`
}

// RopeScaling rescales the rotary frequencies for long contexts.
type RopeScaling struct {
	// Type is "llama3" (frequencies divided by Factor below the low-frequency cut-off,
	// unchanged above the high-frequency one, interpolated between) or "linear" (all
	// divided by Factor).
	Type                 string  `json:"type"`
	Factor               float64 `json:"factor"`
	LowFreqFactor        float64 `json:"low_freq_factor,omitempty"`
	HighFreqFactor       float64 `json:"high_freq_factor,omitempty"`
	OriginalMaxPositions float64 `json:"original_max_position_embeddings,omitempty"`
}

// Bounds on config.json's sizes (far above any model the bench is for).
const (
	maxLayers = 1024
	maxHidden = 1 << 16
	maxHeads  = 1024
	maxVocab  = 1 << 22
	maxInter  = 1 << 20
)

// rawConfig is what config.json may hold, for every family.
type rawConfig struct {
	ModelType     string   `json:"model_type"`
	Architectures []string `json:"architectures"`

	HiddenSize        int      `json:"hidden_size"`
	NumHiddenLayers   int      `json:"num_hidden_layers"`
	NumAttentionHeads int      `json:"num_attention_heads"`
	NumKeyValueHeads  *int     `json:"num_key_value_heads"`
	HeadDim           *int     `json:"head_dim"`
	IntermediateSize  int      `json:"intermediate_size"`
	VocabSize         int      `json:"vocab_size"`
	MaxPositions      *int     `json:"max_position_embeddings"`
	HiddenAct         string   `json:"hidden_act"`
	TieWordEmbeddings *bool    `json:"tie_word_embeddings"`
	RopeTheta         *float64 `json:"rope_theta"`
	RopeScaling       *struct {
		Type           string  `json:"type"`
		RopeType       string  `json:"rope_type"`
		Factor         float64 `json:"factor"`
		LowFreqFactor  float64 `json:"low_freq_factor"`
		HighFreqFactor float64 `json:"high_freq_factor"`
		OriginalMax    float64 `json:"original_max_position_embeddings"`
	} `json:"rope_scaling"`
	RMSNormEps    float64 `json:"rms_norm_eps"`
	LayerNormEps  float64 `json:"layer_norm_eps"`
	SlidingWindow *int    `json:"sliding_window"`

	// GPT-NeoX.
	RotaryPct           *float64 `json:"rotary_pct"`
	RotaryEmbBase       *float64 `json:"rotary_emb_base"`
	UseParallelResidual *bool    `json:"use_parallel_residual"`
	// Phi.
	PartialRotaryFactor *float64 `json:"partial_rotary_factor"`
	QKLayerNorm         bool     `json:"qk_layernorm"`
}

// ParseConfig decodes config.json into a Config, checking every size. An unknown
// model_type, an unsupported option (rope scaling of another type, Phi's qk_layernorm, an
// activation not listed) or an inconsistent size is an error.
func ParseConfig(raw []byte) (Config, error) {
	var r rawConfig
	if err := untrusted.Unmarshal(raw, &r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Config{}, fmt.Errorf("llm: config.json: key %q: a JSON %s, want %s", te.Field, te.Value, jsonKind(te.Type))
		}
		return Config{}, fmt.Errorf("llm: config.json: %w", err)
	}
	// Optional sizes that are present must be sizes (a negative one was once ignored, or
	// replaced by a default).
	for _, o := range []struct {
		key string
		v   *int
	}{
		{"num_key_value_heads", r.NumKeyValueHeads}, {"head_dim", r.HeadDim}, {"max_position_embeddings", r.MaxPositions},
		{"sliding_window", r.SlidingWindow},
	} {
		if o.v != nil && *o.v < 0 {
			return Config{}, fmt.Errorf("llm: config.json: key %q is %d, want a size ≥ 0 (0 or absent: the default)", o.key, *o.v)
		}
	}
	fam := Family(r.ModelType)
	if !slices.Contains(Families(), fam) {
		names := make([]string, 0, 4)
		for _, f := range Families() {
			names = append(names, string(f))
		}
		return Config{}, fmt.Errorf("llm: config.json: model_type %q (architectures %v) is not supported; supported: %s",
			r.ModelType, r.Architectures, strings.Join(names, ", "))
	}
	c := Config{
		Family: fam, Layers: r.NumHiddenLayers, Hidden: r.HiddenSize, Heads: r.NumAttentionHeads,
		Intermediate: r.IntermediateSize, Vocab: r.VocabSize,
	}
	if r.MaxPositions != nil {
		c.MaxPositions = *r.MaxPositions
	}
	c.KVHeads = c.Heads
	if r.NumKeyValueHeads != nil && *r.NumKeyValueHeads > 0 {
		c.KVHeads = *r.NumKeyValueHeads
	}
	if c.Heads > 0 {
		c.HeadDim = c.Hidden / c.Heads
	}
	if r.HeadDim != nil && *r.HeadDim > 0 {
		c.HeadDim = *r.HeadDim
	}
	c.RopeTheta = 10000
	if r.RopeTheta != nil {
		c.RopeTheta = *r.RopeTheta
	}
	rotary := 1.0
	act := r.HiddenAct
	switch fam {
	case GPTNeoX:
		c.NormEps = r.LayerNormEps
		if r.RotaryPct != nil {
			rotary = *r.RotaryPct
		}
		if r.RotaryEmbBase != nil {
			c.RopeTheta = *r.RotaryEmbBase
		}
		c.ParallelResidual = r.UseParallelResidual == nil || *r.UseParallelResidual
		c.TiedEmbeddings = r.TieWordEmbeddings != nil && *r.TieWordEmbeddings
		if act == "" {
			act = "gelu"
		}
	case Llama, Mistral:
		c.NormEps = r.RMSNormEps
		c.RMSNorm = true
		c.Gated = true
		c.TiedEmbeddings = r.TieWordEmbeddings != nil && *r.TieWordEmbeddings
		if act == "" {
			act = "silu"
		}
		if fam == Mistral && r.SlidingWindow != nil {
			c.SlidingWindow = *r.SlidingWindow
		}
	case Phi:
		if r.QKLayerNorm {
			return Config{}, fmt.Errorf("llm: config.json: phi with qk_layernorm is not supported")
		}
		c.NormEps = r.LayerNormEps
		c.ParallelResidual = true
		c.SharedNorm = true
		c.TiedEmbeddings = r.TieWordEmbeddings != nil && *r.TieWordEmbeddings
		if r.PartialRotaryFactor != nil {
			rotary = *r.PartialRotaryFactor
		}
		if act == "" {
			act = "gelu_new"
		}
	}
	switch act {
	case "gelu":
		c.Act = GELU
	case "gelu_new", "gelu_pytorch_tanh", "gelu_fast":
		c.Act = GELUTanh
	case "silu", "swish":
		c.Act = SiLU
	default:
		return Config{}, fmt.Errorf("llm: config.json: hidden_act %q is not supported (gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, silu)", act)
	}
	if !(rotary > 0 && rotary <= 1) {
		return Config{}, fmt.Errorf("llm: config.json: rotary fraction %g outside (0, 1]", rotary)
	}
	c.RotaryDim = int(float64(c.HeadDim) * rotary)
	c.RotaryDim -= c.RotaryDim % 2
	if r.RopeScaling != nil {
		t := r.RopeScaling.RopeType
		if t == "" {
			t = r.RopeScaling.Type
		}
		s := &RopeScaling{Type: t, Factor: r.RopeScaling.Factor, LowFreqFactor: r.RopeScaling.LowFreqFactor,
			HighFreqFactor: r.RopeScaling.HighFreqFactor, OriginalMaxPositions: r.RopeScaling.OriginalMax}
		switch t {
		case "default", "":
			s = nil
		case "linear":
			if !(s.Factor > 0) {
				return Config{}, fmt.Errorf("llm: config.json: linear rope_scaling factor %g, want > 0", s.Factor)
			}
		case "llama3":
			if !(s.Factor > 0) || !(s.LowFreqFactor > 0) || !(s.HighFreqFactor > s.LowFreqFactor) || !(s.OriginalMaxPositions > 0) {
				return Config{}, fmt.Errorf("llm: config.json: llama3 rope_scaling %+v: want factor > 0, 0 < low_freq_factor < high_freq_factor, original_max_position_embeddings > 0", *s)
			}
		default:
			return Config{}, fmt.Errorf("llm: config.json: rope_scaling type %q is not supported (llama3, linear)", t)
		}
		c.RopeScaling = s
	}
	if c.MaxPositions <= 0 {
		c.MaxPositions = 2048
	}
	return c, c.check()
}

// jsonKind says what a Go type holds, as a JSON value, for a message.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return jsonKind(t.Elem())
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Float64, reflect.Float32:
		return "a number"
	}
	return t.String()
}

// check bounds every size.
func (c Config) check() error {
	for _, b := range []struct {
		name   string
		v, max int
	}{
		{"num_hidden_layers", c.Layers, maxLayers}, {"hidden_size", c.Hidden, maxHidden},
		{"num_attention_heads", c.Heads, maxHeads}, {"num_key_value_heads", c.KVHeads, maxHeads},
		{"head_dim", c.HeadDim, maxHidden}, {"intermediate_size", c.Intermediate, maxInter},
		{"vocab_size", c.Vocab, maxVocab},
	} {
		if b.v <= 0 || b.v > b.max {
			return fmt.Errorf("llm: config.json: %s %d outside [1, %d]", b.name, b.v, b.max)
		}
	}
	if c.Heads%c.KVHeads != 0 {
		return fmt.Errorf("llm: config.json: %d attention heads not a multiple of %d key/value heads", c.Heads, c.KVHeads)
	}
	if c.Heads*c.HeadDim > 4*maxHidden {
		return fmt.Errorf("llm: config.json: %d heads of %d dimensions, too wide", c.Heads, c.HeadDim)
	}
	if !(c.NormEps > 0 && c.NormEps < 1) {
		return fmt.Errorf("llm: config.json: norm epsilon %g outside (0, 1)", c.NormEps)
	}
	if !(c.RopeTheta > 1) || math.IsInf(c.RopeTheta, 0) {
		return fmt.Errorf("llm: config.json: rotary base %g, want a finite value > 1", c.RopeTheta)
	}
	if c.SlidingWindow < 0 {
		return fmt.Errorf("llm: config.json: sliding_window %d < 0", c.SlidingWindow)
	}
	return nil
}

// invFreq returns the rotary inverse frequencies, RotaryDim/2 of them, rescaled as
// RopeScaling says.
func (c Config) invFreq() []float64 {
	n := c.RotaryDim / 2
	f := make([]float64, n)
	for j := range f {
		f[j] = math.Pow(c.RopeTheta, -float64(2*j)/float64(c.RotaryDim))
	}
	s := c.RopeScaling
	if s == nil {
		return f
	}
	if s.Type == "linear" {
		for j := range f {
			f[j] /= s.Factor
		}
		return f
	}
	lowWave := s.OriginalMaxPositions / s.LowFreqFactor
	highWave := s.OriginalMaxPositions / s.HighFreqFactor
	for j, v := range f {
		wave := 2 * math.Pi / v
		switch {
		case wave < highWave:
		case wave > lowWave:
			f[j] = v / s.Factor
		default:
			smooth := (s.OriginalMaxPositions/wave - s.LowFreqFactor) / (s.HighFreqFactor - s.LowFreqFactor)
			f[j] = (1-smooth)*v/s.Factor + smooth*v
		}
	}
	return f
}
