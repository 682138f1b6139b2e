package reports

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"windtunnel/sessions"
	"windtunnel/sessions/llmrun"
)

// Paper III's numbers (arXiv 2512.23752) and its authors' code's, that the llm report holds
// a model's measurements against.
const (
	// paperMixedPC1 and paperMixedRho are Pythia-410M's value manifold over 13 mixed prompts.
	paperMixedPC1, paperMixedRho = 0.146, -0.59
	// strongRho is the authors' scripts' line for a strong PC1–entropy correlation.
	strongRho = 0.5
	// domainRhoLo, domainRhoHi are the single-domain |ρ(PC1, H)| range.
	domainRhoLo, domainRhoHi = 0.65, 0.80
	// paperSULAPC1, paperSULARho are Pythia-410M's SULA manifold over 150 prompts.
	paperSULAPC1, paperSULARho = 0.264, -0.765
	// entropyErrorTol is how far a SULA entropy error may sit from the paper's and agree.
	entropyErrorTol = 0.1
	// keysTol widens the paper's key-orthogonality ranges.
	keysTol = 0.02
	// axisBase, axisCut are the axis–entropy correlation before and after the cut;
	// calibrationMove the most the calibration moved.
	axisBase, axisCut, calibrationMove = 0.27, 0.07, 0.01
)

// paperEntropyError is the SULA entropy error in bits by family.
var paperEntropyError = map[string]float64{"gpt_neox": 0.44, "llama": 0.36, "phi": 0.31}

// paperKeys is the key-orthogonality range by family.
var paperKeys = map[string][2]float64{"gpt_neox": {0.11, 0.13}, "phi": {0.034, 0.051}, "llama": {0.15, 0.18}}

// paperModel names the paper's model of a family.
var paperModel = map[string]string{"gpt_neox": "Pythia-410M", "llama": "Llama-3.2-1B", "phi": "Phi-2", "mistral": "Mistral-7B"}

// orNone is s, or "—" when empty.
func orNone(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// share is the set's i-th variance share (0 when absent).
func share(s *llmrun.Set, i int) float64 {
	if i >= len(s.Share) || math.IsNaN(float64(s.Share[i])) {
		return 0
	}
	return float64(s.Share[i])
}

func numText(v float64) string {
	if math.IsNaN(v) {
		return "undefined (no variance left)"
	}
	return fmt.Sprintf("%.2f", v)
}

// WriteLLM writes DIR/report.md for the record r (read from recordPath), with figs embedded,
// and returns its path.
func WriteLLM(r *llmrun.Result, recordPath, dir string, figs []Figure) (string, error) {
	var b strings.Builder
	m := r.Model
	b.WriteString("# Paper III report: " + sessions.SafeText(filepath.Base(m.Dir)) + "\n\n")
	b.WriteString("Paper III: \"Geometric Scaling of Bayesian Inference in LLMs\" (arXiv 2512.23752). Each claim the bench's\n" +
		"measurements touch, the paper's number (and the authors' code's, where their repository records one), this\n" +
		"model's and its nulls' — the same measurements on models that learnt nothing (random-weight copies of this\n" +
		"configuration, the constant-label and uniform predictors) and under the paper's controls (shuffled labels,\n" +
		"evidence ablation; the lexical remap as a replicate). A verdict is *reproduced* only when the model meets the\n" +
		"paper's criterion, no null does, and the model beats each null by the row's margin; *consistent, not\n" +
		"diagnostic* when it meets the criterion but a null does too (or no null was measured); *not reproduced*\n" +
		"when it does not meet it (docs/paper3.md: Verdicts a null cannot earn).\n\n")
	fmt.Fprintf(&b, "Model: `%s`, %s, %d layers, hidden %d, %d heads (%d key/value) of %d, vocabulary %d, %d parameters (%s), computed with %s on the CPU.\n\n",
		sessions.SafeText(m.Dir), m.Family, m.Layers, m.Hidden, m.Heads, m.KVHeads, m.HeadDim, m.Vocab, m.Params, m.DType, m.Backend)
	fmt.Fprintf(&b, "Record: `%s`; %d tokens in %.0f s; seed %d; command: `%s`.\n\n", sessions.SafeText(recordPath), r.Tokens, r.WallS, r.Seed, sessions.SafeText(r.Command))
	if n := r.Nulls; n == nil {
		b.WriteString("**No nulls were measured** (`--nulls none`, or a record of version 1): every verdict is undiagnosed, and none reads reproduced.\n\n")
	} else {
		fmt.Fprintf(&b, "Nulls: %s.", strings.Join(n.Kinds, ", "))
		if len(n.Random) > 0 {
			fmt.Fprintf(&b, " %d random-weight copies were measured (seeds %v; weight σ %v, 0 meaning variance-preserving N(0, 1/fan-in)), costing %.0f s.", len(n.Random), n.RandomSeeds, n.RandomInits, n.RandomWallS)
		}
		if n.ControlsWallS > 0 {
			fmt.Fprintf(&b, " The controls cost %.0f s.", n.ControlsWallS)
		}
		b.WriteString("\n\n")
	}
	b.WriteString("| # | claim | paper | authors' code | this model | nulls | verdict | reason |\n|---|---|---|---|---|---|---|---|\n")
	for i, row := range LLMRows(r) {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s |\n", i+1, cell(row.Claim), cell(row.Paper), cell(row.Authors), cell(row.Measured), cell(orNone(row.Nulls)), row.Verdict, cell(row.Reason))
	}
	b.WriteString("\n## How each number is measured\n\n" + llmMethods + "\n")
	for _, w := range r.Warnings {
		b.WriteString("- warning: " + sessions.SafeText(w) + "\n")
	}
	writeFigures(&b, dir, figs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	path := filepath.Join(dir, FileName)
	if err := sessions.WriteOutput(path, []byte(b.String()), 0o644); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	return path, nil
}

// llmMethods says how the numbers are measured, and where the bench departs from the
// authors' scripts.
const llmMethods = `- Value manifold: the final norm's output at each prompt's last position (the authors' hidden_states[-1]),
  each dimension standardised, then PCA; ρ is Spearman's between PC1 and the model's next-token entropy (bits).
  The prompt sets are this project's (tunnels/prompts): a mixed set of 60 and single-domain sets of 50 or more.
- SULA: k ∈ {0, 1, 2, 4, 8} examples, α = 0.9; the model's distribution is its softmax restricted to the two label
  tokens and renormalised; the entropy error is the mean over prompts of |H(model) − H(posterior)|. The PCA is over
  the same hidden states against the posterior's entropy.
- Keys: the paper's statistic (§4.2), per layer the mean |cos| between the columns of each key/value head's W_K (one
  vector of the residual width per key dimension), averaged over heads, beside Gaussian vectors of that shape. The
  bench's own statistic is shown too: the real keys (before the rotary embedding) averaged per token over the prompts
  for the 100 most frequent tokens, the mean |cos| between those token means; and the authors' script's proxy, token
  embeddings, one number for every layer.
- Nulls: the random-weight copy has this model's configuration and tokenizer, its weights drawn as the architecture
  initialises them, and is measured by the same code on the same prompts. The constant-label predictor answers the
  first label with certainty, the uniform one ½–½. Shuffled labels: the model's own label distributions and SULA
  hidden states scored against the posteriors permuted within each k (the evidence broken, the prompt's length kept;
  20 permutations). Evidence ablation: every example's label replaced by a fifth nonsense label (the same words and
  length, no evidence), its hidden states projected on the SULA manifold's PC1. Lexical remap: the same prompts with
  two other nonsense labels; a claim must hold there too.
- Focus: the entropy of each head's attention weights at the last position, averaged over the prompts.
- Axis ablation (the paper's protocol): at each of the last five layers (never layer 0) the values at SULA's last
  position are standardised per dimension and the entropy axis is their PC1, signed to rise with the model's entropy;
  the axis is projected out of every position's standardised values at all five layers at once, and separately a
  random axis orthogonalised against each layer's entropy axis. The criterion is measured downstream of the cut: the
  final hidden states' |ρ(PC1, posterior entropy)|. The values' own correlation with the axis, the authors'
  statistic, is shown but not judged: after the cut the values have nothing left on the axis, so it is zero by
  construction.
`

// WriteLLMVerdicts prints the claims of r (LLMRows) as `windtunnel llm` does: a numbered
// verdict a claim with the paper's number and the model's, its nulls below, and a line when
// no null was measured.
func WriteLLMVerdicts(w io.Writer, r *llmrun.Result) error {
	for i, row := range LLMRows(r) {
		fmt.Fprintf(w, "%2d. %-26s %s\n    paper: %s; this model: %s\n", i+1, row.Verdict, sessions.SafeText(row.Claim), sessions.SafeText(row.Paper), sessions.SafeText(orNone(row.Measured)))
		if row.Nulls != "" {
			fmt.Fprintf(w, "    nulls: %s\n", sessions.SafeText(row.Nulls))
		}
	}
	if r.Nulls == nil {
		_, err := fmt.Fprintln(w, "no nulls measured (--nulls none): every verdict is undiagnosed")
		return err
	}
	return nil
}
