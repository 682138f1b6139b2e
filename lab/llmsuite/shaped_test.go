package llmsuite

import (
	"os"
	"path/filepath"
	"testing"

	"windtunnel/models/bpe"
	"windtunnel/models/hf"
	"windtunnel/models/llm"
)

// Shapes of the models Paper III measures, from their config.json: for writing folders of
// their exact shapes with random weights, to time the suite (time and memory do not depend on
// the values; no claim is read from such a folder).
var (
	pythia410m = llm.Config{Family: llm.GPTNeoX, Layers: 24, Hidden: 1024, Heads: 16, KVHeads: 16, HeadDim: 64, Intermediate: 4096,
		Vocab: 50304, RotaryDim: 16, RopeTheta: 10000, NormEps: 1e-5, ParallelResidual: true, Act: llm.GELU, MaxPositions: 2048}
	llama32_1b = llm.Config{Family: llm.Llama, Layers: 16, Hidden: 2048, Heads: 32, KVHeads: 8, HeadDim: 64, Intermediate: 8192,
		Vocab: 128256, RotaryDim: 64, RopeTheta: 500000, RopeScaling: &llm.RopeScaling{Type: "llama3", Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192},
		NormEps: 1e-5, RMSNorm: true, Gated: true, Act: llm.SiLU, TiedEmbeddings: true, MaxPositions: 131072}
)

// TestWriteShapedFolders writes, when WINDTUNNEL_LLM_SHAPED names a folder, a Pythia-410M-shaped
// model (float16, as EleutherAI ships it) and a Llama-3.2-1B-shaped one (bfloat16, two shards)
// there, with tokenizers of their vocabulary sizes trained on Corpus. README, Paper III
// times `windtunnel llm` on them.
func TestWriteShapedFolders(t *testing.T) {
	dir := os.Getenv("WINDTUNNEL_LLM_SHAPED")
	if dir == "" {
		t.Skip("set WINDTUNNEL_LLM_SHAPED=DIR to write the shaped folders (about 3.3 GB)")
	}
	for _, c := range []struct {
		name   string
		cfg    llm.Config
		vocab  int
		style  bpe.Style
		dtype  hf.DType
		shards int
	}{
		{"pythia-410m-shaped", pythia410m, 50277, bpe.NeoX, hf.F16, 1},
		{"llama-3.2-1b-shaped", llama32_1b, 128256, bpe.Llama3, hf.BF16, 2},
	} {
		tok, err := bpe.Synthesize(Corpus(), c.vocab, c.style)
		if err != nil {
			t.Fatal(err)
		}
		if err := llm.WriteRandom(filepath.Join(dir, c.name), c.cfg, llm.RandomOptions{DType: c.dtype, Shards: c.shards, Seed: 1, Tokenizer: tok}); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkShapedManifoldPass times one forward pass of the manifold prompts through the
// folder WINDTUNNEL_LLM_SHAPED_MODEL names (a shaped folder TestWriteShapedFolders wrote, or a
// real checkpoint); with -cpuprofile it shows where the suite's time goes.
func BenchmarkShapedManifoldPass(b *testing.B) {
	dir := os.Getenv("WINDTUNNEL_LLM_SHAPED_MODEL")
	if dir == "" {
		b.Skip("set WINDTUNNEL_LLM_SHAPED_MODEL=DIR")
	}
	m, err := llm.Load(dir, llm.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	sets, err := manifoldSets(m, Options{})
	if err != nil {
		b.Fatal(err)
	}
	var seqs [][]int
	for _, s := range sets {
		seqs = append(seqs, s.seqs...)
	}
	b.ReportMetric(float64(tokens(seqs)), "tokens")
	for b.Loop() {
		if _, err := m.Forward(b.Context(), llm.Request{Seqs: seqs}); err != nil {
			b.Fatal(err)
		}
	}
}
