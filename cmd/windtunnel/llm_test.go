package main

import (
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"windtunnel/lab/llmsuite"
	"windtunnel/models/bpe"
	"windtunnel/models/hf"
	"windtunnel/models/llm"
	"windtunnel/sessions/llmrun"
)

// writeTinyLLM writes a tiny random model of family fam (a tokenizer trained on the suite's
// prompts, so its labels are single tokens) and returns its folder.
func writeTinyLLM(t *testing.T, fam llm.Family) string {
	t.Helper()
	style := bpe.NeoX
	c := llm.Config{Family: fam, Layers: 2, Hidden: 32, Heads: 4, KVHeads: 4, HeadDim: 8, Intermediate: 64, Vocab: 800,
		RotaryDim: 2, RopeTheta: 10000, NormEps: 1e-5, ParallelResidual: true, Act: llm.GELU, MaxPositions: 128}
	if fam == llm.Llama {
		style = bpe.Llama3
		c = llm.Config{Family: fam, Layers: 2, Hidden: 32, Heads: 4, KVHeads: 2, HeadDim: 8, Intermediate: 48, Vocab: 800,
			RotaryDim: 8, RopeTheta: 500000, RopeScaling: &llm.RopeScaling{Type: "llama3", Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192},
			NormEps: 1e-5, RMSNorm: true, Gated: true, Act: llm.SiLU, TiedEmbeddings: true, MaxPositions: 128}
	}
	tok := tinyTokenizer(t, style)
	dir := filepath.Join(t.TempDir(), "tiny-"+string(fam))
	if err := llm.WriteRandom(dir, c, llm.RandomOptions{DType: hf.F16, Shards: 2, Seed: 11, Tokenizer: tok}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tinyTokenizers holds the tiny models' tokenizer, 800 ids trained on the suite's prompts,
// synthesized once per style: it is the same bytes every time, and synthesizing it was most
// of the cost of writing a tiny model.
var tinyTokenizers struct {
	sync.Mutex
	byStyle map[bpe.Style][]byte
}

// tinyTokenizer returns the tiny models' tokenizer.json of the style (shared: not to be modified).
func tinyTokenizer(t *testing.T, style bpe.Style) []byte {
	t.Helper()
	tinyTokenizers.Lock()
	defer tinyTokenizers.Unlock()
	if tok, ok := tinyTokenizers.byStyle[style]; ok {
		return tok
	}
	tok, err := bpe.Synthesize(llmsuite.Corpus(), 800, style)
	if err != nil {
		t.Fatal(err)
	}
	if tinyTokenizers.byStyle == nil {
		tinyTokenizers.byStyle = map[bpe.Style][]byte{}
	}
	tinyTokenizers.byStyle[style] = tok
	return tok
}

func TestLLMEndToEnd(t *testing.T) {
	t.Parallel()
	for _, fam := range []llm.Family{llm.GPTNeoX, llm.Llama} {
		t.Run(string(fam), func(t *testing.T) {
			dir := writeTinyLLM(t, fam)
			out := filepath.Join(t.TempDir(), "out")
			pf := filepath.Join(t.TempDir(), "mine.txt")
			os.WriteFile(pf, []byte("# my prompts\nThe sky is\nOnce upon a\nThe cat sat on the\n"), 0o644)
			code, stdout, stderr := runCLI("llm", dir, "--out", out, "--per-k", "4", "--prompts", pf)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			r, err := llmrun.Read(filepath.Join(out, llmrun.FileName))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Experiments, llmrun.Experiments) || r.Model.Family != string(fam) || len(r.Manifold) != 6 || r.Manifold[5].Name != "mine.txt" {
				t.Errorf("record: %v %s %d sets", r.Experiments, r.Model.Family, len(r.Manifold))
			}
			if !strings.HasPrefix(r.Command, "windtunnel llm ") || !strings.Contains(r.Command, `--per-k="4"`) {
				t.Errorf("recorded command %q", r.Command)
			}
			rep, err := os.ReadFile(filepath.Join(out, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"Paper III report", "SULA", "Keys are near-orthogonal", "Dynamic focusing", "entropy axis",
				"0.44", "14.6%", "![", "llm-axis.png"} {
				if !strings.Contains(string(rep), want) {
					t.Errorf("report lacks %q", want)
				}
			}
			// The nulls: two random-weight copies measured, their folders gone, a null column.
			if r.Nulls == nil || len(r.Nulls.Random) != 2 || r.Nulls.Constant == nil || r.Nulls.Ablation == nil {
				t.Errorf("nulls %+v", r.Nulls)
			}
			if left, _ := filepath.Glob(filepath.Join(out, ".random-weights-*")); len(left) > 0 {
				t.Errorf("random copies left behind: %v", left)
			}
			if !strings.Contains(string(rep), "| nulls |") || !strings.Contains(string(rep), "random weights, variance-preserving") {
				t.Errorf("report has no nulls column")
			}
			for _, name := range []string{"llm-manifold", "llm-sula", "llm-nulls", "llm-keys", "llm-focus", "llm-axis"} {
				f, err := os.Open(filepath.Join(out, name+".png"))
				if err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(f)
				f.Close()
				if err != nil || img.Bounds().Dx() != 960 {
					t.Errorf("%s: %v", name, err)
				}
			}
			if n := strings.Count(stdout, "not reproduced") + strings.Count(stdout, " reproduced ") + strings.Count(stdout, "not measured") + strings.Count(stdout, "consistent, not diagnostic"); n < 10 {
				t.Errorf("stdout has %d verdicts:\n%s", n, stdout)
			}
			if !strings.Contains(stderr, "SULA prompts") || !strings.Contains(stderr, string(fam)) {
				t.Errorf("stderr: %s", stderr)
			}
			// --json with a subset of the experiments prints the record.
			code, stdout, stderr = runCLI("llm", dir, "--out", filepath.Join(t.TempDir(), "o2"), "--experiments", "keys,focus", "--json")
			if code != 0 {
				t.Fatalf("--json: exit %d: %s", code, stderr)
			}
			var j llmrun.Result
			if err := json.Unmarshal([]byte(stdout), &j); err != nil {
				t.Fatal(err)
			}
			if j.Keys == nil || j.Focus == nil || j.SULA != nil || j.Axis != nil || j.Manifold != nil {
				t.Errorf("--experiments keys,focus recorded %v", j.Experiments)
			}
		})
	}
}

func TestLLMLogits(t *testing.T) {
	dir := writeTinyLLM(t, llm.Llama)
	code, stdout, stderr := runCLI("llm", "logits", dir, "--prompt", "the cat sat", "--json", "--top", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		IDs    []int     `json:"ids"`
		Tokens []string  `json:"tokens"`
		Logits []float32 `json:"logits"`
		Top    []struct {
			ID int     `json:"id"`
			P  float64 `json:"p"`
		} `json:"top"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	m, err := llm.Load(dir, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	want, _ := m.Tokenizer.Encode("the cat sat", true)
	if !slices.Equal(got.IDs, want) || want[0] != 799 || strings.Join(got.Tokens, "") != "<|begin_of_text|>the cat sat" {
		t.Errorf("ids %v tokens %q, want %v", got.IDs, got.Tokens, want)
	}
	res, _ := m.Forward(context.Background(), llm.Request{Seqs: [][]int{want}})
	if !slices.Equal(got.Logits, res.Logits[0]) || len(got.Logits) != 800 {
		t.Errorf("logits differ from the forward pass's (%d values)", len(got.Logits))
	}
	if len(got.Top) != 3 || !(got.Top[0].P >= got.Top[1].P && got.Top[1].P >= got.Top[2].P) {
		t.Errorf("top %+v", got.Top)
	}
	// --ids and the text form.
	code, stdout, _ = runCLI("llm", "logits", dir, "--ids", "1, 2,3")
	if code != 0 || !strings.Contains(stdout, "ids    [1 2 3]") {
		t.Errorf("--ids: exit %d\n%s", code, stdout)
	}
}

func TestLLMBadCommandLines(t *testing.T) {
	dir := writeTinyLLM(t, llm.GPTNeoX)
	notModel := t.TempDir()
	bert := t.TempDir()
	os.WriteFile(filepath.Join(bert, "config.json"), []byte(`{"model_type":"bert","architectures":["BertModel"]}`), 0o644)
	hf.WriteSafetensors(filepath.Join(bert, "model.safetensors"), []hf.Named{{Name: "x", Shape: []int{1}, Values: []float32{1}}}, hf.F32)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"llm"}, 2, "takes one model folder"},
		{[]string{"llm", dir, dir}, 2, "got 2 arguments"},
		{[]string{"llm", dir, "--experiments", "manifold,vibes"}, 2, `--experiments: unknown experiment "vibes"`},
		{[]string{"llm", dir, "--per-k", "0"}, 2, "--per-k 0"},
		{[]string{"llm", dir, "--prompts", filepath.Join(notModel, "none.txt")}, 2, "--prompts"},
		{[]string{"llm", dir, "--format", "bmp"}, 2, "--format"},
		{[]string{"llm", dir, "--axis-layer", "5"}, 2, "--axis-layer 5"},
		{[]string{"llm", dir, "--per-k", "x"}, 2, "--per-k"},
		{[]string{"llm", notModel}, 1, "not a Hugging Face model folder: no config.json"},
		{[]string{"llm", bert}, 1, `model_type "bert"`},
		{[]string{"llm", "logits", dir}, 2, "give --prompt TEXT or --ids"},
		{[]string{"llm", "logits", dir, "--ids", "1,x"}, 2, "--ids"},
		{[]string{"llm", "logits", dir, "--ids", "99999"}, 1, "outside the vocabulary"},
		{[]string{"llm", "logits", notModel, "--prompt", "hi"}, 1, "no config.json"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
	// The help says where it runs.
	_, out, _ := runCLI("llm", "--help")
	if !strings.Contains(out, "CPU only") {
		t.Errorf("llm --help does not say it runs on the CPU only:\n%s", out)
	}
}

func TestLLMViewNeedsATerminal(t *testing.T) {
	code, _, stderr := runCLI("llm", "view", writeTinyLLM(t, llm.GPTNeoX))
	if code != 2 || !strings.Contains(stderr, "needs a terminal") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
