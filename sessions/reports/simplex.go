package reports

import (
	"fmt"

	"windtunnel/models/arch"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// PaperSimplex is Paper I's belief-simplex claim as its figure shows it (Mamba's final layer
// on the HMM, 2-D PCA at the observation positions coloured by the argmax state).
const PaperSimplex = "five clusters, one per hidden state, at the simplex's corners (figure)"

// simplexRows measures Paper I's belief-simplex claim on the hmm runs of each model whose
// newest snapshot holds the measurement (Mamba's row always: not measured without one), each
// configuration (configGroups) on its runs that learnt the task (onLearnt), against the
// same model untrained (simplexRow).
func simplexRows(runs []Run) []Row {
	var rows []Row
	for _, model := range arch.PaperKinds() {
		var rs []Run
		for _, r := range pick(runs, "hmm", model) {
			if r.Snapshot != nil && r.Snapshot.Simplex != nil {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 && model != arch.KindMamba {
			continue
		}
		for _, g := range configGroups(rs) {
			rows = append(rows, g.mark(onLearnt("hmm", g.runs, func(rs []Run) Row { return simplexRow(model, rs) })))
		}
	}
	return rows
}

// simplexRow is one model's simplex row: met when the seeds' mean purity and corner distance
// meet derived.SimplexMeets, the corner line drawn from the exact posterior's own clusters on
// the runs' sequences (derived.SimplexOptimum); the null is the same model untrained (each
// snapshot's SimplexInit, rebuilt from the seed), judged by the same criterion.
func simplexRow(model string, rs []Run) Row {
	row := Row{Claim: fmt.Sprintf("%s's final layer forms one cluster per hidden state, at the simplex's corners (hmm)", model),
		Paper: "— (the paper shows Mamba's)", Authors: "—"}
	if model == arch.KindMamba {
		row.Paper = PaperSimplex
	}
	snaps := make([]*sessions.Snapshot, len(rs))
	steps := make([]int, len(rs))
	optima := make([]*sessions.Simplex, len(rs))
	for i, r := range rs {
		snaps[i], steps[i] = r.Snapshot, r.SnapshotStep
		optima[i], _ = derived.SimplexOptimum(r.Config, 0) // an error leaves the line at the corners
	}
	s := derived.SimplexOf(snaps, steps, optima)
	if s == nil {
		row.Verdict, row.Reason = NotMeasured, fmt.Sprintf("no hmm snapshot of the %s with the belief-simplex measurement (`windtunnel run --task hmm --model %s` records one at every geometry snapshot)", model, model)
		return row
	}
	for _, r := range rs {
		row.Values = append(row.Values, Value{r.File, float64(r.Snapshot.Simplex.Purity)})
	}
	row.Config = configOf(rs)
	row.Measured = fmt.Sprintf("purity %s, corner distance %s, R² %s (k = %d, %s)", s.Purity.String(3), s.CornerDist.String(3), s.R2.String(3), s.States, stepsText(s.Steps))
	row.Reason = fmt.Sprintf("mean purity %.3f, corner distance %.3f vs %s", s.Purity.Mean, s.CornerDist.Mean, s.Rule())
	if s.Optimum != nil {
		row.Reason += fmt.Sprintf("; the exact posterior itself: purity %.3f, corner distance %.3f", s.Optimum.Purity.Mean, s.Optimum.CornerDist.Mean)
	}
	null := derived.Null{What: "the same model untrained: not recorded (sessions written before simplex_init)"}
	if s.Init != nil {
		null = derived.Null{Known: true, Meets: s.Init.Meets,
			What: fmt.Sprintf("the same model untrained (rebuilt from the seed), purity %.3f, corner distance %.3f, R² %.3f", s.Init.Purity.Mean, s.Init.CornerDist.Mean, s.Init.R2.Mean)}
	}
	judge(&row, s.Meets, null)
	return row
}
