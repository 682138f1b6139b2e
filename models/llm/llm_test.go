package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/models/bpe"
	"windtunnel/models/hf"
)

// corpus trains the tiny models' tokenizers.
var corpus = []string{"the cat sat on the mat", "the dog sat on the log", "a cat and a dog", "12 + 34 = 46"}

// tinyConfigs are small configurations of every family, each exercising a variant: partial
// rotary, sequential residual, grouped-query attention with an explicit head_dim and llama3
// rope scaling in all three of its regimes, tied embeddings, a sliding window shorter than
// the sequences.
func tinyConfigs(vocab int) map[string]Config {
	return map[string]Config{
		"neox": {Family: GPTNeoX, Layers: 2, Hidden: 32, Heads: 4, KVHeads: 4, HeadDim: 8, Intermediate: 64, Vocab: vocab,
			RotaryDim: 2, RopeTheta: 10000, NormEps: 1e-5, ParallelResidual: true, Act: GELU, MaxPositions: 64},
		"neox-sequential": {Family: GPTNeoX, Layers: 2, Hidden: 32, Heads: 4, KVHeads: 4, HeadDim: 8, Intermediate: 64, Vocab: vocab,
			RotaryDim: 4, RopeTheta: 10000, NormEps: 1e-5, Act: GELU, MaxPositions: 64},
		"llama": {Family: Llama, Layers: 2, Hidden: 32, Heads: 4, KVHeads: 2, HeadDim: 16, Intermediate: 48, Vocab: vocab,
			RotaryDim: 16, RopeTheta: 10000, RopeScaling: &RopeScaling{Type: "llama3", Factor: 8, LowFreqFactor: 2, HighFreqFactor: 8, OriginalMaxPositions: 64},
			NormEps: 1e-5, RMSNorm: true, Gated: true, Act: SiLU, TiedEmbeddings: true, MaxPositions: 128},
		"mistral": {Family: Mistral, Layers: 2, Hidden: 32, Heads: 4, KVHeads: 1, HeadDim: 8, Intermediate: 48, Vocab: vocab,
			RotaryDim: 8, RopeTheta: 10000, NormEps: 1e-6, RMSNorm: true, Gated: true, Act: SiLU, SlidingWindow: 3, MaxPositions: 64},
		"phi": {Family: Phi, Layers: 2, Hidden: 32, Heads: 4, KVHeads: 4, HeadDim: 8, Intermediate: 64, Vocab: vocab,
			RotaryDim: 4, RopeTheta: 10000, NormEps: 1e-5, ParallelResidual: true, SharedNorm: true, Act: GELUTanh, MaxPositions: 64},
	}
}

// writeTiny writes the tiny model name in dtype (sharded when shards > 1) and returns its folder.
func writeTiny(t testing.TB, name string, dtype hf.DType, shards int, bias bool) string {
	t.Helper()
	style := bpe.NeoX
	if strings.HasPrefix(name, "llama") || name == "mistral" {
		style = bpe.Llama3
	}
	tok, err := bpe.Synthesize(corpus, 300, style)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), name)
	c := tinyConfigs(300)[name]
	if err := WriteRandom(dir, c, RandomOptions{DType: dtype, Shards: shards, Seed: 7, Tokenizer: tok, Bias: bias}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestParseConfigRealShapes(t *testing.T) {
	for _, c := range []struct {
		name, json string
		want       Config
	}{
		{"pythia-410m", `{"architectures":["GPTNeoXForCausalLM"],"model_type":"gpt_neox","hidden_size":1024,"num_hidden_layers":24,
			"num_attention_heads":16,"intermediate_size":4096,"vocab_size":50304,"rotary_pct":0.25,"rotary_emb_base":10000,
			"layer_norm_eps":1e-5,"use_parallel_residual":true,"hidden_act":"gelu","tie_word_embeddings":false,"max_position_embeddings":2048}`,
			Config{Family: GPTNeoX, Layers: 24, Hidden: 1024, Heads: 16, KVHeads: 16, HeadDim: 64, Intermediate: 4096, Vocab: 50304,
				RotaryDim: 16, RopeTheta: 10000, NormEps: 1e-5, ParallelResidual: true, Act: GELU, MaxPositions: 2048}},
		{"llama-3.2-1b", `{"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":2048,"num_hidden_layers":16,
			"num_attention_heads":32,"num_key_value_heads":8,"head_dim":64,"intermediate_size":8192,"vocab_size":128256,"rms_norm_eps":1e-5,
			"rope_theta":500000.0,"rope_scaling":{"factor":32.0,"high_freq_factor":4.0,"low_freq_factor":1.0,"original_max_position_embeddings":8192,"rope_type":"llama3"},
			"tie_word_embeddings":true,"hidden_act":"silu","max_position_embeddings":131072}`,
			Config{Family: Llama, Layers: 16, Hidden: 2048, Heads: 32, KVHeads: 8, HeadDim: 64, Intermediate: 8192, Vocab: 128256,
				RotaryDim: 64, RopeTheta: 500000, RopeScaling: &RopeScaling{Type: "llama3", Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192},
				NormEps: 1e-5, RMSNorm: true, Gated: true, Act: SiLU, TiedEmbeddings: true, MaxPositions: 131072}},
		{"phi-2", `{"architectures":["PhiForCausalLM"],"model_type":"phi","hidden_size":2560,"num_hidden_layers":32,"num_attention_heads":32,
			"num_key_value_heads":32,"intermediate_size":10240,"vocab_size":51200,"partial_rotary_factor":0.4,"rope_theta":10000.0,
			"layer_norm_eps":1e-5,"hidden_act":"gelu_new","qk_layernorm":false,"tie_word_embeddings":false,"max_position_embeddings":2048}`,
			Config{Family: Phi, Layers: 32, Hidden: 2560, Heads: 32, KVHeads: 32, HeadDim: 80, Intermediate: 10240, Vocab: 51200,
				RotaryDim: 32, RopeTheta: 10000, NormEps: 1e-5, ParallelResidual: true, SharedNorm: true, Act: GELUTanh, MaxPositions: 2048}},
		{"mistral-7b", `{"architectures":["MistralForCausalLM"],"model_type":"mistral","hidden_size":4096,"num_hidden_layers":32,
			"num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"vocab_size":32000,"rms_norm_eps":1e-5,
			"rope_theta":10000.0,"sliding_window":4096,"hidden_act":"silu","tie_word_embeddings":false,"max_position_embeddings":32768}`,
			Config{Family: Mistral, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Intermediate: 14336, Vocab: 32000,
				RotaryDim: 128, RopeTheta: 10000, NormEps: 1e-5, RMSNorm: true, Gated: true, Act: SiLU, SlidingWindow: 4096, MaxPositions: 32768}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseConfig([]byte(c.json))
			if err != nil {
				t.Fatal(err)
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(c.want)
			if !bytes.Equal(gj, wj) {
				t.Errorf("got  %s\nwant %s", gj, wj)
			}
			// HFConfig writes it back in the family's keys.
			b, err := got.HFConfig()
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseConfig(b)
			if err != nil {
				t.Fatal(err)
			}
			if bj, _ := json.Marshal(back); !bytes.Equal(bj, wj) {
				t.Errorf("round trip %s", bj)
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"model_type":"gpt2"}`, `model_type "gpt2"`},
		{`{"model_type":"llama","num_hidden_layers":2,"hidden_size":0}`, "hidden_size 0"},
		{`{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":3,"intermediate_size":8,"vocab_size":10,"rms_norm_eps":1e-5}`, "not a multiple"},
		{`{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":8,"vocab_size":10,"rms_norm_eps":1e-5,"rope_scaling":{"rope_type":"yarn","factor":4}}`, `"yarn" is not supported`},
		{`{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":8,"vocab_size":10,"rms_norm_eps":1e-5,"hidden_act":"relu2"}`, `"relu2" is not supported`},
		{`{"model_type":"phi","qk_layernorm":true}`, "qk_layernorm"},
		{`{"model_type":"llama","hidden_size":64,"num_hidden_layers":99999,"num_attention_heads":4,"intermediate_size":8,"vocab_size":10,"rms_norm_eps":1e-5}`, "num_hidden_layers 99999"},
		{`{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":8,"vocab_size":10}`, "norm epsilon 0"},
		{`[1,2]`, "config.json"},
		// Negative optional sizes, a string where an object goes, a key twice.
		{`{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":-2,"intermediate_size":8,"vocab_size":10,"rms_norm_eps":1e-5}`, `key "num_key_value_heads" is -2`},
		{`{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"head_dim":-16,"intermediate_size":8,"vocab_size":10,"rms_norm_eps":1e-5}`, `key "head_dim" is -16`},
		{`{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":8,"vocab_size":10,"rms_norm_eps":1e-5,"max_position_embeddings":-5}`, `key "max_position_embeddings" is -5`},
		{`{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":8,"vocab_size":10,"rms_norm_eps":1e-5,"rope_scaling":"llama3"}`, `key "rope_scaling": a JSON string, want an object`},
		{`{"model_type":"llama","hidden_size":64,"hidden_size":128}`, `key "hidden_size" appears twice`},
	} {
		_, err := ParseConfig([]byte(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.json, err, c.want)
		}
	}
}

func TestLlama3InvFreq(t *testing.T) {
	// Llama-3.2-1B's rotary: base 500000 over 64 dimensions, factor 32, low 1, high 4, 8192.
	c := Config{RotaryDim: 64, RopeTheta: 500000, RopeScaling: &RopeScaling{Type: "llama3", Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192}}
	f := c.invFreq()
	plain := Config{RotaryDim: 64, RopeTheta: 500000}.invFreq()
	var kept, divided, between int
	for j := range f {
		wave := 2 * math.Pi / plain[j]
		switch {
		case wave < 8192/4.0:
			kept++
			if f[j] != plain[j] {
				t.Errorf("j=%d (wavelength %.0f < 2048): %g, want unchanged %g", j, wave, f[j], plain[j])
			}
		case wave > 8192:
			divided++
			if math.Abs(f[j]-plain[j]/32) > 1e-18 {
				t.Errorf("j=%d (wavelength %.0f > 8192): %g, want %g/32", j, wave, f[j], plain[j])
			}
		default:
			between++
			if !(f[j] < plain[j] && f[j] > plain[j]/32) {
				t.Errorf("j=%d (wavelength %.0f): %g not between %g/32 and %g", j, wave, f[j], plain[j], plain[j])
			}
		}
	}
	if kept == 0 || divided == 0 || between == 0 {
		t.Errorf("regimes kept %d, divided %d, between %d: want each", kept, divided, between)
	}
}

// randomSeqs returns n sequences of random ids below vocab, of lengths 1..maxLen.
func randomSeqs(r *rand.Rand, n, maxLen, vocab int) [][]int {
	out := make([][]int, n)
	for i := range out {
		out[i] = make([]int, 1+r.IntN(maxLen))
		for j := range out[i] {
			out[i][j] = r.IntN(vocab)
		}
	}
	return out
}

func TestForwardChunkingAndTaps(t *testing.T) {
	for _, name := range []string{"neox", "llama", "mistral", "phi"} {
		t.Run(name, func(t *testing.T) {
			m, err := Load(writeTiny(t, name, hf.F32, 1, false), Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			seqs := randomSeqs(rand.New(rand.NewPCG(1, 2)), 5, 9, m.Config.Vocab)
			all, err := m.Forward(context.Background(), Request{Seqs: seqs, AllLogits: true})
			if err != nil {
				t.Fatal(err)
			}
			// Sequences apart, in small chunks, with every tap set (the edit an identity).
			var attnRows, kvCalls int
			calls := map[string]int{}
			taps := &Taps{
				Residual:   func(l int, c *Chunk, x []float32) { calls[fmt.Sprint("res", l)]++ },
				KV:         func(l int, c *Chunk, k, v []float32) { kvCalls++ },
				EditValues: func(l int, c *Chunk, v []float32) {},
				Attention: func(l int, c *Chunk, i, h, r0 int, p []float32, tt int) {
					for r := r0; r < r0+len(p)/tt; r++ {
						var s float64
						for j, x := range p[(r-r0)*tt : (r-r0+1)*tt] {
							if j > r && x != 0 {
								t.Errorf("layer %d head %d: weight %g after the diagonal", l, h, x)
							}
							s += float64(x)
						}
						if math.Abs(s-1) > 1e-5 {
							t.Errorf("layer %d head %d row %d sums to %g", l, h, r, s)
						}
					}
				},
			}
			_ = attnRows
			var steps []int
			last, err := m.Forward(context.Background(), Request{Seqs: seqs, Taps: taps, ChunkTokens: 6,
				Progress: func(done, total int) { steps = append(steps, done*1000+total) }})
			if err != nil {
				t.Fatal(err)
			}
			V := m.Config.Vocab
			for i, s := range seqs {
				want := all.Logits[i][(len(s)-1)*V:]
				for j, x := range last.Logits[i] {
					if math.Abs(float64(x-want[j])) > 1e-5 {
						t.Fatalf("seq %d logit %d: %g apart from %g in one chunk", i, j, x, want[j])
					}
				}
				if len(last.Hidden[i]) != m.Config.Hidden {
					t.Errorf("hidden %d values", len(last.Hidden[i]))
				}
			}
			if kvCalls == 0 || calls["res0"] == 0 || calls[fmt.Sprint("res", m.Config.Layers)] == 0 {
				t.Errorf("taps not called: kv %d, residual %v", kvCalls, calls)
			}
			if len(steps) == 0 || steps[len(steps)-1]/1000 != steps[len(steps)-1]%1000 {
				t.Errorf("progress %v does not end at its total", steps)
			}
		})
	}
}

func TestEditValuesChangesOutput(t *testing.T) {
	m, err := Load(writeTiny(t, "llama", hf.F32, 1, false), Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	seqs := [][]int{{1, 2, 3, 4, 5}}
	base, _ := m.Forward(context.Background(), Request{Seqs: seqs})
	zero, _ := m.Forward(context.Background(), Request{Seqs: seqs, Taps: &Taps{EditValues: func(l int, c *Chunk, v []float32) {
		if l == m.Config.Layers-1 {
			clear(v)
		}
	}}})
	// With the last layer's values zeroed its attention adds only the output bias (none):
	// the logits must move.
	var d float64
	for j := range base.Logits[0] {
		d = math.Max(d, math.Abs(float64(base.Logits[0][j]-zero.Logits[0][j])))
	}
	if d < 1e-3 {
		t.Errorf("zeroing the last layer's values moved the logits by %g", d)
	}
}

func TestForwardErrors(t *testing.T) {
	m, err := Load(writeTiny(t, "neox", hf.BF16, 1, false), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, c := range []struct {
		seqs [][]int
		want string
	}{
		{nil, "no sequences"},
		{[][]int{{}}, "0 tokens"},
		{[][]int{{1, 300}}, "token 300 outside"},
		{[][]int{make([]int, 65)}, "65 tokens"},
	} {
		if _, err := m.Forward(context.Background(), Request{Seqs: c.seqs}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.seqs, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Forward(ctx, Request{Seqs: [][]int{{1}}}); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	edit := func(name string, f func(dir string)) func(t *testing.T) string {
		return func(t *testing.T) string {
			d := writeTiny(t, name, hf.F32, 1, false)
			f(d)
			return d
		}
	}
	for _, c := range []struct {
		name  string
		setup func(t *testing.T) string
		want  string
	}{
		{"unsupported", edit("neox", func(d string) {
			os.WriteFile(filepath.Join(d, "config.json"), []byte(`{"model_type":"bert","architectures":["BertModel"]}`), 0o644)
		}), `model_type "bert"`},
		{"no tokenizer", edit("neox", func(d string) { os.Remove(filepath.Join(d, "tokenizer.json")) }), "no tokenizer.json"},
		{"missing tensor", edit("llama", func(d string) {
			f, _ := hf.Open(d)
			var keep []hf.Named
			for _, n := range f.Names() {
				if n == "model.layers.1.mlp.up_proj.weight" {
					continue
				}
				tt := f.Tensor(n)
				v, _ := tt.Rows(0, tt.RowCount(), make([]float32, tt.Len()))
				keep = append(keep, hf.Named{Name: n, Shape: tt.Shape, Values: v})
			}
			f.Close()
			hf.WriteSafetensors(filepath.Join(d, "model.safetensors"), keep, hf.F32)
		}), "no tensor model.layers.1.mlp.up_proj.weight"},
		{"wrong shape", edit("phi", func(d string) {
			b, _ := os.ReadFile(filepath.Join(d, "config.json"))
			os.WriteFile(filepath.Join(d, "config.json"), bytes.Replace(b, []byte(`"intermediate_size": 64`), []byte(`"intermediate_size": 65`), 1), 0o644)
		}), "want [65 32]"},
		{"tokenizer beyond vocabulary", edit("neox", func(d string) {
			b, _ := os.ReadFile(filepath.Join(d, "config.json"))
			os.WriteFile(filepath.Join(d, "config.json"), bytes.Replace(b, []byte(`"vocab_size": 300`), []byte(`"vocab_size": 200`), 1), 0o644)
		}), "tokenizer.json has ids up to 299"},
		{"tokenizer key twice", edit("neox", func(d string) {
			b, _ := os.ReadFile(filepath.Join(d, "tokenizer.json"))
			os.WriteFile(filepath.Join(d, "tokenizer.json"), bytes.Replace(b, []byte(`{`), []byte(`{"x":1,"x":2,`), 1), 0o644)
		}), `key "x" appears twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Load(c.setup(t), Options{})
			if err == nil {
				m.Close()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestResumeFromResidual(t *testing.T) {
	m, err := Load(writeTiny(t, "neox", hf.F16, 1, false), Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	seqs := randomSeqs(rand.New(rand.NewPCG(9, 9)), 4, 8, m.Config.Vocab)
	saved := make([][]float32, len(seqs))
	base, err := m.Forward(context.Background(), Request{Seqs: seqs, Taps: &Taps{Residual: func(l int, c *Chunk, x []float32) {
		if l != 1 {
			return
		}
		for i, s := range c.Seqs {
			saved[s] = append([]float32(nil), x[c.Start[i]*m.Config.Hidden:c.Start[i+1]*m.Config.Hidden]...)
		}
	}}})
	if err != nil {
		t.Fatal(err)
	}
	again, err := m.Forward(context.Background(), Request{Seqs: seqs, Start: 1, Residual: saved, ChunkTokens: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i := range seqs {
		for j, x := range again.Logits[i] {
			if math.Abs(float64(x-base.Logits[i][j])) > 1e-5 {
				t.Fatalf("seq %d logit %d: resumed %g, whole %g", i, j, x, base.Logits[i][j])
			}
		}
	}
	if _, err := m.Forward(context.Background(), Request{Seqs: seqs, Start: 1, Residual: saved[:2]}); err == nil {
		t.Error("too few residuals: no error")
	}
}
