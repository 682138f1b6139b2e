package reports

import (
	"fmt"
	"math"
	"strings"

	"windtunnel/sessions/derived"
)

// countOnce merges the copies of each replicate (sessions of one configuration and seed,
// derived.Replicates: a re-run, a copied folder) into one run, in the order of their first
// copy: a replicate is one experiment however many files hold it, so it is one value of a
// row's n. The merged run has its first copy's values; its File names the seed and every
// copy ("seed 1 (2 copies: A/x.wtlab, B/x.wtlab)"), Copies their paths, and Disagree what
// differs between the copies' results ("" when they agree), which each row using it states.
func countOnce(runs []Run) []Run {
	keys, seeds := make([]string, len(runs)), make([]uint64, len(runs))
	for i, r := range runs {
		keys[i], seeds[i] = r.Score.Key, r.Score.Seed
	}
	var out []Run
	for _, rep := range derived.Replicates(keys, seeds) {
		r := runs[rep[0]]
		if len(rep) > 1 {
			var diffs []string
			for _, i := range rep {
				r.Copies = append(r.Copies, runs[i].Path)
				if i == rep[0] {
					continue
				}
				if d := copyDiffers(runs[rep[0]], runs[i]); d != "" {
					diffs = append(diffs, fmt.Sprintf("%s vs %s: %s", runs[rep[0]].Path, runs[i].Path, d))
				}
			}
			r.File = fmt.Sprintf("seed %d (%d copies: %s)", r.Score.Seed, len(rep), strings.Join(r.Copies, ", "))
			if len(diffs) > 0 {
				r.Disagree = fmt.Sprintf("the copies of seed %d disagree (%s); the first copy's values are used", r.Score.Seed, strings.Join(diffs, "; "))
			}
		}
		out = append(out, r)
	}
	return out
}

// copyDiffers is what differs between two copies of a replicate: their final scores
// (derived.CopiesDisagree), their bit error and KL curves, and their last frame ratio.
func copyDiffers(a, b Run) string {
	var d []string
	if s := derived.CopiesDisagree(a.Score, b.Score); s != "" {
		d = append(d, s)
	}
	if !sameCurve(a.Curve, b.Curve) || !sameCurve(a.KLCurve, b.KLCurve) {
		d = append(d, "their evaluation curves differ")
	}
	if fa, fb := lastFrame(a), lastFrame(b); fa != fb && !(fa != fa && fb != fb) {
		d = append(d, fmt.Sprintf("frame ratio %.4g vs %.4g", fa, fb))
	}
	return strings.Join(d, ", ")
}

func sameCurve(a, b []derived.StepValue) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Step != b[i].Step || (a[i].V != b[i].V && !(a[i].V != a[i].V && b[i].V != b[i].V)) {
			return false
		}
	}
	return true
}

// lastFrame is the run's J-lens ratio at its last snapshot (NaN without one).
func lastFrame(r Run) float64 {
	if r.FrameRatio == nil || len(r.FrameRatio.Points) == 0 {
		return math.NaN()
	}
	return r.FrameRatio.Points[len(r.FrameRatio.Points)-1].MeanFinal
}

// noteDisagreements adds to the reason of each row whose values come from a replicate whose
// copies disagree what differs, once per replicate.
func noteDisagreements(rows []Row, runs []Run) {
	why := map[string]string{}
	for _, r := range runs {
		if r.Disagree != "" {
			why[r.File] = r.Disagree
		}
	}
	if len(why) == 0 {
		return
	}
	for i := range rows {
		seen := map[string]bool{}
		for _, v := range rows[i].Values {
			if w, ok := why[v.File]; ok && !seen[v.File] {
				seen[v.File] = true
				rows[i].Reason += "; " + w
			}
		}
	}
}
