package llmsuite

import (
	"context"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"windtunnel/diagnostics"
	"windtunnel/models/bpe"
	"windtunnel/models/hf"
	"windtunnel/models/llm"
	"windtunnel/sessions"
)

// tiny writes and loads a tiny random model of family fam with a tokenizer trained on Corpus.
func tiny(t testing.TB, fam llm.Family) *llm.Model {
	t.Helper()
	style := bpe.NeoX
	if fam == llm.Llama {
		style = bpe.Llama3
	}
	tok, err := bpe.Synthesize(Corpus(), 1024, style)
	if err != nil {
		t.Fatal(err)
	}
	c := llm.Config{Family: fam, Layers: 3, Hidden: 32, Heads: 4, KVHeads: 4, HeadDim: 8, Intermediate: 64, Vocab: 1024,
		RotaryDim: 4, RopeTheta: 10000, NormEps: 1e-5, ParallelResidual: true, Act: llm.GELU, MaxPositions: 256}
	if fam == llm.Llama {
		c = llm.Config{Family: fam, Layers: 3, Hidden: 32, Heads: 4, KVHeads: 2, HeadDim: 8, Intermediate: 48, Vocab: 1024,
			RotaryDim: 8, RopeTheta: 500000, NormEps: 1e-5, RMSNorm: true, Gated: true, Act: llm.SiLU, TiedEmbeddings: true, MaxPositions: 256}
	}
	dir := filepath.Join(t.TempDir(), string(fam))
	if err := llm.WriteRandom(dir, c, llm.RandomOptions{DType: hf.BF16, Seed: 3, Tokenizer: tok}); err != nil {
		t.Fatal(err)
	}
	m, err := llm.Load(dir, llm.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestRunEveryExperiment(t *testing.T) {
	for _, fam := range []llm.Family{llm.GPTNeoX, llm.Llama} {
		t.Run(string(fam), func(t *testing.T) {
			m := tiny(t, fam)
			stages := map[string]bool{}
			r, err := Run(context.Background(), m, Options{Seed: 5, PerK: 8, User: []string{"one", "two two", "three three three"},
				UserName: "mine", Progress: func(stage string, done, total int) { stages[stage] = true }})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"manifold prompts", "SULA prompts", "entropy-axis cut", "random-axis cut"} {
				if !stages[s] {
					t.Errorf("no progress for %q (%v)", s, stages)
				}
			}
			if len(r.Manifold) != 6 || r.Manifold[0].Name != "mixed" || r.Manifold[5].Name != "mine" || !r.Manifold[1].Domain {
				t.Fatalf("manifold sets %+v", r.Manifold)
			}
			for _, s := range r.Manifold {
				if len(s.Points) != s.N || len(s.Share) != 3 || !(s.Share[0] >= s.Share[1]) {
					t.Errorf("set %s: %d points of %d, shares %v", s.Name, len(s.Points), s.N, s.Share)
				}
			}
			// SULA: 5 shot counts of 8; the entropy error recomputed from a plain pass.
			if len(r.SULA.ByK) != 5 || r.SULA.Manifold.N != 40 || len(r.SULA.Prompts) != 40 {
				t.Fatalf("SULA by k %+v", r.SULA.ByK)
			}
			var seqs [][]int
			for _, p := range r.SULA.Prompts {
				ids, _ := m.Tokenizer.Encode(p.Text, true)
				seqs = append(seqs, ids)
			}
			res, err := m.Forward(context.Background(), llm.Request{Seqs: seqs})
			if err != nil {
				t.Fatal(err)
			}
			var mae float64
			for i, p := range r.SULA.Prompts {
				a, b := float64(res.Logits[i][r.SULA.LabelIDs[0]]), float64(res.Logits[i][r.SULA.LabelIDs[1]])
				q1 := 1 / (1 + math.Exp(b-a))
				mae += math.Abs(diagnostics.Entropy([]float64{q1, 1 - q1}) - diagnostics.Entropy([]float64{float64(p.Posterior[0]), float64(p.Posterior[1])}))
			}
			mae /= float64(len(seqs))
			if math.Abs(mae-float64(r.SULA.EntropyError)) > 1e-9 {
				t.Errorf("SULA entropy error %g, recomputed %g", r.SULA.EntropyError, mae)
			}
			// Keys: the streamed token means agree with diagnostics.KeyOrthogonality over every row.
			checkKeys(t, m, r.Keys.Real, r.Keys.Tokens)
			if r.Keys.Tokens < 10 || !(r.Keys.Random > 0 && r.Keys.Random < 1) || !(r.Keys.Proxy > 0 && r.Keys.Proxy < 1) || r.Keys.ProxyTokens != 100 {
				t.Errorf("keys: %d tokens, random %g, proxy %g of %d", r.Keys.Tokens, r.Keys.Random, r.Keys.Proxy, r.Keys.ProxyTokens)
			}
			if len(r.Keys.Real) != 3 || len(r.Keys.Real[0]) != m.Config.KVHeads {
				t.Errorf("keys grid %d×%d", len(r.Keys.Real), len(r.Keys.Real[0]))
			}
			// Focus: per layer and head, within [0, log2 of the longest prompt].
			all := r.SULA.Manifold.N
			for _, s := range r.Manifold {
				all += s.N
			}
			if len(r.Focus.Entropy) != 3 || len(r.Focus.Entropy[0]) != 4 || r.Focus.Prompts != all {
				t.Errorf("focus %d×%d over %d prompts", len(r.Focus.Entropy), len(r.Focus.Entropy[0]), r.Focus.Prompts)
			}
			for _, row := range r.Focus.Entropy {
				for _, h := range row {
					if !(h >= 0 && float64(h) <= math.Log2(256)) {
						t.Errorf("attention entropy %g", h)
					}
				}
			}
			// Axis: the entropy axis rises with the model's entropy by construction.
			if r.Axis.Layer != 2 || !(r.Axis.Base.AxisCorr >= 0) || !(r.Axis.SD > 0) {
				t.Errorf("axis %+v", r.Axis)
			}
			if r.Tokens == 0 || r.WallS <= 0 {
				t.Errorf("tokens %d wall %g", r.Tokens, r.WallS)
			}
		})
	}
}

// checkKeys recomputes key orthogonality on the suite's baseline prompts with every key row
// kept and diagnostics.KeyOrthogonality forming the token means.
func checkKeys(t *testing.T, m *llm.Model, real [][]sessions.Num, n int) {
	t.Helper()
	sets, err := manifoldSets(m, Options{User: []string{"one", "two two", "three three three"}})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sulaPrompts(m, Options{Seed: 5, PerK: 8}, false)
	if err != nil {
		t.Fatal(err)
	}
	var seqs [][]int
	for _, s := range sets {
		seqs = append(seqs, s.seqs...)
	}
	seqs = append(seqs, sp.seqs...)
	g := newGeometry(m, seqs, 100)
	keep := func(tok int) bool { _, ok := g.slot[tok]; return ok }
	c := m.Config
	kv := c.KVHeads * c.HeadDim
	rows := make([][]float64, c.Layers)
	var toks []int
	_, err = m.Forward(context.Background(), llm.Request{Seqs: seqs, Taps: &llm.Taps{KV: func(l int, ch *llm.Chunk, k, _ []float32) {
		for i := range ch.Seqs {
			for r := ch.Start[i] + 1; r < ch.Start[i+1]; r++ {
				if l == 0 {
					toks = append(toks, ch.Tokens[r])
				}
				for _, v := range k[r*kv : (r+1)*kv] {
					rows[l] = append(rows[l], float64(v))
				}
			}
		}
	}}})
	if err != nil {
		t.Fatal(err)
	}
	for l := range c.Layers {
		want, err := diagnostics.KeyOrthogonality(rows[l], toks, len(toks), kv, c.KVHeads, keep, false)
		if err != nil {
			t.Fatal(err)
		}
		for h, w := range want {
			if math.Abs(float64(real[l][h])-w) > 1e-9 {
				t.Errorf("layer %d head %d: key orthogonality %g, KeyOrthogonality %g", l, h, real[l][h], w)
			}
		}
	}
}

func TestRunOptionErrors(t *testing.T) {
	m := tiny(t, llm.GPTNeoX)
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Experiments: []string{"manifold", "vibes"}}, `unknown experiment "vibes"`},
		{Options{AxisLayer: 7}, "axis layer 7"},
		{Options{Experiments: []string{"manifold"}, User: []string{strings.Repeat("word ", 400)}}, "user prompt 1 is"},
	} {
		if _, err := Run(context.Background(), m, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.opt.Experiments, err, c.want)
		}
	}
	// A cancelled context stops the run.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, m, Options{Experiments: []string{"focus"}}); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

func TestAnalyzer(t *testing.T) {
	m := tiny(t, llm.Llama)
	a, err := NewAnalyzer(context.Background(), m, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	labels := a.sp.labels
	prompt := "river: " + labels[0] + ", candle: " + labels[0] + ", lemon: " + labels[1] + ". window:"
	r, err := a.Analyze(context.Background(), prompt)
	if err != nil {
		t.Fatal(err)
	}
	if r.SULA == nil || r.SULA.N != [2]int{2, 1} || math.Abs(r.SULA.Exact[0]-0.9) > 1e-12 {
		t.Fatalf("SULA view %+v", r.SULA)
	}
	ids, _ := m.Tokenizer.Encode(prompt, true)
	res, _ := m.Forward(context.Background(), llm.Request{Seqs: [][]int{ids}})
	a0, b0 := float64(res.Logits[0][a.sp.ids[0]]), float64(res.Logits[0][a.sp.ids[1]])
	if want := 1 / (1 + math.Exp(b0-a0)); math.Abs(r.SULA.Model[0]-want) > 1e-12 {
		t.Errorf("model p(L1) %g, want %g", r.SULA.Model[0], want)
	}
	if len(r.Focus) != m.Config.Layers || len(r.Top) != 10 || !(r.Top[0].P >= r.Top[9].P) || r.Axis == nil || !(r.Axis.Max > r.Axis.Min) {
		t.Errorf("analysis %+v", r)
	}
	if math.Abs(r.Uniform-math.Log2(float64(len(ids)))) > 1e-12 || strings.Join(r.Tokens, "") != "<|begin_of_text|>"+prompt {
		t.Errorf("uniform %g tokens %q", r.Uniform, r.Tokens)
	}
	if r, _ := a.Analyze(context.Background(), "The capital of France is"); r.SULA != nil {
		t.Error("a free prompt read as SULA")
	}
	if a.Example(0) == "" || !strings.Contains(a.Describe(), "llama") {
		t.Errorf("example %q describe %q", a.Example(0), a.Describe())
	}
	// tab cycles over k: the first presses show k = 0, 1, 2, …, not every k = 0 prompt first.
	kOf := map[string]int{}
	ks := map[int]bool{}
	for _, p := range a.sp.ps {
		kOf[p.Text], ks[p.K] = p.K, true
	}
	sorted := slices.Sorted(maps.Keys(ks))
	for i, want := range sorted {
		if k := kOf[a.Example(i)]; k != want {
			t.Errorf("press %d shows a prompt with k = %d, want %d (the ks: %v)", i+1, k, want, sorted)
		}
	}
	seen := map[string]bool{}
	for i := range len(a.sp.ps) {
		seen[a.Example(i)] = true
	}
	if len(seen) != len(kOf) {
		t.Errorf("%d presses show %d of the %d prompts", len(a.sp.ps), len(seen), len(kOf))
	}
}
