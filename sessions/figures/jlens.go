package figures

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/vg"

	"windtunnel/sessions/derived"
)

// jlensFigure is the authors' frame statistic over training for a group's seeds: at each
// site (the embedding output, after block 0), the J-lens overlap with the embedding frame
// as a ratio to its null, against the frame of each snapshot's own embeddings (what a live
// run sees) and against the final snapshot's frame (the authors' measure), mean and band
// over seeds, with chance (1) and the threshold. A model without the statistic gets none.
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
	th := fmt.Sprintf("threshold %.2f", first.Threshold)
	if first.Scaled {
		th += " (scaled: 3 is out of reach)"
	}
	title := fmt.Sprintf("%s: frame, J-lens overlap ÷ null (null %.3f, max %.1f)", g.Name, first.Null, first.Max)
	if len(frs) > 1 {
		title += fmt.Sprintf(", %d seeds", len(frs))
	}
	p := newPlot(title, "step", "overlap ÷ null (1 = chance)")
	colour := 0
	for si, site := range first.Sites {
		for _, final := range []bool{false, true} {
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
			which := "current frame"
			if final {
				which = "final frame"
			}
			name := fmt.Sprintf("%s, %s", siteLabel(site), which)
			if err := addBand(p, meanBand(series), colour, name, false); err != nil {
				return figure{}, false
			}
			colour++
		}
	}
	hline(p, 1, color.Gray{Y: 120}, "chance (1)")
	hline(p, first.Threshold, color.RGBA{R: 200, A: 255}, th)
	p.Y.Min = 0
	p.Y.Max = max(first.Threshold, first.Max) * 1.05
	p.Legend.Left = false
	p.Legend.Top = false
	p.Legend.YOffs = vg.Points(20)
	return figure{name: g.Name + "-jlens", title: title, plot: p}, true
}

// siteLabel names a J-lens site.
func siteLabel(s int) string {
	if s < 0 {
		return "embedding output"
	}
	return fmt.Sprintf("after block %d", s)
}
