package sula

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// joint is the generative model's probability of latent y and the label sequence labels,
// written from its definition: a uniform prior, each label y with probability α.
func joint(y int, labels []int, alpha float64) float64 {
	p := 0.5
	for _, l := range labels {
		if l == y {
			p *= alpha
		} else {
			p *= 1 - alpha
		}
	}
	return p
}

// TestPosteriorBruteForce enumerates every label sequence of up to 10 examples and checks
// Posterior against p(y | labels) = joint(y, labels) / Σ_y' joint(y', labels).
func TestPosteriorBruteForce(t *testing.T) {
	for _, alpha := range []float64{0.9, 0.6, 0.99} {
		for k := 0; k <= 10; k++ {
			for mask := 0; mask < 1<<k; mask++ {
				labels := make([]int, k)
				n := [2]int{}
				for i := range labels {
					labels[i] = mask >> i & 1
					n[labels[i]]++
				}
				j0, j1 := joint(0, labels, alpha), joint(1, labels, alpha)
				got := Posterior(n[0], n[1], alpha)
				if math.Abs(got[0]-j0/(j0+j1)) > 1e-12 || math.Abs(got[0]+got[1]-1) > 1e-15 {
					t.Fatalf("alpha %g labels %v: %v, want %g", alpha, labels, got, j0/(j0+j1))
				}
			}
		}
	}
}

// TestGeneratorSamplesTheModel checks that the generator draws from the model the posterior
// describes: among many prompts with the same label counts, the share whose latent label is
// L1 matches Posterior within 4 standard errors.
func TestGeneratorSamplesTheModel(t *testing.T) {
	ps, err := Generate(Config{Ks: []int{3}, PerK: 60000, Alpha: Alpha, Seed: 1, Labels: [2]string{"dax", "wug"}})
	if err != nil {
		t.Fatal(err)
	}
	type tally struct{ l1, n int }
	by := map[int]*tally{}
	for _, p := range ps {
		n1 := 0
		for _, e := range p.Examples {
			if e.Label == 0 {
				n1++
			}
		}
		if by[n1] == nil {
			by[n1] = &tally{}
		}
		by[n1].n++
		if p.Latent == 0 {
			by[n1].l1++
		}
	}
	for n1, tl := range by {
		want := Posterior(n1, 3-n1, Alpha)[0]
		got := float64(tl.l1) / float64(tl.n)
		se := math.Sqrt(want * (1 - want) / float64(tl.n))
		if math.Abs(got-want) > 4*se+1e-9 {
			t.Errorf("n1=%d: latent L1 in %.4f of %d prompts, posterior %.4f (se %.4f)", n1, got, tl.n, want, se)
		}
	}
}

func TestGenerateFormatAndSeed(t *testing.T) {
	cfg := Config{Ks: Ks, PerK: PerK, Alpha: Alpha, Seed: 42, Labels: [2]string{"dax", "wug"}}
	a, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(cfg)
	if len(a) != 250 || !slices.EqualFunc(a, b, func(x, y Prompt) bool { return x.Text == y.Text }) {
		t.Fatalf("%d prompts, or not reproducible", len(a))
	}
	cfg.Seed = 43
	c, _ := Generate(cfg)
	if slices.EqualFunc(a, c, func(x, y Prompt) bool { return x.Text == y.Text }) {
		t.Error("another seed drew the same set")
	}
	for _, p := range a {
		if p.K == 0 {
			if p.Text != p.TestWord+":" || p.Posterior != [2]float64{0.5, 0.5} {
				t.Errorf("k=0: %q %v", p.Text, p.Posterior)
			}
			continue
		}
		if !strings.HasSuffix(p.Text, ". "+p.TestWord+":") || strings.Count(p.Text, ", ")+1 != p.K || len(p.Examples) != p.K {
			t.Errorf("k=%d: %q", p.K, p.Text)
		}
		for _, e := range p.Examples {
			if !strings.Contains(p.Text, e.Word+": "+cfg.Labels[e.Label]) {
				t.Errorf("%q lacks %s: %s", p.Text, e.Word, cfg.Labels[e.Label])
			}
		}
	}
	for _, bad := range []Config{
		{Ks: Ks, PerK: 1, Alpha: 1, Labels: [2]string{"a", "b"}},
		{Ks: Ks, PerK: 1, Alpha: 0.9, Labels: [2]string{"a", "a"}},
		{Ks: []int{-1}, PerK: 1, Alpha: 0.9, Labels: [2]string{"a", "b"}},
		{Ks: Ks, PerK: 0, Alpha: 0.9, Labels: [2]string{"a", "b"}},
	} {
		if _, err := Generate(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestLabels(t *testing.T) {
	// A tokenizer for which only "wug" and "zorb" (and "fep", later) are single tokens.
	single := map[string]int{" wug": 7, " zorb": 9, " fep": 11}
	enc := func(s string) ([]int, error) {
		if id, ok := single[s]; ok {
			return []int{id}, nil
		}
		return []int{1, 2}, nil
	}
	labels, ids, err := Labels(enc)
	if err != nil || labels != [2]string{"wug", "fep"} || ids != [2]int{7, 11} {
		t.Errorf("Labels = %v %v %v", labels, ids, err)
	}
	if _, _, err := Labels(func(string) ([]int, error) { return []int{1, 2}, nil }); err == nil {
		t.Error("no single-token labels: no error")
	}
	// Without single-token candidates the syllables are tried in order.
	labels, ids, err = Labels(func(s string) ([]int, error) {
		switch s {
		case " zorb":
			return []int{5}, nil
		case " bef":
			return []int{6}, nil
		case " bab":
			return []int{5}, nil // the same token as zorb: not a second label
		}
		return []int{1, 2}, nil
	})
	if err != nil || labels != [2]string{"zorb", "bef"} || ids != [2]int{5, 6} {
		t.Errorf("fallback Labels = %v %v %v", labels, ids, err)
	}
}

func TestParse(t *testing.T) {
	labels := [2]string{"dax", "wug"}
	for _, c := range []struct {
		text   string
		n1, n2 int
		ok     bool
	}{
		{"river: dax, window: dax, candle: wug. lemon:", 2, 1, true},
		{"lemon:", 0, 0, true},
		{"river: daxes, lemon: wug.", 0, 1, false},
		{"The capital of France is", 0, 0, false},
	} {
		n1, n2, ok := Parse(c.text, labels)
		if n1 != c.n1 || n2 != c.n2 || ok != c.ok {
			t.Errorf("Parse(%q) = %d, %d, %v; want %d, %d, %v", c.text, n1, n2, ok, c.n1, c.n2, c.ok)
		}
	}
	// Every generated prompt parses to its own counts.
	ps, _ := Generate(Config{Ks: Ks, PerK: 20, Alpha: Alpha, Seed: 3, Labels: labels})
	for _, p := range ps {
		n1, n2, ok := Parse(p.Text, labels)
		if !ok || Posterior(n1, n2, Alpha) != p.Posterior {
			t.Errorf("%q parsed to %d, %d, %v", p.Text, n1, n2, ok)
		}
	}
}

// TestTestWordNeverAnExample checks that no prompt offers its test word among its examples
// (an answer to copy), over many prompts of every k.
func TestTestWordNeverAnExample(t *testing.T) {
	ps, err := Generate(Config{Ks: []int{1, 2, 4, 8, 16}, PerK: 2000, Alpha: Alpha, Seed: 9, Labels: [2]string{"dax", "wug"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		for _, e := range p.Examples {
			if e.Word == p.TestWord {
				t.Fatalf("prompt %q offers its test word %q as an example", p.Text, p.TestWord)
			}
		}
	}
}

// TestLabelSetSkipsWords gives a tokenizer for which only three-letter strings are single
// tokens: the labels must be the first syllables that are not English words.
func TestLabelSetSkipsWords(t *testing.T) {
	encode := func(s string) ([]int, error) {
		w := strings.TrimPrefix(s, " ")
		if len(w) != 3 {
			return []int{1, 2}, nil
		}
		return []int{int(w[0])<<16 | int(w[1])<<8 | int(w[2])}, nil
	}
	labels, _, err := LabelSet(encode, 5)
	if err != nil {
		t.Fatal(err)
	}
	// dax, wug, fep, kep and tuv are candidates of three letters; none is a word.
	if want := []string{"dax", "wug", "fep", "mip", "tuv"}; !slices.Equal(labels, want) {
		t.Fatalf("labels %v, want %v", labels, want)
	}
	// Without the candidates, the syllables: "bab" is not a word, "bad", "bag", "bah" are.
	cvcOnly := func(s string) ([]int, error) {
		if slices.Contains(Candidates, strings.TrimPrefix(s, " ")) {
			return []int{1, 2}, nil
		}
		return encode(s)
	}
	labels, _, err = LabelSet(cvcOnly, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range labels {
		if IsWord(l) {
			t.Errorf("label %q is an English word", l)
		}
	}
	if want := []string{"bab", "bac", "baf"}; !slices.Equal(labels, want) {
		t.Fatalf("labels %v, want %v", labels, want)
	}
	for _, w := range []string{"bad", "cat", "dog", "sun"} {
		if !IsWord(w) {
			t.Errorf("IsWord(%q) = false", w)
		}
	}
}

// TestRemapAndAblate checks the two prompt controls: the remap keeps the evidence and the
// posterior and changes only the labels; the ablation keeps the words and the shape, removes
// every label and makes the posterior uniform.
func TestRemapAndAblate(t *testing.T) {
	ps, err := Generate(Config{Ks: []int{0, 3}, PerK: 20, Alpha: Alpha, Seed: 2, Labels: [2]string{"dax", "wug"}})
	if err != nil {
		t.Fatal(err)
	}
	re := Remap(ps, [2]string{"fep", "tuv"})
	ab := Ablate(ps, "kep")
	for i, p := range ps {
		want := strings.NewReplacer(": dax", ": fep", ": wug", ": tuv").Replace(p.Text)
		if re[i].Text != want || re[i].Posterior != p.Posterior {
			t.Fatalf("remap of %q: %q %v", p.Text, re[i].Text, re[i].Posterior)
		}
		want = strings.NewReplacer(": dax", ": kep", ": wug", ": kep").Replace(p.Text)
		if ab[i].Text != want || ab[i].Posterior != [2]float64{0.5, 0.5} {
			t.Fatalf("ablation of %q: %q %v", p.Text, ab[i].Text, ab[i].Posterior)
		}
		if p.Text != Render(p, [2]string{"dax", "wug"}) {
			t.Fatalf("Render(%q) = %q", p.Text, Render(p, [2]string{"dax", "wug"}))
		}
	}
}
