package reports

import (
	"fmt"
	"math"
	"strings"

	"windtunnel/sessions"
	"windtunnel/sessions/llmrun"
)

// The margins by which a model must beat each null (docs/paper3.md: Verdicts a null cannot earn).
const (
	// bitsMargin is the margin in entropy error (bits) for the calibration rows.
	bitsMargin = 0.05
	// spanRatio is how many times the null's the model's trajectory span must be.
	spanRatio = 2.0
	// focusMargin is the margin in the attention entropy's relative drop.
	focusMargin = 0.1
	// focusDrop is the paper's focusing criterion (§4.4): the entropy falls by more than 30 %.
	focusDrop = 0.30
	// minEntropySD is the least spread (bits, standard deviation over the prompts) of the
	// next-token entropy for a correlation with it to mean anything: a model certain on every
	// prompt has entropies that differ in their fortieth decimal, which still rank.
	minEntropySD = 0.1
)

// rhoMargin is the margin in |ρ| by which a manifold row's model must beat each null over n
// prompts: twice the standard error of the difference of two independent rank correlations,
// 2·√2/√(n−1) (each has standard error about 1/√(n−1) near ρ = 0), so that two draws of the
// same random network rarely differ by it (0.40 over 50 prompts, 0.18 over 250).
func rhoMargin(n int) float64 { return 2 * math.Sqrt2 / math.Sqrt(float64(max(2, n)-1)) }

// entropySD is the standard deviation of the set's next-token entropies (bits).
func entropySD(s *llmrun.Set) float64 {
	var sum, ss float64
	for _, e := range s.Entropy {
		sum += float64(e)
	}
	m := sum / float64(max(1, len(s.Entropy)))
	for _, e := range s.Entropy {
		ss += (float64(e) - m) * (float64(e) - m)
	}
	return math.Sqrt(ss / float64(max(1, len(s.Entropy))))
}

// rhoMeets is whether the set's |ρ(PC1, H)| reaches line with an entropy that varies, and why.
func rhoMeets(s *llmrun.Set, line float64) (bool, string) {
	rho, sd := absRho(s), entropySD(s)
	if sd < minEntropySD {
		return false, fmt.Sprintf("the next-token entropy barely varies (sd %.2g bits < %.1f): |ρ| %.2f ranks noise", sd, minEntropySD, rho)
	}
	return rho >= line, fmt.Sprintf("|ρ| %.2f %s %.2f", rho, cmpWord(rho >= line), line)
}

// llmView is a record with its random-weight null, for the rows.
type llmView struct {
	r *llmrun.Result
	// rnds are the random-weight copies, seeds their seeds.
	rnds  []*llmrun.Result
	seeds []uint64
	inits []float64
	has   func(string) bool
	cfg   string
}

// LLMRows are Paper III's claims that the record's measurements touch, each with the paper's
// number, the authors' code's where known, the model's, its nulls' and a verdict of three
// outcomes (Judge).
func LLMRows(r *llmrun.Result) []Row {
	v := llmView{r: r, cfg: fmt.Sprintf("%s, %d layers × %d, %d heads (%d key/value), %s", r.Model.Family, r.Model.Layers, r.Model.Hidden, r.Model.Heads, r.Model.KVHeads, r.Model.DType)}
	if r.Nulls != nil {
		v.rnds, v.seeds, v.inits = r.Nulls.Random, r.Nulls.RandomSeeds, r.Nulls.RandomInits
	}
	v.has = func(e string) bool {
		for _, x := range r.Experiments {
			if x == e {
				return true
			}
		}
		return false
	}
	var rows []Row
	for _, row := range v.manifoldRows() {
		row.Config = v.cfg
		rows = append(rows, row)
	}
	for _, row := range append(v.sulaRows(), v.geometryRows()...) {
		row.Config = v.cfg
		rows = append(rows, row)
	}
	return rows
}

// rndName names random copy i.
func (v llmView) rndName(i int) string {
	kind := "random weights"
	if i < len(v.inits) {
		if v.inits[i] > 0 {
			kind += fmt.Sprintf(", init N(0, %.2g²)", v.inits[i])
		} else {
			kind += ", variance-preserving"
		}
	}
	if i < len(v.seeds) {
		kind += fmt.Sprintf(", seed %d", v.seeds[i])
	}
	return kind
}

// findSet is the record's manifold set named name, or nil.
func findSet(r *llmrun.Result, name string) *llmrun.Set {
	if r == nil {
		return nil
	}
	for i := range r.Manifold {
		if r.Manifold[i].Name == name {
			return &r.Manifold[i]
		}
	}
	return nil
}

// absRho is |ρ(PC1, H)| of s.
func absRho(s *llmrun.Set) float64 { return math.Abs(float64(s.Spearman)) }

// manifoldRows are the mixed and single-domain value-manifold claims.
func (v llmView) manifoldRows() []Row {
	r := v.r
	mixedClaim := "Last-layer representations of mixed prompts order along PC1 by next-token entropy (|ρ(PC1, H)| ≥ 0.5)"
	paperMixed := fmt.Sprintf("Pythia-410M, 13 prompts: PC1 %.1f%%, ρ %.2f", 100*paperMixedPC1, paperMixedRho)
	authorsMixed := "PC1 14.6%, ρ −0.593 (geometry_results.json)"
	domClaim := "Single-domain prompts collapse onto an entropy-ordered axis (|ρ(PC1, H)| ≥ 0.65), lower-dimensional than mixed"
	paperDom := fmt.Sprintf("|ρ| %.2f–%.2f", domainRhoLo, domainRhoHi)
	if !v.has("manifold") {
		return []Row{{Claim: mixedClaim, Paper: paperMixed, Authors: authorsMixed, Verdict: NotMeasured, Reason: "manifold not run (--experiments)"},
			{Claim: domClaim, Paper: paperDom, Verdict: NotMeasured, Reason: "manifold not run (--experiments)"}}
	}
	var rows []Row
	mixed := findSet(r, "mixed")
	if mixed == nil {
		rows = append(rows, Row{Claim: mixedClaim, Paper: paperMixed, Authors: authorsMixed, Verdict: NotMeasured, Reason: "the mixed set could not be measured (see warnings)"})
	} else {
		rho := absRho(mixed)
		var nulls []Null
		for i, rr := range v.rnds {
			if rm := findSet(rr, "mixed"); rm != nil {
				nr := absRho(rm)
				nm, _ := rhoMeets(rm, strongRho)
				nulls = append(nulls, Null{Name: v.rndName(i), Text: fmt.Sprintf("|ρ| %.2f", nr), Meets: nm, Beaten: rho-nr >= rhoMargin(mixed.N)})
			}
		}
		ok, why := rhoMeets(mixed, strongRho)
		rows = append(rows, Judge(Row{Claim: mixedClaim, Paper: paperMixed, Authors: authorsMixed,
			Measured: fmt.Sprintf("%d prompts: PC1 %.1f%%, ρ %+.2f; entropy sd %.2f bits", mixed.N, 100*share(mixed, 0), float64(mixed.Spearman), entropySD(mixed))},
			ok, why, nulls, fmt.Sprintf("%.2f in |ρ| (2·√2/√(n−1))", rhoMargin(mixed.N))))
	}
	domainMeets := func(d, mixed *llmrun.Set) (bool, string) {
		ok, why := rhoMeets(d, domainRhoLo)
		if mixed != nil {
			low := share(d, 0)+share(d, 1) > share(mixed, 0)+share(mixed, 1)
			ok = ok && low
			why += fmt.Sprintf("; PC1+PC2 %.0f%% vs mixed %.0f%%", 100*(share(d, 0)+share(d, 1)), 100*(share(mixed, 0)+share(mixed, 1)))
		}
		return ok, why
	}
	n := 0
	for i := range r.Manifold {
		d := &r.Manifold[i]
		if !d.Domain {
			continue
		}
		n++
		ok, why := domainMeets(d, mixed)
		var nulls []Null
		for i, rr := range v.rnds {
			if rd := findSet(rr, d.Name); rd != nil {
				nok, _ := domainMeets(rd, findSet(rr, "mixed"))
				nulls = append(nulls, Null{Name: v.rndName(i), Text: fmt.Sprintf("|ρ| %.2f", absRho(rd)), Meets: nok, Beaten: absRho(d)-absRho(rd) >= rhoMargin(d.N)})
			}
		}
		rows = append(rows, Judge(Row{Claim: domClaim + ": " + sessions.SafeText(d.Name), Paper: paperDom,
			Measured: fmt.Sprintf("%d prompts: PC1 %.1f%%, ρ %+.2f", d.N, 100*share(d, 0), float64(d.Spearman))}, ok, why, nulls, fmt.Sprintf("%.2f in |ρ| (2·√2/√(n−1))", rhoMargin(d.N))))
	}
	if n == 0 {
		rows = append(rows, Row{Claim: domClaim, Paper: paperDom, Verdict: NotMeasured, Reason: "no single-domain set could be measured (see warnings)"})
	}
	return rows
}

// sulaRows are the SULA claims: calibration (the paper's criterion and the bench's), the
// manifold and the trajectory.
func (v llmView) sulaRows() []Row {
	r := v.r
	fam := r.Model.Family
	errClaim := "SULA: the entropy over the two labels tracks the exact posterior's (entropy error near the paper's)"
	paperErr := "Pythia 0.44, Llama 0.36, Phi-2 0.31 bits"
	benchClaim := "SULA calibration beats every predictor that learnt nothing (the bench's criterion: entropy error ≥ 0.05 bits below the constant, uniform and shuffled-label predictors')"
	manClaim := "SULA: hidden states order along PC1 by the posterior's entropy (|ρ| ≥ 0.5)"
	paperMan := fmt.Sprintf("Pythia-410M, 150 prompts: PC1 %.1f%%, ρ %.3f", 100*paperSULAPC1, paperSULARho)
	trajClaim := "SULA: the representation moves along PC1 as evidence accumulates (PC1 mean monotone in k; controls §5.2)"
	s := r.SULA
	if !v.has("sula") || s == nil {
		why := "sula not run (--experiments)"
		return []Row{{Claim: errClaim, Paper: paperErr, Verdict: NotMeasured, Reason: why}, {Claim: benchClaim, Paper: "—", Verdict: NotMeasured, Reason: why},
			{Claim: manClaim, Paper: paperMan, Verdict: NotMeasured, Reason: why}, {Claim: trajClaim, Paper: "monotone in k", Verdict: NotMeasured, Reason: why}}
	}
	nl := r.Nulls
	if nl == nil {
		nl = &llmrun.Nulls{}
	}
	var rnd []*llmrun.SULA
	var rndNames []string
	for i, rr := range v.rnds {
		if rr.SULA != nil {
			rnd, rndNames = append(rnd, rr.SULA), append(rndNames, v.rndName(i))
		}
	}
	e := float64(s.EntropyError)
	want, known := paperEntropyError[fam]
	lo, hi := want-entropyErrorTol, want+entropyErrorTol
	why := fmt.Sprintf("|%.3f − %.2f (%s)| %s %.2f", e, want, paperModel[fam], cmpWord(math.Abs(e-want) > entropyErrorTol), entropyErrorTol)
	if !known {
		lo, hi = 0.31-entropyErrorTol, 0.44+entropyErrorTol
		why = fmt.Sprintf("no paper number for %s; %.3f against the paper's 0.31–0.44 ± %.2f", fam, e, entropyErrorTol)
	}
	inBand := func(x float64) bool { return x >= lo && x <= hi }
	var errNulls []Null
	addErr := func(name string, x float64) {
		errNulls = append(errNulls, Null{Name: name, Text: fmt.Sprintf("%.3f bits", x), Meets: inBand(x), Beaten: e <= x-bitsMargin})
	}
	if nl.Constant != nil {
		addErr("constant label", float64(nl.Constant.EntropyError))
		addErr("uniform", float64(nl.Uniform.EntropyError))
	}
	if nl.Shuffled != nil {
		addErr("shuffled labels", float64(nl.Shuffled.EntropyError))
	}
	for i, rs := range rnd {
		addErr(rndNames[i], float64(rs.EntropyError))
	}
	measured := fmt.Sprintf("%.3f bits over %d prompts, KL %.3f, accuracy %.2f over untied prompts (labels %q %q; they hold %.2g%% of the mass)",
		e, len(s.Prompts), float64(s.KLBits), float64(s.AccuracyUntied), s.Labels[0], s.Labels[1], 100*float64(s.LabelMass))
	rows := []Row{Judge(Row{Claim: errClaim, Paper: paperErr, Measured: measured}, inBand(e), why, errNulls, fmt.Sprintf("%.2f bits", bitsMargin))}
	// The bench's calibration row: beat the predictors by the margin.
	if nl.Constant == nil {
		rows = append(rows, Row{Claim: benchClaim, Paper: "—", Measured: measured, Verdict: NotMeasured, Reason: "needs the predictor nulls (llm --nulls predictors)"})
	} else {
		best := math.Min(float64(nl.Constant.EntropyError), float64(nl.Uniform.EntropyError))
		if nl.Shuffled != nil {
			best = math.Min(best, float64(nl.Shuffled.EntropyError))
		}
		var bn []Null
		for i, rs := range rnd {
			re := float64(rs.EntropyError)
			rbest := math.Min(float64(nl.Constant.EntropyError), float64(nl.Uniform.EntropyError))
			bn = append(bn, Null{Name: rndNames[i], Text: fmt.Sprintf("%.3f bits", re), Meets: re <= rbest-bitsMargin, Beaten: e <= re-bitsMargin})
		}
		ok := e <= best-bitsMargin
		rows = append(rows, Judge(Row{Claim: benchClaim, Paper: "— (the bench's row)", Measured: measured}, ok,
			fmt.Sprintf("%.3f %s %.3f − %.2f (the best predictor's)", e, map[bool]string{true: "≤", false: ">"}[ok], best, bitsMargin), bn, fmt.Sprintf("%.2f bits", bitsMargin)))
	}
	rows = append(rows, v.sulaManifoldRow(manClaim, paperMan, nl, rnd, rndNames), v.trajectoryRow(trajClaim, nl, rnd, rndNames))
	return rows
}

// sulaManifoldRow is the SULA manifold claim with its nulls: the random copy, the shuffled
// labels and the lexical remap as a replicate.
func (v llmView) sulaManifoldRow(claim, paper string, nl *llmrun.Nulls, rnd []*llmrun.SULA, rndNames []string) Row {
	s := v.r.SULA
	rho := absRho(&s.Manifold)
	margin := rhoMargin(s.Manifold.N)
	var nulls []Null
	for i, rs := range rnd {
		nr := absRho(&rs.Manifold)
		nulls = append(nulls, Null{Name: rndNames[i], Text: fmt.Sprintf("|ρ| %.2f", nr), Meets: nr >= strongRho, Beaten: rho-nr >= margin})
	}
	if nl.Shuffled != nil {
		nr := float64(nl.Shuffled.ManifoldRho)
		nulls = append(nulls, Null{Name: "shuffled labels", Text: fmt.Sprintf("|ρ| %.2f", nr), Meets: nr >= strongRho, Beaten: rho-nr >= margin})
	}
	if nl.Remap != nil {
		nr := float64(nl.Remap.ManifoldRho)
		nulls = append(nulls, Null{Name: "lexical remap", Text: fmt.Sprintf("|ρ| %.2f (%s/%s)", nr, nl.Remap.Labels[0], nl.Remap.Labels[1]), Meets: nr >= strongRho, Replicate: true})
	}
	return Judge(Row{Claim: claim, Paper: paper, Authors: "PC1 26.4%, ρ −0.765 (sula_summary.json)",
		Measured: fmt.Sprintf("%d prompts: PC1 %.1f%%, ρ %+.3f; k alone orders the posterior entropy with |ρ| %.2f", s.Manifold.N, 100*share(&s.Manifold, 0), float64(s.Manifold.Spearman), math.Abs(float64(s.LengthRho)))},
		rho >= strongRho, fmt.Sprintf("|ρ| %.2f %s %.2f", rho, cmpWord(rho >= strongRho), strongRho), nulls, fmt.Sprintf("%.2f in |ρ| (2·√2/√(n−1))", margin))
}

// trajectory is whether means (one per k, in order) move monotonically, and their span
// |last − first| in units of sd.
func trajectory(means []sessions.Num, sd float64) (mono bool, span float64) {
	up, down := true, true
	for i := 1; i < len(means); i++ {
		d := float64(means[i]) - float64(means[i-1])
		up, down = up && d > 0, down && d < 0
	}
	if len(means) < 3 || !(sd > 0) {
		return false, 0
	}
	return up || down, math.Abs(float64(means[len(means)-1])-float64(means[0])) / sd
}

// pc1SD is the standard deviation of the manifold's PC1 coordinates.
func pc1SD(s *llmrun.Set) float64 {
	var sum, ss float64
	for _, p := range s.Points {
		sum += float64(p[0])
	}
	m := sum / float64(max(1, len(s.Points)))
	for _, p := range s.Points {
		ss += (float64(p[0]) - m) * (float64(p[0]) - m)
	}
	return math.Sqrt(ss / float64(max(1, len(s.Points))))
}

// trajectoryRow is the SULA trajectory claim with its nulls: the evidence ablation on the same
// axis and the random copy, and the lexical remap as a replicate.
func (v llmView) trajectoryRow(claim string, nl *llmrun.Nulls, rnd []*llmrun.SULA, rndNames []string) Row {
	s := v.r.SULA
	var ks, means []string
	var pc1 []sessions.Num
	for _, k := range s.ByK {
		ks = append(ks, fmt.Sprint(k.K))
		means = append(means, fmt.Sprintf("%+.2f", float64(k.PC1Mean)))
		pc1 = append(pc1, k.PC1Mean)
	}
	sd := pc1SD(&s.Manifold)
	mono, span := trajectory(pc1, sd)
	var nulls []Null
	if a := nl.Ablation; a != nil {
		am, as := trajectory(a.PC1ByK, sd)
		nulls = append(nulls, Null{Name: "evidence ablation", Text: fmt.Sprintf("span %.2f sd (%s)", as, monoWord(am)), Meets: am, Beaten: span >= spanRatio*as})
	}
	for i, rn := range rnd {
		var rp []sessions.Num
		for _, k := range rn.ByK {
			rp = append(rp, k.PC1Mean)
		}
		rm, rs := trajectory(rp, pc1SD(&rn.Manifold))
		nulls = append(nulls, Null{Name: rndNames[i], Text: fmt.Sprintf("span %.2f sd (%s)", rs, monoWord(rm)), Meets: rm, Beaten: span >= spanRatio*rs})
	}
	if rm := nl.Remap; rm != nil {
		mm, ms := trajectory(rm.PC1ByK, float64(rm.PC1SD))
		nulls = append(nulls, Null{Name: "lexical remap", Text: fmt.Sprintf("span %.2f sd (%s)", ms, monoWord(mm)), Meets: mm, Replicate: true})
	}
	return Judge(Row{Claim: claim, Paper: "monotone in k",
		Measured: fmt.Sprintf("PC1 mean at k = %s: %s (span %.2f sd)", strings.Join(ks, ", "), strings.Join(means, ", "), span)},
		mono, monoWord(mono), nulls, fmt.Sprintf("%.0f× the null's span", spanRatio))
}

func monoWord(m bool) string {
	if m {
		return "monotone"
	}
	return "not monotone"
}

// cmpWord is "≥" when ok, "<" otherwise.
func cmpWord(ok bool) string {
	if ok {
		return "≥"
	}
	return "<"
}
