package figures

import (
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"windtunnel/sessions/derived"
)

// jlensFigure is the authors' frame statistic over training for a group's seeds: at each
// site (the embedding output, after block 0), the J-lens overlap with the embedding frame
// as a ratio to its null (mean over the positions), against the frame of each snapshot's
// own embeddings (what a live run sees) and against the final snapshot's frame (the
// authors' measure), and the mean over sites against the final frame (what the authors
// report and the dissociation rule reads), mean and band over seeds, with chance (1) and θ.
// Where no seed kept the current frame at two snapshots or more (slimmed sessions) the
// final-frame curves alone are drawn and the title says so. A model without the statistic
// gets none.
func jlensFigure(g Group) (figure, bool) {
	var frs []*derived.FrameRatios
	for _, r := range g.Runs {
		if r.FrameRatio != nil && len(r.FrameRatio.Points) > 0 {
			frs = append(frs, r.FrameRatio)
		}
	}
	if len(frs) == 0 {
		return figure{}, false
	}
	first := frs[0]
	th := fmt.Sprintf("θ %.2f", first.Threshold)
	if first.Scaled {
		th += " (scaled to this width)"
	}
	title := fmt.Sprintf("%s: frame, J-lens overlap ÷ null (null %.3f, max %.1f)", heading(g), first.Null, first.Max)
	if len(frs) > 1 {
		title += fmt.Sprintf(", %d seeds", len(frs))
	}
	// A slimmed session keeps its newest snapshot alone, and its history the final-frame
	// ratios: the current frame is then one point, where it equals the final frame.
	current := slices.ContainsFunc(frs, func(fr *derived.FrameRatios) bool { return currentPoints(fr) > 1 })
	if !current {
		title += ", final frame only (slimmed)"
	}
	p := newPlot(title, "step", "overlap ÷ null (1 = chance)")
	integerX(p, 7)
	// One colour per site; the frame of each snapshot's own embeddings solid and wide, the
	// final snapshot's dashed over it, so that both show where they agree.
	var curves []plotter.XYs
	for si, site := range first.Sites {
		for _, final := range []bool{false, true} {
			if !final && !current {
				continue
			}
			var series [][][2]float64
			for _, fr := range frs {
				var s [][2]float64
				for _, pt := range fr.Points {
					v := pt.Current
					if final {
						v = pt.Final
					}
					if si < len(v) {
						s = append(s, [2]float64{float64(pt.Step), v[si]})
					}
				}
				series = append(series, s)
			}
			which, sty := "current frame", draw.LineStyle{Color: plotutil.Color(si), Width: vg.Points(2.4)}
			if final {
				which = "final frame"
				sty.Width, sty.Dashes = vg.Points(1.6), []vg.Length{vg.Points(6), vg.Points(3)}
			}
			name := fmt.Sprintf("%s, %s", siteLabel(site), which)
			b := meanBand(series)
			if err := addBandStyle(p, b, sty, name, false); err != nil {
				return figure{}, false
			}
			c := make(plotter.XYs, len(b.x))
			for k := range b.x {
				c[k] = plotter.XY{X: b.x[k], Y: b.mean[k]}
			}
			curves = append(curves, c)
		}
	}
	// The statistic the authors report and the rule reads: the mean over sites (and
	// positions) against the final frame.
	var means [][][2]float64
	for _, fr := range frs {
		var m [][2]float64
		for _, pt := range fr.Points {
			m = append(m, [2]float64{float64(pt.Step), pt.MeanFinal})
		}
		means = append(means, m)
	}
	mb := meanBand(means)
	if err := addBandStyle(p, mb, draw.LineStyle{Color: color.Black, Width: vg.Points(2.8)}, "mean over sites, final frame (the rule's)", false); err != nil {
		return figure{}, false
	}
	chance := hline(p, 1, color.Gray{Y: 110}, "chance (1)")
	thr := hline(p, first.Threshold, color.Black, th)
	p.Y.Min = 0
	p.Y.Max = max(first.Threshold, first.Max) * 1.05
	placeLabel(chance, curves, p)
	placeLabel(thr, curves, p)
	return figure{name: g.Name + "-jlens", title: title, plot: p}, true
}

// currentPoints is the number of fr's points that hold the ratio against their own
// snapshot's frame.
func currentPoints(fr *derived.FrameRatios) int {
	n := 0
	for _, pt := range fr.Points {
		if len(pt.Current) > 0 {
			n++
		}
	}
	return n
}

// siteLabel names a J-lens site.
func siteLabel(s int) string {
	if s < 0 {
		return "embedding output"
	}
	return fmt.Sprintf("after block %d", s)
}
