package reports

import (
	"fmt"
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

// LLMRows are Paper III's claims that the record's measurements touch, each with the
// paper's number, the authors' code's where known, the model's and a verdict.
func LLMRows(r *llmrun.Result) []Row {
	var rows []Row
	fam := r.Model.Family
	cfg := fmt.Sprintf("%s, %d layers × %d, %d heads (%d key/value), %s", fam, r.Model.Layers, r.Model.Hidden, r.Model.Heads, r.Model.KVHeads, r.Model.DType)
	add := func(row Row) { row.Config = cfg; rows = append(rows, row) }
	has := func(e string) bool {
		for _, x := range r.Experiments {
			if x == e {
				return true
			}
		}
		return false
	}
	notMeasured := func(claim, paper, authors, why string) Row {
		return Row{Claim: claim, Paper: paper, Authors: authors, Verdict: NotMeasured, Reason: why}
	}
	// Value manifold.
	mixedClaim := "Last-layer representations of mixed prompts order along PC1 by next-token entropy (|ρ(PC1, H)| ≥ 0.5)"
	var mixed *llmrun.Set
	var domains []llmrun.Set
	for i, s := range r.Manifold {
		if s.Name == "mixed" {
			mixed = &r.Manifold[i]
		} else if s.Domain {
			domains = append(domains, s)
		}
	}
	paperMixed := fmt.Sprintf("Pythia-410M, 13 prompts: PC1 %.1f%%, ρ %.2f", 100*paperMixedPC1, paperMixedRho)
	authorsMixed := "PC1 14.6%, ρ −0.593 (geometry_results.json)"
	switch {
	case !has("manifold"):
		add(notMeasured(mixedClaim, paperMixed, authorsMixed, "manifold not run (--experiments)"))
	case mixed == nil:
		add(notMeasured(mixedClaim, paperMixed, authorsMixed, "the mixed set could not be measured (see warnings)"))
	default:
		rho := math.Abs(float64(mixed.Spearman))
		add(verdictRow(Row{Claim: mixedClaim, Paper: paperMixed, Authors: authorsMixed,
			Measured: fmt.Sprintf("%d prompts: PC1 %.1f%%, ρ %+.2f", mixed.N, 100*share(mixed, 0), float64(mixed.Spearman))},
			rho >= strongRho, fmt.Sprintf("|ρ| %.2f %s %.2f", rho, cmpWord(rho >= strongRho), strongRho)))
	}
	domClaim := "Single-domain prompts collapse onto an entropy-ordered axis (|ρ(PC1, H)| in 0.65–0.80 or above), lower-dimensional than mixed"
	if has("manifold") && len(domains) > 0 {
		for _, d := range domains {
			rho := math.Abs(float64(d.Spearman))
			ok := rho >= domainRhoLo
			reason := fmt.Sprintf("|ρ| %.2f %s %.2f", rho, cmpWord(ok), domainRhoLo)
			if mixed != nil {
				lowDim := share(&d, 0)+share(&d, 1) > share(mixed, 0)+share(mixed, 1)
				ok = ok && lowDim
				reason += fmt.Sprintf("; PC1+PC2 %.0f%% vs mixed %.0f%%", 100*(share(&d, 0)+share(&d, 1)), 100*(share(mixed, 0)+share(mixed, 1)))
			}
			add(verdictRow(Row{Claim: domClaim + ": " + sessions.SafeText(d.Name), Paper: fmt.Sprintf("|ρ| %.2f–%.2f", domainRhoLo, domainRhoHi),
				Measured: fmt.Sprintf("%d prompts: PC1 %.1f%%, ρ %+.2f", d.N, 100*share(&d, 0), float64(d.Spearman))}, ok, reason))
		}
	} else {
		add(notMeasured(domClaim, fmt.Sprintf("|ρ| %.2f–%.2f", domainRhoLo, domainRhoHi), "", "manifold not run (--experiments)"))
	}
	rows = append(rows, sulaRows(r, has("sula"), cfg)...)
	rows = append(rows, geometryLLMRows(r, has, cfg)...)
	return rows
}

// sulaRows are the SULA claims.
func sulaRows(r *llmrun.Result, ran bool, cfg string) []Row {
	fam := r.Model.Family
	errClaim := "SULA: the model's entropy over the two labels tracks the exact posterior's (entropy error near the paper's)"
	paperErr := "Pythia 0.44, Llama 0.36, Phi-2 0.31 bits"
	manClaim := "SULA: hidden states order along PC1 by the posterior's entropy (|ρ| ≥ 0.5)"
	paperMan := fmt.Sprintf("Pythia-410M, 150 prompts: PC1 %.1f%%, ρ %.3f", 100*paperSULAPC1, paperSULARho)
	trajClaim := "SULA: the representation moves along PC1 as k grows (PC1 mean monotone in k)"
	if !ran || r.SULA == nil {
		return []Row{
			{Claim: errClaim, Paper: paperErr, Verdict: NotMeasured, Reason: "sula not run (--experiments)", Config: cfg},
			{Claim: manClaim, Paper: paperMan, Verdict: NotMeasured, Reason: "sula not run", Config: cfg},
			{Claim: trajClaim, Paper: "monotone in k", Verdict: NotMeasured, Reason: "sula not run", Config: cfg},
		}
	}
	s := r.SULA
	var rows []Row
	e := float64(s.EntropyError)
	want, known := paperEntropyError[fam]
	row := Row{Claim: errClaim, Paper: paperErr, Config: cfg,
		Measured: fmt.Sprintf("%.3f bits over %d prompts (labels %q %q; they hold %.2g%% of the mass)", e, len(s.Prompts), s.Labels[0], s.Labels[1], 100*float64(s.LabelMass))}
	if known {
		ok := math.Abs(e-want) <= entropyErrorTol
		rows = append(rows, verdictRow(row, ok, fmt.Sprintf("|%.3f − %.2f (%s)| %s %.2f", e, want, paperModel[fam], cmpWord(!ok), entropyErrorTol)))
	} else {
		ok := e >= 0.31-entropyErrorTol && e <= 0.44+entropyErrorTol
		rows = append(rows, verdictRow(row, ok, fmt.Sprintf("no paper number for %s; %.3f against the papers' 0.31–0.44 ± %.2f", fam, e, entropyErrorTol)))
	}
	rho := math.Abs(float64(s.Manifold.Spearman))
	rows = append(rows, verdictRow(Row{Claim: manClaim, Paper: paperMan, Authors: "PC1 26.4%, ρ −0.765 (sula_summary.json)", Config: cfg,
		Measured: fmt.Sprintf("%d prompts: PC1 %.1f%%, ρ %+.3f", s.Manifold.N, 100*share(&s.Manifold, 0), float64(s.Manifold.Spearman))},
		rho >= strongRho, fmt.Sprintf("|ρ| %.2f %s %.2f; k alone orders the posterior entropy with |ρ| %.2f, so a state that tracks the prompt's length reaches it too",
			rho, cmpWord(rho >= strongRho), strongRho, math.Abs(float64(s.LengthRho)))))
	var ks, means []string
	up, down := true, true
	for i, k := range s.ByK {
		ks = append(ks, fmt.Sprint(k.K))
		means = append(means, fmt.Sprintf("%+.2f", float64(k.PC1Mean)))
		if i > 0 {
			d := float64(k.PC1Mean) - float64(s.ByK[i-1].PC1Mean)
			up, down = up && d > 0, down && d < 0
		}
	}
	mono := (up || down) && len(s.ByK) > 2
	rows = append(rows, verdictRow(Row{Claim: trajClaim, Paper: "monotone in k", Config: cfg,
		Measured: fmt.Sprintf("PC1 mean at k = %s: %s", strings.Join(ks, ", "), strings.Join(means, ", "))},
		mono, map[bool]string{true: "monotone (as any state that changes with the prompt's length may be)", false: "not monotone"}[mono]))
	return rows
}

// geometryLLMRows are the keys, focus and axis claims.
func geometryLLMRows(r *llmrun.Result, has func(string) bool, cfg string) []Row {
	fam := r.Model.Family
	var rows []Row
	keysClaim := "Keys are near-orthogonal: per-layer key orthogonality in the paper's range for this family"
	paperKeysText := "Pythia 0.11–0.13, Phi-2 0.034–0.051, Llama 0.15–0.18"
	authorsKeys := "0.030 for Pythia-410M from token embeddings, the same every layer (geometry_results.json)"
	if k := r.Keys; has("keys") && k != nil {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range k.ByLayer {
			lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
		}
		row := Row{Claim: keysClaim, Paper: paperKeysText, Authors: authorsKeys, Config: cfg,
			Measured: fmt.Sprintf("real keys %.3f–%.3f by layer (%d tokens; Gaussian vectors %.3f); embedding proxy %.3f", lo, hi, k.Tokens, float64(k.Random), float64(k.Proxy))}
		if rg, ok := paperKeys[fam]; ok {
			in := lo >= rg[0]-keysTol && hi <= rg[1]+keysTol
			rows = append(rows, verdictRow(row, in, fmt.Sprintf("%.3f–%.3f %s %.3f–%.3f ± %.2f (%s)", lo, hi, map[bool]string{true: "within", false: "outside"}[in], rg[0], rg[1], keysTol, paperModel[fam])))
		} else {
			row.Verdict, row.Reason = NotMeasured, "the paper gives no range for "+fam
			rows = append(rows, row)
		}
	} else {
		rows = append(rows, Row{Claim: keysClaim, Paper: paperKeysText, Authors: authorsKeys, Verdict: NotMeasured, Reason: "keys not run (--experiments)", Config: cfg})
	}
	focusClaim := "Dynamic focusing: attention entropy falls layer by layer (strong with full multi-head attention, weaker with grouped-query attention)"
	if f := r.Focus; has("focus") && f != nil {
		ok := float64(f.Drop) > 0 && float64(f.Spearman) <= -0.5
		kind := "full multi-head attention"
		if r.Model.KVHeads < r.Model.Heads {
			kind = "grouped-query attention"
		}
		rows = append(rows, verdictRow(Row{Claim: focusClaim, Paper: "falls with depth", Config: cfg,
			Measured: fmt.Sprintf("%.2f → %.2f bits (uniform %.2f), drop %.0f%%, ρ(layer, H) %+.2f; %s", float64(f.ByLayer[0]), float64(f.ByLayer[len(f.ByLayer)-1]), float64(f.Uniform), 100*float64(f.Drop), float64(f.Spearman), kind)},
			ok, fmt.Sprintf("drop %.0f%% and ρ %+.2f %s −0.5", 100*float64(f.Drop), float64(f.Spearman), cmpWord(ok))))
	} else {
		rows = append(rows, Row{Claim: focusClaim, Paper: "falls with depth", Verdict: NotMeasured, Reason: "focus not run (--experiments)", Config: cfg})
	}
	geomClaim := "Removing the entropy axis destroys the local geometry; a random axis leaves it"
	calClaim := "Removing the entropy axis moves calibration by less than 1%"
	paperGeom := fmt.Sprintf("Pythia-410M: axis–entropy corr %.2f → %.2f", axisBase, axisCut)
	if a := r.Axis; has("axis") && a != nil {
		b, c, rd := float64(a.Base.AxisCorr), float64(a.Cut.AxisCorr), float64(a.Random.AxisCorr)
		ok := math.Abs(b) >= 0.2 && (math.IsNaN(c) || math.Abs(c) < 0.5*math.Abs(b)) && math.Abs(rd) >= 0.8*math.Abs(b)
		rows = append(rows, verdictRow(Row{Claim: geomClaim, Paper: paperGeom, Config: cfg,
			Measured: fmt.Sprintf("layer %d: %.2f → %s (random axis: %.2f); final-state |ρ| %.2f → %.2f (random %.2f)", a.Layer, b, numText(c), rd,
				float64(a.Base.HiddenRho), float64(a.Cut.HiddenRho), float64(a.Random.HiddenRho))},
			ok, "needs a base correlation ≥ 0.2 that the cut halves and the random cut keeps to 80% (any model passes the cut's half: it leaves the values nothing on the axis)"))
		cc := float64(a.CalibrationChange)
		okc := math.Abs(cc) < calibrationMove
		rows = append(rows, verdictRow(Row{Claim: calClaim, Paper: "< 1% (Pythia-410M)", Config: cfg,
			Measured: fmt.Sprintf("entropy error %.3f → %.3f bits (%+.1f%%; random axis %+.1f%%)", float64(a.Base.EntropyError), float64(a.Cut.EntropyError), 100*cc, 100*float64(a.RandomChange))},
			okc, fmt.Sprintf("|%+.1f%%| %s 1%%", 100*cc, cmpWord(!okc))))
	} else {
		rows = append(rows, Row{Claim: geomClaim, Paper: paperGeom, Verdict: NotMeasured, Reason: "axis not run (--experiments)", Config: cfg},
			Row{Claim: calClaim, Paper: "< 1%", Verdict: NotMeasured, Reason: "axis not run", Config: cfg})
	}
	return rows
}

// verdictRow sets the row's verdict from ok and its reason.
func verdictRow(r Row, ok bool, reason string) Row {
	r.Verdict, r.Reason = NotReproduced, reason
	if ok {
		r.Verdict = Reproduced
	}
	return r
}

// cmpWord is "≥" when ok, "<" otherwise.
func cmpWord(ok bool) string {
	if ok {
		return "≥"
	}
	return "<"
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
	b.WriteString("Paper III: \"Geometric Scaling of Bayesian Inference in LLMs\" (arXiv 2512.23752). Each claim the bench's five\n" +
		"measurements touch, the paper's number (and the authors' code's, where their repository records one), this\n" +
		"model's, and whether it reproduces. The geometry is learnt, so a model with random weights should reproduce none;\n" +
		"where one does (a random Pythia-410M-shaped folder passes the SULA manifold, its trajectory and both ablation rows),\n" +
		"the paper's criterion does not tell a trained model from an untrained one, and the reason column says why.\n\n")
	fmt.Fprintf(&b, "Model: `%s`, %s, %d layers, hidden %d, %d heads (%d key/value) of %d, vocabulary %d, %d parameters (%s), computed with %s on the CPU.\n\n",
		sessions.SafeText(m.Dir), m.Family, m.Layers, m.Hidden, m.Heads, m.KVHeads, m.HeadDim, m.Vocab, m.Params, m.DType, m.Backend)
	fmt.Fprintf(&b, "Record: `%s`; %d tokens in %.0f s; seed %d; command: `%s`.\n\n", sessions.SafeText(recordPath), r.Tokens, r.WallS, r.Seed, sessions.SafeText(r.Command))
	b.WriteString("| # | claim | paper | authors' code | this model | verdict | reason |\n|---|---|---|---|---|---|---|\n")
	for i, row := range LLMRows(r) {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s |\n", i+1, cell(row.Claim), cell(row.Paper), cell(row.Authors), cell(row.Measured), row.Verdict, cell(row.Reason))
	}
	b.WriteString("\n## How each number is measured\n\n" + llmMethods + "\n")
	for _, w := range r.Warnings {
		b.WriteString("- warning: " + sessions.SafeText(w) + "\n")
	}
	if len(figs) > 0 {
		b.WriteString("\n## Figures\n\n")
		for _, f := range figs {
			rel := f.Path
			if filepath.IsAbs(rel) {
				if rp, err := filepath.Rel(dir, rel); err == nil {
					rel = rp
				}
			}
			fmt.Fprintf(&b, "![%s](%s)\n\n", cell(f.Caption), filepath.ToSlash(rel))
		}
	}
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
- Keys: the real keys (before the rotary embedding) of each layer's key/value heads, averaged per token over the
  prompts for the 100 most frequent tokens (first positions left out); the mean |cos| between those token means.
  The authors' script measures token embeddings instead (their "proxy"), one number for every layer; both are shown.
- Focus: the entropy of each head's attention weights at the last position, averaged over the prompts.
- Axis ablation: the entropy axis is PC1 of the values at the ablation layer (last position, SULA prompts), signed
  to rise with the model's entropy; it, and separately a random unit axis, is projected out of that layer's values
  at every position. The local geometry is the correlation of the values (as edited) with the axis against the
  model's entropy, as the authors measure it: after the cut the values have no component left on the axis, so the
  correlation there is of rounding noise (or undefined). The final hidden states' |ρ(PC1, posterior entropy)| is shown
  beside it as a measure downstream of the cut.
`
