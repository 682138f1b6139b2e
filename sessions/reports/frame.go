package reports

import (
	"fmt"
	"math"
	"strings"
	"windtunnel/models/arch"

	"windtunnel/sessions/derived"
	"windtunnel/tunnels"
)

// The authors' frame figures (Paper I, their paper-size bijection retrain at batch 256).
const (
	PaperFrame     = "J-lens overlap ≥ 3× null once the frame has formed"
	AuthorsFrame   = "≈1.0× at steps 100–200, 2.3× at 300, 3.7× at 400, 6.2× at 2k, ≈5.6× at 50k"
	PaperDissoc    = "the frame settles early while bit error keeps falling"
	AuthorsDissoc  = "ratio ≥ 3× from step 400; bit error 0.04 → 0.0008 afterwards"
	PaperSpeedup   = "value projection at 10× the LR reaches the baseline's final loss 2.3× sooner"
	AuthorsSpeedup = "430 vs 1,000 steps (5 seeds, their task)"
)

// frameRows states the authors' frame claims for the transformer runs with the J-lens
// statistic, per task and configuration: the frame ratio at the end and the dissociation.
func frameRows(runs []Run) []Row {
	var rows []Row
	for _, task := range tunnels.Names() {
		var rs []Run
		for _, r := range pick(runs, task, arch.KindTransformer) {
			if r.FrameRatio != nil {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 && task != "bijection" {
			continue
		}
		for _, g := range configGroups(rs) {
			rows = append(rows, g.mark(frameRatioRow(task, g.runs)))
			rows = append(rows, g.mark(dissociationRow(task, g.runs)))
		}
	}
	return rows
}

// frameRatioRow: the J-lens ratio against the final frame at the last snapshot, at the
// frame's site (derived.FrameSite: the site where it is largest), against the threshold; the
// reason lists every site.
func frameRatioRow(task string, rs []Run) Row {
	row := Row{Claim: fmt.Sprintf("the embedding frame aligns with the J-lens subspace (authors' frame statistic, %s)", task),
		Paper: PaperFrame, Authors: AuthorsFrame}
	if len(rs) == 0 {
		row.Verdict, row.Reason = NotMeasured, "no transformer session with the J-lens statistic (recorded at geometry snapshots since 2026-11-26)"
		return row
	}
	pass := 0
	var sites []string
	th, mx := rs[0].FrameRatio.Threshold, rs[0].FrameRatio.Max
	for _, r := range rs {
		fr := r.FrameRatio
		last := fr.Points[len(fr.Points)-1]
		v := math.NaN()
		if fr.Site >= 0 {
			v = last.Final[fr.Site]
		}
		row.Values = append(row.Values, Value{r.File, v})
		if v >= fr.Threshold {
			pass++
		}
		var per []string
		for si, s := range fr.Sites {
			per = append(per, fmt.Sprintf("%s %.2f", siteName(s), last.Final[si]))
		}
		sites = append(sites, fmt.Sprintf("%s: %s at step %d", r.File, strings.Join(per, ", "), last.Step))
	}
	row.Config = configOf(rs)
	row.Measured = fmt.Sprintf("%s× null at the frame's site (threshold %.2f, max %.2f)", Mean(row.Values, 2), th, mx)
	row.Verdict = NotReproduced
	if pass*2 > len(rs) {
		row.Verdict = Reproduced
	}
	row.Reason = fmt.Sprintf("%d/%d seeds at or above %.2f× null at their last snapshot (%s)", pass, len(rs), th, strings.Join(sites, "; "))
	if rs[0].FrameRatio.Scaled {
		row.Reason += "; the threshold is scaled: 3× null is out of reach at this width"
	}
	return row
}

// dissociationRow: the step the final-frame ratio at the frame's site settled
// (derived.SettleBand; the site with the largest ratio at the end), the bit error (a) there
// and at the end, and where precision settled. A seed dissociates when its frame
// settled before its precision and bit error then fell at least twofold.
func dissociationRow(task string, rs []Run) Row {
	row := Row{Claim: fmt.Sprintf("the frame settles while precision keeps improving (J-lens frame vs bit error (a), %s)", task),
		Paper: PaperDissoc, Authors: AuthorsDissoc}
	if len(rs) == 0 {
		row.Verdict, row.Reason = NotMeasured, "no transformer session with the J-lens statistic"
		return row
	}
	dissociated := 0
	var atSettle, atEnd, precision []Value
	var notes []string
	for _, r := range rs {
		fs := r.FrameRatio.SettleFinal
		ps := -1
		if r.Snapshot != nil && r.Snapshot.Frame != nil && r.Snapshot.Frame.Settle != nil {
			ps = r.Snapshot.Frame.Settle.BitError
		}
		if fs < 0 || len(r.Curve) == 0 {
			notes = append(notes, r.File+": frame not settled")
			continue
		}
		row.Values = append(row.Values, Value{r.File, float64(fs)})
		b0, b1 := curveAt(r.Curve, fs), r.Curve[len(r.Curve)-1].V
		atSettle, atEnd = append(atSettle, Value{r.File, b0}), append(atEnd, Value{r.File, b1})
		precision = append(precision, Value{r.File, float64(ps)})
		ok := (ps < 0 || fs < ps) && b1 <= b0/2
		if ok {
			dissociated++
		}
		notes = append(notes, fmt.Sprintf("%s: frame settled %d, first ≥ %.2f at %s, precision settled %s, bit error %.4f → %.4f",
			r.File, fs, r.FrameRatio.Threshold, firstPass(r.FrameRatio), stepOrNot(ps), b0, b1))
	}
	row.Config = configOf(rs)
	if len(row.Values) == 0 {
		row.Verdict, row.Reason = NotReproduced, "the frame ratio settled in none of the seeds: "+strings.Join(notes, "; ")
		return row
	}
	row.Measured = fmt.Sprintf("frame settled at step %s; bit error (a) %s there → %s at the end; precision settled at step %s",
		Mean(row.Values, 0), Mean(atSettle, 4), Mean(atEnd, 4), Mean(precision, 0))
	row.Verdict = NotReproduced
	if dissociated*2 > len(rs) {
		row.Verdict = Reproduced
	}
	row.Reason = fmt.Sprintf("%d/%d seeds: frame settled before precision and bit error fell ≥ 2× after it (%s)", dissociated, len(rs), strings.Join(notes, "; "))
	return row
}

// curveAt is the value at the last point at or before step (the first point's before it).
func curveAt(c []derived.StepValue, step int) float64 {
	v := c[0].V
	for _, p := range c {
		if p.Step > step {
			break
		}
		v = p.V
	}
	return v
}

// firstAtOrBelow is the first step whose value is at or below target (−1: none).
func firstAtOrBelow(c []derived.StepValue, target float64) int {
	for _, p := range c {
		if p.V <= target {
			return p.Step
		}
	}
	return -1
}

// siteName names a J-lens site: "embed" or "block l".
func siteName(s int) string {
	if s < 0 {
		return "embed"
	}
	return fmt.Sprintf("block %d", s)
}

// firstPass names the first step any site's final-frame ratio reached the threshold, with
// the site ("never" when none did).
func firstPass(fr *derived.FrameRatios) string {
	best, site := -1, 0
	for si, s := range fr.PassFinal {
		if s >= 0 && (best < 0 || s < best) {
			best, site = s, fr.Sites[si]
		}
	}
	if best < 0 {
		return "never"
	}
	return fmt.Sprintf("%d (%s)", best, siteName(site))
}

// stepOrNot prints a step, or "not settled" for −1.
func stepOrNot(s int) string {
	if s < 0 {
		return "not settled"
	}
	return fmt.Sprint(s)
}
