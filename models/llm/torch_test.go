package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"windtunnel/models/hf"
)

// torchPython returns a Python that imports torch, skipping the test without one unless
// WINDTUNNEL_REQUIRE_TORCH=1 (CI sets it), which makes its absence a failure.
func torchPython(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts PyTorch (seconds to import torch)")
	}
	var tried []string
	cands := []string{os.Getenv("PYTHON")}
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append(cands, p)
	}
	cands = append(cands, "/usr/bin/python3")
	for _, p := range cands {
		if p == "" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		out, err := exec.CommandContext(ctx, p, "-c", "import torch").CombinedOutput()
		cancel()
		if err == nil {
			return p
		}
		tried = append(tried, fmt.Sprintf("%s: %v %s", p, err, bytes.TrimSpace(out)))
	}
	if os.Getenv("WINDTUNNEL_REQUIRE_TORCH") == "1" {
		t.Fatalf("no Python imports torch and WINDTUNNEL_REQUIRE_TORCH=1: %s", strings.Join(tried, "; "))
	}
	t.Skipf("no Python imports torch: %s", strings.Join(tried, "; "))
	return ""
}

// TestTorchParity holds the forward pass to scripts/torch_llm_reference.py, an independent
// float64 implementation in plain torch, on tiny random models of every family in every
// dtype, single and sharded: every position's logits agree within 1e-4.
func TestTorchParity(t *testing.T) {
	py := torchPython(t)
	type run struct {
		name  string
		dir   string
		seqs  [][]int
		model *Model
	}
	var runs []run
	r := rand.New(rand.NewPCG(3, 4))
	i := 0
	for _, name := range []string{"neox", "neox-sequential", "llama", "mistral", "phi"} {
		for _, dt := range []hf.DType{hf.F32, hf.F16, hf.BF16} {
			shards := 1 + i%2
			i++
			dir := writeTiny(t, name, dt, shards, name == "llama" && dt == hf.F16)
			m, err := Load(dir, Options{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			runs = append(runs, run{name: fmt.Sprintf("%s/%s/shards=%d", name, dt, shards), dir: dir, seqs: randomSeqs(r, 3, 12, m.Config.Vocab), model: m})
		}
	}
	var req struct {
		Models []map[string]any `json:"models"`
	}
	for _, x := range runs {
		req.Models = append(req.Models, map[string]any{"dir": x.dir, "seqs": x.seqs})
	}
	in, _ := json.Marshal(req)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, filepath.Join("..", "..", "scripts", "torch_llm_reference.py"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("torch reference: %v\n%s", err, stderr.String())
	}
	var ref struct {
		Models []struct {
			Logits [][]float64 `json:"logits"`
		} `json:"models"`
	}
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatal(err)
	}
	for k, x := range runs {
		got, err := x.model.Forward(context.Background(), Request{Seqs: x.seqs, AllLogits: true})
		if err != nil {
			t.Fatal(err)
		}
		var worst, scale float64
		for s := range x.seqs {
			want := ref.Models[k].Logits[s]
			if len(want) != len(got.Logits[s]) {
				t.Fatalf("%s seq %d: %d logits, torch %d", x.name, s, len(got.Logits[s]), len(want))
			}
			for j, w := range want {
				worst = math.Max(worst, math.Abs(float64(got.Logits[s][j])-w))
				scale = math.Max(scale, math.Abs(w))
			}
		}
		if worst > 1e-4 {
			t.Errorf("%s: logits differ from torch by up to %.3g (largest logit %.3g), want ≤ 1e-4", x.name, worst, scale)
		} else {
			t.Logf("%s: max |Δ logit| %.2g (largest logit %.3g)", x.name, worst, scale)
		}
	}
}
