package llm

import (
	"fmt"
	"slices"

	"windtunnel/models/hf"
)

// layer is one block's weights: matrices stay in the mapped file (converted per use), norm
// gains and biases are held as float32.
type layer struct {
	ln1W, ln1B, ln2W, ln2B []float32
	// qkv is GPT-NeoX's fused projection, its rows laid out per head (q, k, v of head 0,
	// then of head 1, …); otherwise q, k and v are separate.
	qkv, q, k, v     *hf.Tensor
	qkvB, qB, kB, vB []float32
	o                *hf.Tensor
	oB               []float32
	// up (GPT-NeoX dense_h_to_4h, Phi fc1), gate (SwiGLU only) and down.
	up, gate, down *hf.Tensor
	upB, downB     []float32
}

// binder looks tensors up by name, checking their shapes and dtypes.
type binder struct {
	f   *hf.Folder
	err error
}

// matrix returns the tensor name of shape rows × cols (an error if missing or of another shape).
func (b *binder) matrix(name string, rows, cols int) *hf.Tensor {
	if b.err != nil {
		return nil
	}
	t := b.f.Tensor(name)
	if t == nil {
		b.err = fmt.Errorf("llm: %s: no tensor %s", b.f.Dir, name)
		return nil
	}
	if !slices.Equal(t.Shape, []int{rows, cols}) {
		b.err = fmt.Errorf("llm: %s: tensor %s has shape %v, want [%d %d] (from config.json)", t.File, name, t.Shape, rows, cols)
		return nil
	}
	if !t.DType.Float() {
		b.err = fmt.Errorf("llm: %s: tensor %s has dtype %s, want F32, F16 or BF16", t.File, name, t.DType)
		return nil
	}
	return t
}

// vector returns the n-vector name as float32, or nil when it is missing and optional.
func (b *binder) vector(name string, n int, optional bool) []float32 {
	if b.err != nil {
		return nil
	}
	t := b.f.Tensor(name)
	if t == nil {
		if !optional {
			b.err = fmt.Errorf("llm: %s: no tensor %s", b.f.Dir, name)
		}
		return nil
	}
	if !slices.Equal(t.Shape, []int{n}) {
		b.err = fmt.Errorf("llm: %s: tensor %s has shape %v, want [%d] (from config.json)", t.File, name, t.Shape, n)
		return nil
	}
	out, err := t.Rows(0, 1, make([]float32, n))
	if err != nil {
		b.err = err
	}
	return out
}

// bind reads the tensors of every layer, the embeddings, the final norm and the output head.
func (m *Model) bind(f *hf.Folder) error {
	c := m.Config
	b := &binder{f: f}
	q, kv := c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	m.layers = make([]layer, c.Layers)
	switch c.Family {
	case GPTNeoX:
		m.embed = b.matrix("gpt_neox.embed_in.weight", c.Vocab, c.Hidden)
		m.normW = b.vector("gpt_neox.final_layer_norm.weight", c.Hidden, false)
		m.normB = b.vector("gpt_neox.final_layer_norm.bias", c.Hidden, true)
		if c.TiedEmbeddings {
			m.head = m.embed
		} else {
			m.head = b.matrix("embed_out.weight", c.Vocab, c.Hidden)
		}
		for i := range m.layers {
			p := fmt.Sprintf("gpt_neox.layers.%d.", i)
			L := &m.layers[i]
			L.ln1W = b.vector(p+"input_layernorm.weight", c.Hidden, false)
			L.ln1B = b.vector(p+"input_layernorm.bias", c.Hidden, true)
			L.ln2W = b.vector(p+"post_attention_layernorm.weight", c.Hidden, false)
			L.ln2B = b.vector(p+"post_attention_layernorm.bias", c.Hidden, true)
			L.qkv = b.matrix(p+"attention.query_key_value.weight", 3*q, c.Hidden)
			L.qkvB = b.vector(p+"attention.query_key_value.bias", 3*q, true)
			L.o = b.matrix(p+"attention.dense.weight", c.Hidden, q)
			L.oB = b.vector(p+"attention.dense.bias", c.Hidden, true)
			L.up = b.matrix(p+"mlp.dense_h_to_4h.weight", c.Intermediate, c.Hidden)
			L.upB = b.vector(p+"mlp.dense_h_to_4h.bias", c.Intermediate, true)
			L.down = b.matrix(p+"mlp.dense_4h_to_h.weight", c.Hidden, c.Intermediate)
			L.downB = b.vector(p+"mlp.dense_4h_to_h.bias", c.Hidden, true)
		}
	case Llama, Mistral, Phi:
		m.embed = b.matrix("model.embed_tokens.weight", c.Vocab, c.Hidden)
		final := "model.norm."
		if c.Family == Phi {
			final = "model.final_layernorm."
		}
		m.normW = b.vector(final+"weight", c.Hidden, false)
		m.normB = b.vector(final+"bias", c.Hidden, true)
		if c.TiedEmbeddings {
			m.head = m.embed
		} else {
			m.head = b.matrix("lm_head.weight", c.Vocab, c.Hidden)
		}
		m.headB = b.vector("lm_head.bias", c.Vocab, true)
		for i := range m.layers {
			p := fmt.Sprintf("model.layers.%d.", i)
			L := &m.layers[i]
			L.ln1W = b.vector(p+"input_layernorm.weight", c.Hidden, false)
			L.ln1B = b.vector(p+"input_layernorm.bias", c.Hidden, true)
			L.q = b.matrix(p+"self_attn.q_proj.weight", q, c.Hidden)
			L.k = b.matrix(p+"self_attn.k_proj.weight", kv, c.Hidden)
			L.v = b.matrix(p+"self_attn.v_proj.weight", kv, c.Hidden)
			L.qB = b.vector(p+"self_attn.q_proj.bias", q, true)
			L.kB = b.vector(p+"self_attn.k_proj.bias", kv, true)
			L.vB = b.vector(p+"self_attn.v_proj.bias", kv, true)
			if c.Family == Phi {
				L.o = b.matrix(p+"self_attn.dense.weight", c.Hidden, q)
				L.oB = b.vector(p+"self_attn.dense.bias", c.Hidden, true)
				L.up = b.matrix(p+"mlp.fc1.weight", c.Intermediate, c.Hidden)
				L.upB = b.vector(p+"mlp.fc1.bias", c.Intermediate, true)
				L.down = b.matrix(p+"mlp.fc2.weight", c.Hidden, c.Intermediate)
				L.downB = b.vector(p+"mlp.fc2.bias", c.Hidden, true)
				continue
			}
			L.ln2W = b.vector(p+"post_attention_layernorm.weight", c.Hidden, false)
			L.o = b.matrix(p+"self_attn.o_proj.weight", c.Hidden, q)
			L.oB = b.vector(p+"self_attn.o_proj.bias", c.Hidden, true)
			L.gate = b.matrix(p+"mlp.gate_proj.weight", c.Intermediate, c.Hidden)
			L.up = b.matrix(p+"mlp.up_proj.weight", c.Intermediate, c.Hidden)
			L.down = b.matrix(p+"mlp.down_proj.weight", c.Hidden, c.Intermediate)
			L.upB = b.vector(p+"mlp.up_proj.bias", c.Intermediate, true)
			L.downB = b.vector(p+"mlp.down_proj.bias", c.Hidden, true)
			if b.f.Tensor(p+"mlp.gate_proj.bias") != nil {
				return fmt.Errorf("llm: %s: %smlp.gate_proj.bias is not supported", f.Dir, p)
			}
		}
	}
	return b.err
}
