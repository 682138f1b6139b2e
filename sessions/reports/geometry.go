package reports

import (
	"fmt"
	"math"
	"windtunnel/models/arch"
	"windtunnel/sessions/derived"

	"windtunnel/sessions"
	"windtunnel/tunnels"
)

// geometryRows measures the geometry claims on the transformer's newest snapshots: key
// orthogonality (the authors' statistic against its initialisation), the value manifold's
// |ρ(PC1, entropy)| over one sequence and over many (the frame and its dissociation: frame.go).
// Bijection always has its rows (not measured without snapshots); other tasks where measured.
// Each configuration (configGroups) has its own rows, judged on the runs that learnt the task
// (onLearnt).
func geometryRows(runs []Run) []Row {
	var rows []Row
	for _, task := range tunnels.Names() {
		var rs []Run
		for _, r := range pick(runs, task, arch.KindTransformer) {
			if r.Snapshot != nil {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 && task != "bijection" {
			continue
		}
		one := func(s *sessions.Snapshot) *sessions.Manifold { return s.ManifoldOne }
		many := func(s *sessions.Snapshot) *sessions.Manifold { return s.Manifold }
		for _, g := range configGroups(rs) {
			rows = append(rows, g.mark(onLearnt(task, g.runs, func(rs []Run) Row { return keyOrthRow(task, rs) })))
			rows = append(rows, g.mark(onLearnt(task, g.runs, func(rs []Run) Row { return manifoldRow(task, "one sequence", rs, one) })))
			rows = append(rows, g.mark(onLearnt(task, g.runs, func(rs []Run) Row { return manifoldRow(task, "many sequences", rs, many) })))
		}
	}
	return rows
}

// keyOrthRow compares layer 0's authors' key orthogonality with its value at initialisation,
// per head averaged over seeds; the measured value per session is the mean over heads.
func keyOrthRow(task string, rs []Run) Row {
	row := Row{Claim: fmt.Sprintf("transformer value keys become orthogonal (layer 0, authors' statistic, %s)", task),
		Paper: PaperKeyOrth, Authors: AuthorsKeyOrth + " vs " + AuthorsKeyOrthInit}
	var trained, init [][]float64
	var used []Run
	var initVals []Value
	for _, r := range rs {
		s := r.Snapshot
		if len(s.KeyOrthogonalityEmbed) == 0 || len(s.KeyOrthogonalityEmbedInit) == 0 {
			continue
		}
		used = append(used, r)
		trained, init = append(trained, s.KeyOrthogonalityEmbed[0]), append(init, s.KeyOrthogonalityEmbedInit[0])
		row.Values = append(row.Values, Value{r.File, derived.MeanFinite(s.KeyOrthogonalityEmbed[0])})
		initVals = append(initVals, Value{r.File, derived.MeanFinite(s.KeyOrthogonalityEmbedInit[0])})
	}
	if len(used) == 0 {
		row.Verdict, row.Reason = NotMeasured, "no transformer snapshot with the authors' key orthogonality (KeyOrthogonalityEmbed)"
		return row
	}
	tl, th := headRange(trained)
	il, ih := headRange(init)
	row.Measured = fmt.Sprintf("%.2f–%.2f per head vs %.2f–%.2f at init; head mean %s vs %s", tl, th, il, ih, Mean(row.Values, 4), Mean(initVals, 4))
	row.Config = configOf(used)
	mt, mi := mean(row.Values), mean(initVals)
	row.Reason = fmt.Sprintf("trained keys are less orthogonal than at init (mean |cos| %.4f ≥ %.4f), as in the authors' own checkpoint", mt, mi)
	if mt < mi {
		row.Reason = fmt.Sprintf("trained keys more orthogonal than at init (mean |cos| %.4f < %.4f), the paper's direction", mt, mi)
	}
	// The null is the same model at initialisation (rebuilt from the seed): the trained
	// keys must be lower by more than the seeds' spread allows.
	below, diff, margin, ok := derived.Beyond(values(row.Values), values(initVals))
	judge(&row, mt < mi, derived.Null{Known: true, Meets: !below,
		What: fmt.Sprintf("the same model at initialisation (mean |cos| %.4f; trained %s)", mi, derived.MarginText(below, diff, margin, ok, 4))})
	return row
}

// values is the numbers of vs.
func values(vs []Value) []float64 {
	xs := make([]float64, len(vs))
	for i, v := range vs {
		xs[i] = v.V
	}
	return xs
}

// headRange averages per-head values over seeds and returns the smallest and largest head.
func headRange(perSeed [][]float64) (lo, hi float64) {
	n := len(perSeed[0])
	lo, hi = math.Inf(1), math.Inf(-1)
	for h := 0; h < n; h++ {
		s, c := 0.0, 0
		for _, heads := range perSeed {
			if h < len(heads) {
				s += heads[h]
				c++
			}
		}
		lo, hi = math.Min(lo, s/float64(c)), math.Max(hi, s/float64(c))
	}
	return lo, hi
}

// manifoldRow is |ρ(PC1, entropy)| (Spearman) of one sampling of the value manifold.
func manifoldRow(task, sampling string, rs []Run, get func(*sessions.Snapshot) *sessions.Manifold) Row {
	row := Row{Claim: fmt.Sprintf("value manifold: PC1 tracks posterior entropy, |ρ| (%s, %s)", sampling, task),
		Paper: "PC1 ordered by entropy (figure)", Authors: "—"}
	var used []Run
	for _, r := range rs {
		m := get(r.Snapshot)
		if m == nil || math.IsNaN(float64(m.Spearman)) {
			continue
		}
		used = append(used, r)
		row.Values = append(row.Values, Value{r.File, math.Abs(float64(m.Spearman))})
	}
	if len(used) == 0 {
		row.Verdict, row.Reason = NotMeasured, "no transformer snapshot with this value-manifold sampling"
		return row
	}
	row.Measured, row.Config = "|ρ| "+Mean(row.Values, 3), configOf(used)
	m := mean(row.Values)
	row.Reason = fmt.Sprintf("mean |ρ(PC1, entropy)| %.3f vs the bench's ≥ %.2f", m, ManifoldRho)
	// The null is each run's earliest geometry snapshot (no run records one untrained).
	var first []float64
	var steps []int
	var nullRuns []Run
	for _, r := range used {
		if r.FirstSnapshot == nil {
			continue
		}
		if fm := get(r.FirstSnapshot); fm != nil && !math.IsNaN(float64(fm.Spearman)) {
			first, steps = append(first, math.Abs(float64(fm.Spearman))), append(steps, r.FirstSnapshotStep)
			nullRuns = append(nullRuns, r)
		}
	}
	null := derived.Null{What: "no geometry snapshot before the last one, and none of the untrained model"}
	if len(first) > 0 {
		fm := derived.MeanFinite(first)
		null = derived.Null{Known: true, Meets: fm >= ManifoldRho,
			What: fmt.Sprintf("%s, |ρ| %.3f", earliest(nullRuns, steps), fm)}
	}
	judge(&row, m >= ManifoldRho, null)
	return row
}
