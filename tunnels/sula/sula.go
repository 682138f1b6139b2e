package sula

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Alpha is the probability that an example's label is the test word's latent label.
const Alpha = 0.9

// Ks are the shot counts of the paper's set.
var Ks = []int{0, 1, 2, 4, 8}

// PerK is the number of prompts per shot count in the paper's set.
const PerK = 50

// Carriers are the example and test words: neutral nouns, none of which is evidence.
var Carriers = []string{
	"river", "window", "candle", "garden", "pencil", "mountain", "bottle", "ladder",
	"basket", "mirror", "blanket", "engine", "harbor", "lantern", "meadow", "needle",
	"orchard", "pillow", "saddle", "tunnel", "violin", "wagon", "anchor", "barrel",
	"cabinet", "desert", "feather", "glacier", "hammer", "island", "jacket", "kettle",
	"lemon", "marble", "napkin", "ocean", "puzzle", "quarry", "ribbon", "shovel",
}

// Candidates are the nonsense labels tried in order; the first two that are single tokens
// for the model's tokenizer are used.
var Candidates = []string{"dax", "wug", "blick", "fep", "zorb", "kiki", "toma", "gazzer", "lorp", "mip", "tuv", "kep"}

// Example is one shot: a carrier word and its label (0 for L1, 1 for L2).
type Example struct {
	Word  string `json:"word"`
	Label int    `json:"label"`
}

// Prompt is one SULA prompt with its exact posterior.
type Prompt struct {
	K        int       `json:"k"`
	Index    int       `json:"index"`
	Text     string    `json:"text"`
	TestWord string    `json:"test_word"`
	Examples []Example `json:"examples"`
	// Latent is the test word's drawn label (0: L1, 1: L2).
	Latent int `json:"latent"`
	// Posterior is p(L1), p(L2) given the examples' labels.
	Posterior [2]float64 `json:"posterior"`
}

// Config is a SULA set to draw.
type Config struct {
	Ks     []int
	PerK   int
	Alpha  float64
	Seed   uint64
	Labels [2]string
}

// Posterior returns the exact posterior over the test word's label, [p(L1), p(L2)], given
// n1 examples labelled L1 and n2 labelled L2, with a uniform prior and each label equal to
// the latent one with probability alpha (0 < alpha < 1).
func Posterior(n1, n2 int, alpha float64) [2]float64 {
	// log-odds of L1: (n1 − n2)·log(α/(1−α)).
	lo := float64(n1-n2) * math.Log(alpha/(1-alpha))
	p1 := 1 / (1 + math.Exp(-lo))
	return [2]float64{p1, 1 - p1}
}

// Generate draws cfg.PerK prompts for each k of cfg.Ks: prompt i of shot count k is a pure
// function of (Seed, k, i). Labels must be two distinct non-empty words, Alpha in (0, 1).
func Generate(cfg Config) ([]Prompt, error) {
	if cfg.Labels[0] == "" || cfg.Labels[1] == "" || cfg.Labels[0] == cfg.Labels[1] {
		return nil, fmt.Errorf("sula: labels %q: want two distinct words", cfg.Labels)
	}
	if !(cfg.Alpha > 0 && cfg.Alpha < 1) {
		return nil, fmt.Errorf("sula: alpha %g outside (0, 1)", cfg.Alpha)
	}
	if cfg.PerK <= 0 || cfg.PerK > 100000 {
		return nil, fmt.Errorf("sula: %d prompts per k, want 1..100000", cfg.PerK)
	}
	var out []Prompt
	for _, k := range cfg.Ks {
		if k < 0 || k > 64 {
			return nil, fmt.Errorf("sula: k = %d outside [0, 64]", k)
		}
		for i := range cfg.PerK {
			out = append(out, draw(cfg, k, i))
		}
	}
	return out, nil
}

// draw is prompt i of shot count k. The examples' carrier words are never the test word, so
// the answer is never there to copy.
func draw(cfg Config, k, i int) Prompt {
	r := rand.New(rand.NewPCG(cfg.Seed^0x5eed5a1a, uint64(k)<<32|uint64(i)))
	test := r.IntN(len(Carriers))
	p := Prompt{K: k, Index: i, TestWord: Carriers[test], Latent: r.IntN(2)}
	var n [2]int
	for range k {
		lab := p.Latent
		if r.Float64() >= cfg.Alpha {
			lab = 1 - lab
		}
		w := r.IntN(len(Carriers) - 1)
		if w >= test {
			w++
		}
		p.Examples = append(p.Examples, Example{Word: Carriers[w], Label: lab})
		n[lab]++
	}
	p.Text = Render(p, cfg.Labels)
	p.Posterior = Posterior(n[0], n[1], cfg.Alpha)
	return p
}

// Render is p's text with labels[0] for L1 and labels[1] for L2: "w1: L, …. test:", or
// "test:" without examples.
func Render(p Prompt, labels [2]string) string {
	if len(p.Examples) == 0 {
		return p.TestWord + ":"
	}
	parts := make([]string, len(p.Examples))
	for i, e := range p.Examples {
		parts[i] = e.Word + ": " + labels[e.Label]
	}
	return strings.Join(parts, ", ") + ". " + p.TestWord + ":"
}

// Remap returns ps with their texts written with another pair of labels (Paper III's
// lexical remap): the same evidence, so the same posteriors.
func Remap(ps []Prompt, labels [2]string) []Prompt {
	out := slices.Clone(ps)
	for i := range out {
		out[i].Text = Render(out[i], labels)
	}
	return out
}

// Ablate returns ps with every example's label replaced by filler (Paper III's evidence
// ablation): the prompts keep their words, their shape and their length in tokens, but carry
// no evidence, so every posterior is uniform.
func Ablate(ps []Prompt, filler string) []Prompt {
	out := slices.Clone(ps)
	for i := range out {
		out[i].Text = Render(out[i], [2]string{filler, filler})
		out[i].Posterior = [2]float64{0.5, 0.5}
	}
	return out
}

// Labels returns the first two labels of LabelSet with their token ids.
func Labels(encode func(string) ([]int, error)) (labels [2]string, ids [2]int, err error) {
	ls, is, err := LabelSet(encode, 2)
	if err != nil {
		return labels, ids, err
	}
	return [2]string{ls[0], ls[1]}, [2]int{is[0], is[1]}, nil
}

// LabelSet returns n distinct labels, each a single token under encode (with a leading space,
// as a label follows "word:"), with their ids: the Candidates in order, then the
// consonant–vowel–consonant syllables ("bab", "bac", …), as the authors' own search went on,
// skipping every English word among them (IsWord) so that no label brings a meaning of its
// own. Fewer than n such labels is an error.
func LabelSet(encode func(string) ([]int, error), n int) ([]string, []int, error) {
	var labels []string
	var ids []int
	try := func(c string) (bool, error) {
		if IsWord(c) {
			return false, nil
		}
		toks, err := encode(" " + c)
		if err != nil {
			return false, fmt.Errorf("sula: encode %q: %w", " "+c, err)
		}
		if len(toks) != 1 || slices.Contains(ids, toks[0]) || slices.Contains(labels, c) {
			return false, nil
		}
		labels, ids = append(labels, c), append(ids, toks[0])
		return len(labels) == n, nil
	}
	for _, c := range Candidates {
		if done, err := try(c); err != nil || done {
			return labels, ids, err
		}
	}
	const consonants, vowels = "bcdfghjklmnpqrstvwxz", "aeiou"
	for _, a := range consonants {
		for _, v := range vowels {
			for _, b := range consonants {
				if done, err := try(string([]rune{a, v, b})); err != nil || done {
					return labels, ids, err
				}
			}
		}
	}
	return labels, ids, fmt.Errorf("sula: %d of the candidate labels %v and of the consonant-vowel-consonant syllables that are not English words are single tokens for this tokenizer, want %d", len(labels), Candidates, n)
}

// Parse reads a SULA-shaped prompt typed by hand: it counts the examples labelled L1 and
// L2 (": L1" and ": L2" followed by a comma, a full stop or the end) and reports whether the
// prompt ends as SULA's do, with "word:" waiting for a label.
func Parse(text string, labels [2]string) (n1, n2 int, ok bool) {
	t := strings.TrimSpace(text)
	count := func(l string) int {
		n := 0
		for _, sep := range []string{",", ".", ";"} {
			n += strings.Count(t, ": "+l+sep)
		}
		return n
	}
	return count(labels[0]), count(labels[1]), strings.HasSuffix(t, ":")
}
