package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"windtunnel/models/bpe"
	"windtunnel/models/hf"
	"windtunnel/models/llm"
	"windtunnel/sessions/llmrun"
)

// poisonLLM sets every value of the model's tensors whose name ends in suffix to v (NaN,
// an infinity), rewriting the shards that hold them.
func poisonLLM(t *testing.T, dir, suffix string, v float32) {
	t.Helper()
	f, err := hf.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]hf.Named{}
	dtypes := map[string]hf.DType{}
	hit := false
	for _, name := range f.Names() {
		ts := f.Tensor(name)
		vals, err := ts.Rows(0, ts.RowCount(), make([]float32, ts.Len()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, suffix) {
			hit = true
			for i := range vals {
				vals[i] = v
			}
		}
		files[ts.File] = append(files[ts.File], hf.Named{Name: name, Shape: append([]int(nil), ts.Shape...), Values: vals})
		dtypes[ts.File] = ts.DType
	}
	f.Close()
	if !hit {
		t.Fatalf("no tensor ends in %q", suffix)
	}
	for file, ts := range files {
		path := file
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, file)
		}
		if err := hf.WriteSafetensors(path, ts, dtypes[file]); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLLMLogitsNotFinite (issue 50 item 3): a model whose logits are NaN or infinite (its
// final norm's gains poisoned) printed them with exit 0, and --json failed with "json:
// unsupported value: NaN". Now both forms print what there is (JSON with null for a
// non-finite number) and exit 1 saying the logits are not finite, how many and the first.
func TestLLMLogitsNotFinite(t *testing.T) {
	for _, c := range []struct {
		name string
		v    float32
	}{{"NaN", float32(math.NaN())}, {"Inf", float32(math.Inf(1))}} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTinyLLM(t, llm.Llama)
			poisonLLM(t, dir, "model.norm.weight", c.v)
			code, stdout, stderr := runCLI("llm", "logits", dir, "--prompt", "the cat sat", "--json", "--top", "3")
			if code != 1 || !strings.Contains(stderr, "the model's logits are not finite: ") || !strings.Contains(stderr, " of the 800 at the last position are NaN or infinite (the first: token ") {
				t.Errorf("--json: exit %d, stderr %q", code, stderr)
			}
			var got struct {
				Logits []*float64 `json:"logits"`
			}
			if err := json.Unmarshal([]byte(stdout), &got); err != nil || len(got.Logits) != 800 {
				t.Fatalf("--json: %v, %d logits: %q", err, len(got.Logits), stdout)
			}
			nulls := 0
			for _, l := range got.Logits {
				if l == nil {
					nulls++
				}
			}
			if nulls == 0 {
				t.Errorf("--json: no null among the logits")
			}
			code, stdout, stderr = runCLI("llm", "logits", dir, "--prompt", "the cat sat")
			if code != 1 || !strings.Contains(stderr, "the model's logits are not finite") || !strings.Contains(stdout, "ids    [") {
				t.Errorf("text: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// writeOneLayerLLM writes a tiny one-layer GPT-NeoX model and returns its folder.
func writeOneLayerLLM(t *testing.T) string {
	t.Helper()
	c := llm.Config{Family: llm.GPTNeoX, Layers: 1, Hidden: 32, Heads: 4, KVHeads: 4, HeadDim: 8, Intermediate: 64, Vocab: 800,
		RotaryDim: 2, RopeTheta: 10000, NormEps: 1e-5, ParallelResidual: true, Act: llm.GELU, MaxPositions: 128}
	tok := tinyTokenizer(t, bpe.NeoX)
	dir := filepath.Join(t.TempDir(), "one-layer")
	if err := llm.WriteRandom(dir, c, llm.RandomOptions{DType: hf.F16, Shards: 1, Seed: 11, Tokenizer: tok}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestLLMOneLayer (issue 50 item 4): on a one-layer model llm ran every experiment and
// then failed in the last ("principal axis: the 10 rows are identical"), writing nothing.
// Now the experiments the model cannot support (the entropy-axis ablation, dynamic
// focusing) are skipped before any pass, said on stderr and in the record's warnings, and
// the rest are written; naming one of them in --experiments is a usage error.
func TestLLMOneLayer(t *testing.T) {
	t.Parallel()
	dir := writeOneLayerLLM(t)
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI("llm", dir, "--out", out, "--per-k", "2")
	if code != 0 || !strings.Contains(stderr, "windtunnel: llm: axis not run: the entropy-axis ablation needs a layer after the first") ||
		!strings.Contains(stderr, "windtunnel: llm: focus not run: ") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := llmrun.Read(filepath.Join(out, llmrun.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Experiments, []string{"manifold", "sula", "keys"}) || r.Axis != nil || r.Focus != nil || r.Keys == nil ||
		!slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, "axis not run: ") }) {
		t.Errorf("record: experiments %v, warnings %q", r.Experiments, r.Warnings)
	}
	if _, err := os.Stat(filepath.Join(out, "report.md")); err != nil {
		t.Error(err)
	}
	code, _, stderr = runCLI("llm", dir, "--out", filepath.Join(t.TempDir(), "o2"), "--experiments", "keys,axis")
	if code != 2 || !strings.Contains(stderr, "--experiments axis: the entropy-axis ablation needs a layer after the first") {
		t.Errorf("--experiments axis on one layer: exit %d, %s", code, stderr)
	}
}

// TestLLMKeepsFinishedExperiments (issue 50 item 4): an experiment that fails after others
// finished (here the axis ablation, on a model whose last layer's values are all zero: its
// principal axis does not exist) cost every result: nothing was written. Now the others
// are written (results.json, the figures, report.md), the record's warnings name the
// failure and the exit is 1 with the error.
func TestLLMKeepsFinishedExperiments(t *testing.T) {
	dir := writeTinyLLM(t, llm.Llama)
	poisonLLM(t, dir, "layers.1.self_attn.v_proj.weight", 0)
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI("llm", dir, "--out", out, "--per-k", "2")
	if code != 1 || !strings.Contains(stderr, "kept what finished (manifold, sula, keys, focus)") || !strings.Contains(stderr, "axis: ") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := llmrun.Read(filepath.Join(out, llmrun.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Experiments, []string{"manifold", "sula", "keys", "focus"}) || r.Axis != nil || r.Keys == nil || r.Focus == nil ||
		!slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, "axis failed: ") }) {
		t.Errorf("record: experiments %v, warnings %q", r.Experiments, r.Warnings)
	}
	if _, err := os.Stat(filepath.Join(out, "report.md")); err != nil {
		t.Error(err)
	}
}
