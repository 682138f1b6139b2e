package figures

import (
	"fmt"
	"sort"

	"gonum.org/v1/plot/plotutil"
)

// lengthsFigure is an hmm run's length generalisation at the last evaluation that has it:
// the mean KL per position at each evaluated K (mean ± sd over seeds), log axis, with the
// training length marked.
func lengthsFigure(g Group) (figure, bool) {
	byK := map[int][][][2]float64{}
	train, step := 0, 0
	for _, r := range g.Runs {
		for i := len(r.Evals) - 1; i >= 0; i-- {
			e := r.Evals[i]
			if len(e.Eval.Lengths) == 0 {
				continue
			}
			step = max(step, e.Step)
			for _, ls := range e.Eval.Lengths {
				s := make([][2]float64, len(ls.KLByPosition))
				for j, v := range ls.KLByPosition {
					s[j] = [2]float64{float64(j + 1), float64(v)}
				}
				byK[ls.K] = append(byK[ls.K], s)
				if ls.Train {
					train = ls.K
				}
			}
			break
		}
	}
	if len(byK) == 0 {
		return figure{}, false
	}
	ks := make([]int, 0, len(byK))
	for k := range byK {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	title := fmt.Sprintf("%s: KL per position by length K at step %d (%s)", heading(g), step, seedsLabel(g))
	p := newPlot(title, "position", "KL (bits, log)")
	integerX(p, 8)
	drawn := false
	for i, k := range ks {
		b := meanBand(byK[k])
		if len(b.x) == 0 {
			continue
		}
		name := fmt.Sprintf("K=%d", k)
		if k == train {
			name += " (trained)"
		}
		if err := addBand(p, b, i, name, true); err != nil {
			return figure{}, false
		}
		drawn = true
	}
	if !drawn {
		return figure{}, false
	}
	if train > 0 {
		addVLine(p, float64(train), plotutil.Color(len(ks)), fmt.Sprintf("training length %d", train))
	}
	logAxis(p)
	return figure{name: g.Name + "-lengths", title: title, plot: p}, true
}
