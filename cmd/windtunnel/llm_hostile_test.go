package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/models/hf"
	"windtunnel/models/llm"
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
