package llmsuite

import (
	"os"
	"path/filepath"
	"strings"
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
	phi2 = llm.Config{Family: llm.Phi, Layers: 32, Hidden: 2560, Heads: 32, KVHeads: 32, HeadDim: 80, Intermediate: 10240, Vocab: 51200,
		RotaryDim: 32, RopeTheta: 10000, NormEps: 1e-5, ParallelResidual: true, SharedNorm: true, Act: llm.GELUTanh, MaxPositions: 2048}
	mistral7b = llm.Config{Family: llm.Mistral, Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Intermediate: 14336, Vocab: 32000,
		RotaryDim: 128, RopeTheta: 10000, NormEps: 1e-5, RMSNorm: true, Gated: true, Act: llm.SiLU, SlidingWindow: 4096, MaxPositions: 32768}
)

// shapedFolders are the folders TestWriteShapedFolders can write, by name: each model's shape,
// its tokenizer's size and style, and the element type and shard count it ships in. Phi-2's
// tokenizer is GPT-2's byte-level one (the NeoX style); Mistral's own is SentencePiece, which
// Synthesize does not write, so its folder has a byte-level tokenizer of Mistral's size with a
// token before every sequence as Mistral's has (prompts come out a few tokens longer or shorter).
var shapedFolders = []struct {
	name   string
	cfg    llm.Config
	vocab  int
	style  bpe.Style
	dtype  hf.DType
	shards int
}{
	{"pythia-410m-shaped", pythia410m, 50277, bpe.NeoX, hf.F16, 1},
	{"llama-3.2-1b-shaped", llama32_1b, 128256, bpe.Llama3, hf.BF16, 2},
	{"phi-2-shaped", phi2, 50295, bpe.NeoX, hf.F16, 2},
	{"mistral-7b-shaped", mistral7b, 32000, bpe.Llama3, hf.BF16, 2},
}

// TestWriteShapedFolders writes, when WINDTUNNEL_LLM_SHAPED names a folder, models of the
// shapes Paper III measures with random weights and tokenizers of their vocabulary sizes trained
// on Corpus: by default Pythia-410M's (float16, as EleutherAI ships it) and Llama-3.2-1B's
// (bfloat16, two shards), about 3.3 GB; WINDTUNNEL_LLM_SHAPES names others, comma-separated
// (phi-2: 5.6 GB, mistral-7b: 14.5 GB; "all" for the four). docs/paper3.md times
// `windtunnel llm` on them.
func TestWriteShapedFolders(t *testing.T) {
	dir := os.Getenv("WINDTUNNEL_LLM_SHAPED")
	if dir == "" {
		t.Skip("set WINDTUNNEL_LLM_SHAPED=DIR to write the shaped folders (about 3.3 GB)")
	}
	want := map[string]bool{"pythia-410m": true, "llama-3.2-1b": true}
	if list := os.Getenv("WINDTUNNEL_LLM_SHAPES"); list != "" {
		want = map[string]bool{}
		for _, n := range strings.Split(list, ",") {
			want[strings.TrimSpace(n)] = true
		}
	}
	known := map[string]bool{"all": true}
	for _, c := range shapedFolders {
		known[strings.TrimSuffix(c.name, "-shaped")] = true
	}
	for n := range want {
		if !known[n] {
			t.Fatalf("WINDTUNNEL_LLM_SHAPES: no shape %q (pythia-410m, llama-3.2-1b, phi-2, mistral-7b, all)", n)
		}
	}
	for _, c := range shapedFolders {
		if !want["all"] && !want[strings.TrimSuffix(c.name, "-shaped")] {
			continue
		}
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
