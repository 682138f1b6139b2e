package figures

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/palette/moreland"
)

// maxQKLayers is the most layers the qk figure draws (the first ones).
const maxQKLayers = 6

// qkFigure is the QK alignment from the first seed's newest snapshot: per layer (the first
// maxQKLayers), a heat map of the cosine between the query at each scored position (rows)
// and each earlier key (columns), averaged over heads and sequences, on one diverging
// colour map symmetric about 0 (the bar at the right); keys after the query are blank. A
// snapshot without attention gets no figure.
func qkFigure(g Group) (figure, bool) {
	s, r, ok := snapshotOf(g)
	if !ok || len(s.QKAlignment) == 0 || len(s.QKPositions) == 0 {
		return figure{}, false
	}
	rows := len(s.QKPositions)
	ys := make([]float64, rows)
	for i, q := range s.QKPositions {
		ys[i] = float64(q)
	}
	var maps []grid
	for _, flat := range s.QKAlignment {
		if len(flat) < rows || len(flat)%rows != 0 {
			return figure{}, false
		}
		cols := len(flat) / rows
		z := make([][]float64, rows)
		for i := range z {
			z[i] = make([]float64, cols)
			for j := range z[i] {
				z[i][j] = float64(flat[i*cols+j])
			}
		}
		maps = append(maps, grid{z: z, xs: indices(cols), ys: ys})
		if len(maps) == maxQKLayers {
			break
		}
	}
	top := 0.0
	for _, m := range maps {
		lo, hi := finiteRange(m.z)
		if !math.IsNaN(lo) {
			top = math.Max(top, math.Max(-lo, hi))
		}
	}
	if top == 0 {
		top = 1
	}
	cm := colourRange(moreland.SmoothBlueRed(), -top, top)
	title := fmt.Sprintf("%s: QK alignment, cos(query, key) averaged over heads %s", heading(g), snapLabel(g, r))
	if len(s.QKAlignment) > len(maps) {
		title += fmt.Sprintf(", first %d of %d layers", len(maps), len(s.QKAlignment))
	}
	nc := int(math.Ceil(math.Sqrt(float64(len(maps)))))
	nr := (len(maps) + nc - 1) / nc
	const barW = 0.09
	cw, rh := (1-barW)/float64(nc), 1/float64(nr)
	var panels []panel
	for l, m := range maps {
		p := heatMap(m, cm, fmt.Sprintf("layer %d", l), "key position", "query position")
		i, j := l%nc, l/nc
		panels = append(panels, panel{plot: p, x0: cw * float64(i), x1: cw * float64(i+1),
			y0: 1 - rh*float64(j+1), y1: 1 - rh*float64(j)})
	}
	panels = append(panels, panel{plot: colourBar(cm, "cosine"), x0: 1 - barW, x1: 1, y0: 0, y1: 1, bar: true})
	return panelled(g.Name+"-qk", title, panels...), true
}
