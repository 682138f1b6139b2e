package reports

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"windtunnel/models/arch"
	"windtunnel/sessions/derived"

	"windtunnel/tunnels"
)

// Value is one session's measured value of a row.
type Value struct {
	File string
	V    float64
}

// Row is one claim of Paper I against the bench's measurement.
type Row struct {
	Claim string
	// Paper is the paper's number (or verdict); Authors the authors' code's, "—" if unknown.
	Paper, Authors string
	// Measured is the bench's statistic over seeds ("" when not measured) and Values the
	// per-session values it is computed from.
	Measured string
	Values   []Value
	// Config is the configuration the values come from (preset, sizes, steps).
	Config string
	// Nulls says what the row's nulls measured and whether each meets the criterion ("" when
	// the row has none).
	Nulls string
	// Verdict is Reproduced, Consistent, NotReproduced or NotMeasured; Reason says why in
	// one line.
	Verdict, Reason string
}

// Report is Paper I's claims measured on a set of sessions.
type Report struct {
	Rows []Row
	// Commands regenerate every number; Skipped lists the sessions left out and why.
	Commands []string
	Skipped  []string
}

// Mean formats values as "mean ± sd (n=N)" (the sample sd; no ± for one value).
func Mean(vs []Value, prec int) string {
	xs := make([]float64, len(vs))
	for i, v := range vs {
		xs[i] = v.V
	}
	s := derived.StatOf(xs)
	if len(xs) < 2 {
		return fmt.Sprintf("%.*f (n=%d)", prec, s.Mean, len(xs))
	}
	return fmt.Sprintf("%.*f ± %.*f (n=%d)", prec, s.Mean, prec, s.SD, len(xs))
}

// mean is the mean of the values over the finite ones (derived.MeanFinite).
func mean(vs []Value) float64 {
	xs := make([]float64, len(vs))
	for i, v := range vs {
		xs[i] = v.V
	}
	return derived.MeanFinite(xs)
}

// configOf describes the configuration of runs: preset (or "custom"), sizes, params, steps.
func configOf(runs []Run) string {
	var out []string
	seen := map[string]bool{}
	for _, r := range runs {
		c := r.Config
		p := r.Preset
		if p == "" {
			p = "custom"
		}
		tc := c.Transformer
		s := fmt.Sprintf("%s; %s L=%d H=%d d=%d; %d params; %d steps × batch %d", p, c.Model, tc.Layers, tc.Heads, tc.Width, r.Score.Params, c.Steps, c.Batch)
		if c.Model != arch.KindTransformer {
			s = fmt.Sprintf("%s; %s matched to L=%d d=%d; %d params; %d steps × batch %d", p, c.Model, tc.Layers, tc.Width, r.Score.Params, c.Steps, c.Batch)
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return strings.Join(out, " / ")
}

// Build measures Paper I's claims on runs, and Paper II's two timescales on runs and on the
// results of the authors' experiment ts (LoadTimescales).
//
// Copies of one replicate (the same configuration and seed) count once (countOnce).
func Build(runs []Run, skipped []string, ts ...TimescalesResult) Report {
	runs = countOnce(runs)
	rep := Report{Skipped: skipped, Commands: append(Commands(runs), TimescalesCommands(ts)...)}
	rep.Rows = append(rep.Rows, architectureRows(runs)...)
	rep.Rows = append(rep.Rows, mlpLevelRows(runs)...)
	rep.Rows = append(rep.Rows, lengthRows(runs)...)
	rep.Rows = append(rep.Rows, geometryRows(runs)...)
	rep.Rows = append(rep.Rows, simplexRows(runs)...)
	rep.Rows = append(rep.Rows, frameRows(runs)...)
	rep.Rows = append(rep.Rows, timescalesRows(runs, ts)...)
	noteDisagreements(rep.Rows, runs)
	return rep
}

// pick returns the runs of a task and model.
func pick(runs []Run, task, model string) []Run {
	var out []Run
	for _, r := range runs {
		if r.Config.Task == task && r.Score.Model == model {
			out = append(out, r)
		}
	}
	return out
}

// architectureRows is one row per (task, model) of Paper I's architecture table and
// configuration of it (configGroups): runs that trained different things are not pooled.
func architectureRows(runs []Run) []Row {
	var rows []Row
	for _, task := range tunnels.Names() {
		prim, ok := derived.PrimitiveOf(task)
		if !ok {
			continue
		}
		for _, model := range arch.PaperKinds() {
			paper := derived.PaperVerdict(task, model)
			if paper == "" {
				continue
			}
			row := Row{Claim: fmt.Sprintf("%s %s %s (%s)", model, verb(paper), prim.Name, task), Paper: paper, Authors: authorsArch(task, model)}
			for _, g := range configGroups(pick(runs, task, model)) {
				rows = append(rows, g.mark(architectureRow(row, prim, g.runs)))
			}
		}
	}
	return rows
}

// architectureRow fills row (its claim and the paper's verdict set) from the runs of one
// configuration of its task and model.
func architectureRow(row Row, prim derived.Primitive, rs []Run) Row {
	if len(rs) == 0 {
		row.Verdict, row.Reason = NotMeasured, "no finished session of this task and model"
		return row
	}
	task, model, paper := prim.Task, rs[0].Score.Model, row.Paper
	scores := make([]derived.RunScore, len(rs))
	for i, r := range rs {
		scores[i] = r.Score
		v := r.Score.Scores.BitErrorPosition
		if prim.Metric == "accuracy" {
			v = r.Score.Scores.Accuracy
		}
		row.Values = append(row.Values, Value{r.File, v})
	}
	cell := derived.Table(scores, []string{task}, []string{model})[0]
	what, crit := "bit error (a)", fmt.Sprintf("≤ %.2f bits", prim.Threshold)
	if prim.Metric == "accuracy" {
		what, crit = "accuracy", fmt.Sprintf("≥ %.2f", prim.Threshold)
	}
	row.Measured = what + " " + Mean(row.Values, 4)
	row.Config = configOf(rs)
	bench := "fail"
	if cell.Pass {
		bench = "pass"
	}
	row.Reason = fmt.Sprintf("bench %s: mean %s %.4f vs %s; %d/%d seeds pass", bench, what, mean(row.Values), crit, cell.SeedsPassed, len(rs))
	// The null meets the claim when it gives the paper's verdict too: an early model
	// that passes makes "learns" not diagnostic, and every untrained model fails.
	null := firstEvalNull(rs, what, func(r Run) (float64, bool) { return derived.VerdictOf(task, *r.FirstEval).Value, true },
		func(v float64) bool { return prim.Meets(v) == (paper == "pass") }, 4)
	judge(&row, bench == paper, null)
	if paper == "fail" && bench == paper {
		row.Reason += " (a claim that a model does not learn is met by any model that has not learnt; the models that learn the task are its positive control)"
	}
	return row
}

func verb(paper string) string {
	if paper == "pass" {
		return "learns"
	}
	return "does not learn"
}

// authorsArch is the authors' code's number for an architecture cell, where known.
func authorsArch(task, model string) string {
	switch {
	case task == "bijection" && model == arch.KindTransformer:
		return fmt.Sprintf("%.4f bits (b) (production)", AuthorsBijectionBitsB)
	case task == "bijection" && model == arch.KindMLP:
		return fmt.Sprintf("%.4f bits (b)", AuthorsMLPBitsB)
	case task == "recall" && model == arch.KindTransformer:
		return "learned"
	case task == "recall" && (model == arch.KindMLP || model == "lstm"):
		return "not learned"
	}
	return "—"
}

// mlpLevelRows checks the per-position MLP's bijection bit error (b) against the authors'
// 1.1073, a row per configuration.
func mlpLevelRows(runs []Run) []Row {
	var v20 []Run
	for _, r := range pick(runs, "bijection", arch.KindMLP) {
		if v := r.Config.Tunnel.V; v == 0 || v == tunnels.DefaultV {
			v20 = append(v20, r)
		}
	}
	var rows []Row
	for _, g := range configGroups(v20) {
		rows = append(rows, g.mark(mlpLevelRow(g.runs)))
	}
	return rows
}

// mlpLevelRow is the MLP-level claim measured on the runs of one configuration.
func mlpLevelRow(rs []Run) Row {
	row := Row{Claim: "per-position MLP on bijection V=20 sits at the context-free guess", Paper: fmt.Sprintf("%.2f bits", PaperMLPBits),
		Authors: fmt.Sprintf("%.4f bits (b)", AuthorsMLPBitsB)}
	for _, r := range rs {
		row.Values = append(row.Values, Value{r.File, r.Score.Scores.BitErrorSample})
	}
	if len(rs) == 0 {
		row.Verdict, row.Reason = NotMeasured, "no finished bijection V=20 session of the mlp"
		return row
	}
	row.Measured, row.Config = "bit error (b) "+Mean(row.Values, 4), configOf(rs)
	m := mean(row.Values)
	at := func(v float64) bool { return math.Abs(v-AuthorsMLPBitsB) <= MLPLevelTolerance }
	row.Reason = fmt.Sprintf("mean %.4f vs the authors' code's %.4f (tolerance %.3f); the paper's printed %.2f is not reproducible from their code",
		m, AuthorsMLPBitsB, MLPLevelTolerance, PaperMLPBits)
	judge(&row, at(m), firstEvalNull(rs, "bit error (b)", func(r Run) (float64, bool) { return r.FirstEval.BitErrorSample, true }, at, 4))
	return row
}

// lengthRows is HMM length generalisation at each untrained K, for the models Paper I says
// track HMM beliefs, per configuration.
func lengthRows(runs []Run) []Row {
	var rows []Row
	for _, model := range arch.PaperKinds() {
		if derived.PaperVerdict("hmm", model) != "pass" {
			continue
		}
		for _, g := range configGroups(pick(runs, "hmm", model)) {
			for _, row := range modelLengthRows(model, g.runs) {
				rows = append(rows, g.mark(row))
			}
		}
	}
	return rows
}

// modelLengthRows is a model's length-generalisation rows from the runs of one configuration.
func modelLengthRows(model string, rs []Run) []Row {
	var rows []Row
	byK := map[int][]Value{}
	runsK := map[int][]Run{}
	train := map[int]bool{}
	for _, r := range rs {
		for _, l := range r.Lengths {
			if l.Train {
				train[l.K] = true
				continue
			}
			byK[l.K] = append(byK[l.K], Value{r.File, float64(l.BitErrorPosition)})
			runsK[l.K] = append(runsK[l.K], r)
		}
	}
	ks := []int{30, 50}
	for k := range byK {
		if k != 30 && k != 50 {
			ks = append(ks, k)
		}
	}
	sort.Ints(ks)
	for _, k := range ks {
		row := Row{Claim: fmt.Sprintf("%s trained at K=20 tracks HMM beliefs at K=%d", model, k), Paper: "graceful past the trained K (figure)", Authors: "—"}
		vs := byK[k]
		if len(vs) == 0 {
			row.Verdict, row.Reason = NotMeasured, fmt.Sprintf("no hmm session of the %s evaluated at K=%d (`windtunnel run --task hmm --eval-k 20,%d` evaluates it)", model, k, k)
			rows = append(rows, row)
			continue
		}
		row.Values, row.Measured, row.Config = vs, "bit error (a) "+Mean(vs, 4), configOf(runsK[k])
		m := mean(vs)
		row.Reason = fmt.Sprintf("mean bit error (a) %.4f at K=%d vs ≤ %.2f bits", m, k, LengthThreshold)
		atK := func(r Run) (float64, bool) {
			for _, l := range r.FirstEval.Lengths {
				if l.K == k && !l.Train {
					return float64(l.BitErrorPosition), true
				}
			}
			return 0, false
		}
		judge(&row, m <= LengthThreshold, firstEvalNull(runsK[k], fmt.Sprintf("bit error (a) at K=%d", k), atK, func(v float64) bool { return v <= LengthThreshold }, 4))
		rows = append(rows, row)
	}
	return rows
}
