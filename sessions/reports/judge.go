package reports

import (
	"fmt"
	"strings"
)

// Null is one null's (or control's) value of a row's statistic beside the model's.
type Null struct {
	// Name names the null ("random weights", "constant label", "evidence ablation", …).
	Name string
	// Text is its value as the row shows it.
	Text string
	// Meets is whether the null meets the row's criterion; Beaten whether the model beats it
	// by the row's margin.
	Meets, Beaten bool
	// Replicate marks a control the claim must survive (the lexical remap): it must meet the
	// criterion rather than fail it.
	Replicate bool
}

// Judge sets row's verdict by the three-outcome rule (README: Verdicts a null cannot earn).
// meets is whether the model meets the paper's criterion, why the criterion as measured;
// margin names the margin by which the model must beat each null.
//   - not reproduced: the model does not meet the criterion;
//   - reproduced: it meets it, every null fails it, the model beats each by the margin and every
//     replicate meets it too;
//   - consistent, not diagnostic: it meets it, but a null meets it too, or one is not beaten by
//     the margin, or a replicate fails, or no null was measured (undiagnosed).
func Judge(row Row, meets bool, why string, nulls []Null, margin string) Row {
	var parts []string
	for _, n := range nulls {
		mark := "fails"
		if n.Meets {
			mark = "meets"
		}
		parts = append(parts, fmt.Sprintf("%s: %s (%s)", n.Name, n.Text, mark))
	}
	row.Nulls = strings.Join(parts, "; ")
	row.Reason = why
	if !meets {
		row.Verdict = NotReproduced
		return row
	}
	row.Verdict = Consistent
	var real int
	for _, n := range nulls {
		switch {
		case n.Replicate && !n.Meets:
			row.Reason += "; the " + n.Name + " does not reproduce it"
			return row
		case n.Replicate:
		case n.Meets:
			row.Reason += "; the " + n.Name + " null meets it too"
			return row
		case !n.Beaten:
			row.Reason += "; the model does not beat the " + n.Name + " null by " + margin
			return row
		default:
			real++
		}
	}
	if real == 0 {
		row.Reason += "; no null measured: undiagnosed (llm --nulls)"
		return row
	}
	row.Verdict = Reproduced
	row.Reason += "; every null fails it and the model beats each by " + margin
	return row
}
