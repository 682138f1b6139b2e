package llm

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"windtunnel/models/hf"
)

// HFConfig returns config.json for c in its family's own keys, so that ParseConfig reads c back.
func (c Config) HFConfig() ([]byte, error) {
	m := map[string]any{
		"model_type": string(c.Family), "hidden_size": c.Hidden, "num_hidden_layers": c.Layers,
		"num_attention_heads": c.Heads, "intermediate_size": c.Intermediate, "vocab_size": c.Vocab,
		"max_position_embeddings": c.MaxPositions, "tie_word_embeddings": c.TiedEmbeddings,
	}
	act := map[string]string{GELU: "gelu", GELUTanh: "gelu_new", SiLU: "silu"}[c.Act]
	m["hidden_act"] = act
	frac := float64(c.RotaryDim) / float64(c.HeadDim)
	switch c.Family {
	case GPTNeoX:
		m["architectures"] = []string{"GPTNeoXForCausalLM"}
		m["layer_norm_eps"] = c.NormEps
		m["rotary_pct"] = frac
		m["rotary_emb_base"] = c.RopeTheta
		m["use_parallel_residual"] = c.ParallelResidual
	case Llama, Mistral:
		m["architectures"] = []string{map[Family]string{Llama: "LlamaForCausalLM", Mistral: "MistralForCausalLM"}[c.Family]}
		m["rms_norm_eps"] = c.NormEps
		m["num_key_value_heads"] = c.KVHeads
		m["head_dim"] = c.HeadDim
		m["rope_theta"] = c.RopeTheta
		if c.SlidingWindow > 0 {
			m["sliding_window"] = c.SlidingWindow
		}
		if s := c.RopeScaling; s != nil {
			m["rope_scaling"] = map[string]any{"rope_type": s.Type, "factor": s.Factor, "low_freq_factor": s.LowFreqFactor,
				"high_freq_factor": s.HighFreqFactor, "original_max_position_embeddings": s.OriginalMaxPositions}
		}
	case Phi:
		m["architectures"] = []string{"PhiForCausalLM"}
		m["layer_norm_eps"] = c.NormEps
		m["partial_rotary_factor"] = frac
		m["rope_theta"] = c.RopeTheta
		m["num_key_value_heads"] = c.KVHeads
	default:
		return nil, fmt.Errorf("llm: config for family %q", c.Family)
	}
	return json.MarshalIndent(m, "", "  ")
}

// RandomOptions choose how WriteRandom writes a model.
type RandomOptions struct {
	// DType is the weights' element type (F32, F16 or BF16).
	DType hf.DType
	// Shards > 1 splits the weights over that many files with an index.
	Shards int
	// Seed seeds the weights.
	Seed uint64
	// Tokenizer is tokenizer.json's contents (bpe.Synthesize makes one).
	Tokenizer []byte
	// Bias adds biases to the projections of families that may have them (Llama's
	// attention_bias), beside those a family always has.
	Bias bool
	// InitStd > 0 draws the weights as the architectures' own initialisation does (Hugging
	// Face's _init_weights for all four families): every matrix and embedding N(0, InitStd²)
	// (the configuration's initializer_range, HFInitStd), norm gains 1, biases 0. Zero: the
	// test draws below.
	InitStd float64
	// Edit, when set, may change each tensor after it is drawn (name as in the folder).
	Edit func(name string, dst []float32)
}

// HFInitStd is initializer_range in the configurations of the four families' released models
// (Pythia, Llama-3.2, Phi-2 and Mistral all give 0.02), the standard deviation their
// architectures initialise weights with.
const HFInitStd = 0.02

// WriteRandom writes a Hugging Face model folder of configuration c with random weights into
// dir: config.json, tokenizer.json and the safetensors weights, each tensor written as it is
// drawn (a model of Pythia-410M's shape is written without holding it in memory). Without
// opt.InitStd, matrices are N(0, 1/in) so activations keep their scale, norm gains near 1,
// biases small; with it, the architecture's own initialisation.
func WriteRandom(dir string, c Config, opt RandomOptions) error {
	if err := c.check(); err != nil {
		return err
	}
	cfg, err := c.HFConfig()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("llm: write model: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		return fmt.Errorf("llm: write model: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), opt.Tokenizer, 0o644); err != nil {
		return fmt.Errorf("llm: write model: %w", err)
	}
	specs := c.tensorSpecs(opt.Bias)
	shards := max(1, opt.Shards)
	fill := func(name string, dst []float32) {
		var h uint64 = 14695981039346656037
		for i := 0; i < len(name); i++ {
			h = (h ^ uint64(name[i])) * 1099511628211
		}
		r := rand.New(rand.NewPCG(opt.Seed, h))
		spec := specs[name]
		defer func() {
			if opt.Edit != nil {
				opt.Edit(name, dst)
			}
		}()
		if opt.InitStd > 0 {
			switch {
			case strings.HasSuffix(name, "norm.weight"):
				for i := range dst {
					dst[i] = 1
				}
			case len(spec) == 2:
				for i := range dst {
					dst[i] = float32(opt.InitStd * r.NormFloat64())
				}
			default:
				clear(dst)
			}
			return
		}
		switch {
		case strings.HasSuffix(name, "norm.weight"):
			for i := range dst {
				dst[i] = float32(1 + 0.1*r.NormFloat64())
			}
		case strings.HasSuffix(name, ".bias"):
			for i := range dst {
				dst[i] = float32(0.1 * r.NormFloat64())
			}
		case len(spec) == 2:
			std := 1 / math.Sqrt(float64(spec[1]))
			if (strings.Contains(name, "embed_in") || strings.Contains(name, "embed_tokens")) && !c.TiedEmbeddings {
				std = 1
			}
			for i := range dst {
				dst[i] = float32(std * r.NormFloat64())
			}
		}
	}
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	slices.Sort(names)
	if shards == 1 {
		return hf.WriteSafetensorsFunc(filepath.Join(dir, "model.safetensors"), namedSpecs(names, specs), opt.DType, fill)
	}
	wm := map[string]string{}
	for s := range shards {
		file := fmt.Sprintf("model-%05d-of-%05d.safetensors", s+1, shards)
		var part []string
		for i, n := range names {
			if i%shards == s {
				part = append(part, n)
				wm[n] = file
			}
		}
		if err := hf.WriteSafetensorsFunc(filepath.Join(dir, file), namedSpecs(part, specs), opt.DType, fill); err != nil {
			return err
		}
	}
	return hf.WriteIndex(filepath.Join(dir, "model.safetensors.index.json"), wm)
}

func namedSpecs(names []string, specs map[string][]int) []hf.Named {
	out := make([]hf.Named, len(names))
	for i, n := range names {
		out[i] = hf.Named{Name: n, Shape: specs[n]}
	}
	return out
}

// tensorSpecs returns every tensor name of c's family with its shape.
func (c Config) tensorSpecs(bias bool) map[string][]int {
	q, kv := c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	s := map[string][]int{}
	mat := func(name string, out, in int, withBias bool) {
		s[name+".weight"] = []int{out, in}
		if withBias {
			s[name+".bias"] = []int{out}
		}
	}
	ln := func(name string, withBias bool) {
		s[name+".weight"] = []int{c.Hidden}
		if withBias {
			s[name+".bias"] = []int{c.Hidden}
		}
	}
	switch c.Family {
	case GPTNeoX:
		s["gpt_neox.embed_in.weight"] = []int{c.Vocab, c.Hidden}
		ln("gpt_neox.final_layer_norm", true)
		if !c.TiedEmbeddings {
			s["embed_out.weight"] = []int{c.Vocab, c.Hidden}
		}
		for i := range c.Layers {
			p := fmt.Sprintf("gpt_neox.layers.%d.", i)
			ln(p+"input_layernorm", true)
			ln(p+"post_attention_layernorm", true)
			mat(p+"attention.query_key_value", 3*q, c.Hidden, true)
			mat(p+"attention.dense", c.Hidden, q, true)
			mat(p+"mlp.dense_h_to_4h", c.Intermediate, c.Hidden, true)
			mat(p+"mlp.dense_4h_to_h", c.Hidden, c.Intermediate, true)
		}
	case Llama, Mistral, Phi:
		s["model.embed_tokens.weight"] = []int{c.Vocab, c.Hidden}
		phi := c.Family == Phi
		if phi {
			ln("model.final_layernorm", true)
		} else {
			ln("model.norm", false)
		}
		if !c.TiedEmbeddings {
			mat("lm_head", c.Vocab, c.Hidden, phi)
		}
		for i := range c.Layers {
			p := fmt.Sprintf("model.layers.%d.", i)
			ln(p+"input_layernorm", phi)
			mat(p+"self_attn.q_proj", q, c.Hidden, phi || bias)
			mat(p+"self_attn.k_proj", kv, c.Hidden, phi || bias)
			mat(p+"self_attn.v_proj", kv, c.Hidden, phi || bias)
			if phi {
				mat(p+"self_attn.dense", c.Hidden, q, true)
				mat(p+"mlp.fc1", c.Intermediate, c.Hidden, true)
				mat(p+"mlp.fc2", c.Hidden, c.Intermediate, true)
				continue
			}
			ln(p+"post_attention_layernorm", false)
			mat(p+"self_attn.o_proj", c.Hidden, q, false)
			mat(p+"mlp.gate_proj", c.Intermediate, c.Hidden, false)
			mat(p+"mlp.up_proj", c.Intermediate, c.Hidden, false)
			mat(p+"mlp.down_proj", c.Hidden, c.Intermediate, false)
		}
	}
	return s
}
