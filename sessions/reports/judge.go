package reports

import (
	"fmt"
	"strings"

	"windtunnel/sessions/derived"
)

// Null is one null's (or control's) value of a Paper III row's statistic beside the model's.
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

// Judge sets row's verdict by the three-outcome rule (derived.OutcomeOf; docs/paper3.md: Verdicts a
// null cannot earn): meets is whether the model meets the paper's criterion, why the
// criterion as measured, margin names the margin by which the model must beat each null.
func Judge(row Row, meets bool, why string, nulls []Null, margin string) Row {
	var parts []string
	dn := make([]derived.Null, len(nulls))
	for i, n := range nulls {
		mark := "fails"
		if n.Meets {
			mark = "meets"
		}
		parts = append(parts, fmt.Sprintf("%s: %s (%s)", n.Name, n.Text, mark))
		what := n.Name + " null"
		if n.Replicate {
			what = n.Name
		}
		dn[i] = derived.Null{Known: true, Meets: n.Meets, NotBeaten: !n.Beaten, Replicate: n.Replicate, What: what}
	}
	row.Nulls = strings.Join(parts, "; ")
	var clause string
	row.Verdict, clause = derived.OutcomeOf(meets, dn)
	row.Reason = why
	switch {
	case clause == "":
	case row.Verdict == Reproduced:
		row.Reason += "; " + clause + " and the model beats each by " + margin
	case strings.HasSuffix(clause, "by the margin"):
		row.Reason += "; " + strings.TrimSuffix(clause, "by the margin") + "by " + margin
	default:
		row.Reason += "; " + clause
	}
	return row
}
