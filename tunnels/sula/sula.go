package sula

import (
	"fmt"
	"math"
	"math/rand/v2"
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

// draw is prompt i of shot count k.
func draw(cfg Config, k, i int) Prompt {
	r := rand.New(rand.NewPCG(cfg.Seed^0x5eed5a1a, uint64(k)<<32|uint64(i)))
	p := Prompt{K: k, Index: i, TestWord: Carriers[r.IntN(len(Carriers))], Latent: r.IntN(2)}
	var n [2]int
	parts := make([]string, 0, k)
	for range k {
		lab := p.Latent
		if r.Float64() >= cfg.Alpha {
			lab = 1 - lab
		}
		w := Carriers[r.IntN(len(Carriers))]
		p.Examples = append(p.Examples, Example{Word: w, Label: lab})
		parts = append(parts, w+": "+cfg.Labels[lab])
		n[lab]++
	}
	if k == 0 {
		p.Text = p.TestWord + ":"
	} else {
		p.Text = strings.Join(parts, ", ") + ". " + p.TestWord + ":"
	}
	p.Posterior = Posterior(n[0], n[1], cfg.Alpha)
	return p
}

// Labels returns the first two Candidates that encode (with a leading space, as they follow
// "word:") to a single token under encode, with those tokens' ids; when fewer than two do,
// it goes on through the consonant–vowel–consonant syllables in order ("bab", "bac", …), as
// the authors' own search did. No two single-token labels at all is an error.
func Labels(encode func(string) ([]int, error)) (labels [2]string, ids [2]int, err error) {
	n := 0
	try := func(c string) (bool, error) {
		toks, err := encode(" " + c)
		if err != nil {
			return false, fmt.Errorf("sula: encode %q: %w", " "+c, err)
		}
		if len(toks) != 1 || (n == 1 && (toks[0] == ids[0] || c == labels[0])) {
			return false, nil
		}
		labels[n], ids[n] = c, toks[0]
		n++
		return n == 2, nil
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
	return labels, ids, fmt.Errorf("sula: fewer than two of the candidate labels %v, or of the consonant-vowel-consonant syllables, are single tokens for this tokenizer", Candidates)
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
